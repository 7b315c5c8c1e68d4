package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rfstream/rfstream/augment"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/recipes"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "enroll", Summary: "teaching a voice ten words (rfstream enroll): isolated accuracy and connected WER of the rest of each held-out voice, before and after",
		Eval: evalEnrol})
}

// enrolVoice is one voice of an enrolment evaluation: what it is taught
// and what is scored.
type enrolVoice struct {
	name  string
	teach []datasets.Recording // one per digit
	// isolated are scored with the taught voice (digits alone); strings
	// too (connected WER).
	isolated []datasets.Recording
	strings  []heldString
	// folds, when set, replace teach and isolated: each teaches every
	// recording but one and scores that one (a voice with one take per
	// digit).
	folds bool
	words *engine.WordClassifier // the word model for this voice (trained without it)
	// conn, when set, is the connected model for this voice (trained
	// without it), instead of the set's.
	conn *engine.Connected
}

// enrolScore is one voice's figures before and after teaching: counts,
// and the percentages (finish) computed from them.
type enrolScore struct {
	Voice  string `json:"voice"`
	Set    string `json:"set"`
	Taught int    `json:"taught"`
	// Refused are the recordings to teach that CheckTeachable refused
	// (enroll would ask for them again), with why.
	Refused  []string `json:"refused,omitempty"`
	Isolated int      `json:"isolated"`
	// Right decisions of the word model and the connected one on the
	// recordings scored alone, before and after teaching.
	WordOK     [2]int `json:"word_right"`
	ConnOK     [2]int `json:"connected_right"`
	Strings    int    `json:"strings"`
	StringRef  int    `json:"string_words"`
	StringErrs [2]int `json:"string_errors"`
	// Guarded: the guard kept the model's recogniser for the voice
	// (pooled: how many voices).
	Guarded  bool `json:"guarded"`
	NGuarded int  `json:"n_guarded,omitempty"`

	WordAcc [2]float64 `json:"word_acc"`
	ConnAcc [2]float64 `json:"connected_acc"`
	WER     [2]float64 `json:"wer"`
}

func (s *enrolScore) finish() {
	for k := range 2 {
		s.WordAcc[k] = 100 * float64(s.WordOK[k]) / float64(max(s.Isolated, 1))
		s.ConnAcc[k] = 100 * float64(s.ConnOK[k]) / float64(max(s.Isolated, 1))
		s.WER[k] = 100 * float64(s.StringErrs[k]) / float64(max(s.StringRef, 1))
	}
}

// poolEnrol adds up every voice's counts.
func poolEnrol(vs []enrolScore) enrolScore {
	p := enrolScore{Voice: "all"}
	for _, v := range vs {
		p.Set, p.Isolated, p.Strings, p.StringRef = v.Set, p.Isolated+v.Isolated, p.Strings+v.Strings, p.StringRef+v.StringRef
		for k := range 2 {
			p.WordOK[k] += v.WordOK[k]
			p.ConnOK[k] += v.ConnOK[k]
			p.StringErrs[k] += v.StringErrs[k]
		}
		if v.Guarded {
			p.NGuarded++
		}
	}
	p.finish()
	return p
}

// writeEnrolTable prints one run: a line per voice and the pooled one.
func writeEnrolTable(w io.Writer, r enrolRun) {
	fmt.Fprintf(w, "eval enroll, set %s (connected pull %g, word pull %g, word weight %g, taught copies %s, taught strings %s, guard %s, seed %d): %s\n", r.Set, r.ConnectedPull, r.WordPull, r.WordWeight, r.Copies, r.Strings, r.Guard, r.Seed, r.Scored)
	fmt.Fprintf(w, "connected model: %s; voices the guard kept on the model: %d of %d\n", r.ConnectedModel, r.Pooled.NGuarded, len(r.Voices))
	fmt.Fprintf(w, "%-28s %6s %8s  %-17s %-17s %-17s\n", "voice", "taught", "isolated", "word model %", "connected alone %", "connected WER %")
	for _, v := range append(slices.Clone(r.Voices), r.Pooled) {
		wer := "-"
		if v.StringRef > 0 {
			wer = fmt.Sprintf("%5.1f → %5.1f", v.WER[0], v.WER[1])
		}
		fmt.Fprintf(w, "%-28s %6d %8d  %5.1f → %5.1f     %5.1f → %5.1f     %s\n", v.Voice, v.Taught, v.Isolated, v.WordAcc[0], v.WordAcc[1], v.ConnAcc[0], v.ConnAcc[1], wer)
	}
}

type enrolRun struct {
	Set    string `json:"set"`
	Scored string `json:"scored"`
	// ConnectedModel says which connected model was taught and scored
	// (enrolConnected).
	ConnectedModel string       `json:"connected_model"`
	ConnectedPull  float64      `json:"connected_pull"`
	WordPull       float64      `json:"word_pull"`
	WordWeight     float64      `json:"word_weight,omitempty"`
	Copies         string       `json:"teach_copies"`
	Strings        string       `json:"teach_strings,omitempty"`
	Guard          string       `json:"guard"`
	Seed           uint64       `json:"seed"`
	Voices         []enrolScore `json:"voices"`
	Pooled         enrolScore   `json:"pooled"`
}

func evalEnrol(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval enroll", "[flags]", stderr)
	sets := fs.String("sets", "real", "voice sets, comma-separated: synth (flite and festival voices of rfstream data voices: the tuning set), real (the five voices of ../shared/voices, scored on shifted copies of their digits), real-loo (the same, leave-one-digit-out), fsdd (FSDD's six, each with a word model trained without it)")
	cpulls := fs.String("connected-pull", fmt.Sprint(engine.ConnectedTeachPull), "the connected model's pulls toward its read-out to try, comma-separated")
	wpulls := fs.String("word-pull", fmt.Sprint(engine.WordTeachPull), "the word model's pulls to try, comma-separated")
	seed := fs.Uint64("seed", 1, "which take of each digit is taught")
	jsonOut := fs.String("json", "", "write the results as JSON here")
	which := fs.String("models", "both", "the models to teach and score: both, connected or words (the other's columns read 0)")
	weights := fs.String("word-weight", "0", "refit the word model with its training rows, each taught word counted this many times, instead of pulling toward its read-out (0: the pull); comma-separated values to try")
	joined := fs.String("teach-strings", "6-paused", "strings joined from each voice's taught words that the connected model is taught too, comma-separated kinds to try (none: round E2's): "+strings.Join(joinKindNames(), ", "))
	guards := fs.String("guard", guardKindName(guardKind{engine.TaughtGuardMisses, engine.TaughtGuardStrings}), "the guard against teaching a voice the model already hears (engine.ConnectedVoice.GuardMisses, GuardStrings), comma-separated kinds to try: off; words (the model alone hears every taught word right: the voice keeps the model); words+strings (and every string of them the voice would be taught)")
	only := fs.String("voices", "", "score only these voices of each set, comma-separated (none: all)")
	connChoice := fs.String("connected-model", "held-out", "the connected model taught and scored: held-out (the shipped recipe less the set's voices; for fsdd, less each speaker: six connected trainings on first use) or shipped (the shipped model, which may have trained on them)")
	copies := fs.String("teach-copies", "none", "copies of each taught word taught with it, comma-separated kinds to try: "+strings.Join(teachCopyKinds, ", "))
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	cp, err := floatList(*cpulls)
	if err != nil {
		return err
	}
	wp, err := floatList(*wpulls)
	if err != nil {
		return err
	}
	var ww []float64
	for _, f := range strings.Split(*weights, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("eval enroll: --word-weight %q: want a number ≥ 0", f)
		}
		ww = append(ww, v)
	}
	joins := strings.Split(*joined, ",")
	for _, j := range joins {
		if _, ok := joinKinds[j]; !ok {
			return fmt.Errorf("eval enroll: --teach-strings %q (%s)", j, strings.Join(joinKindNames(), ", "))
		}
	}
	var guardList []guardKind
	for _, g := range strings.Split(*guards, ",") {
		k, ok := guardKinds[g]
		if !ok {
			return fmt.Errorf("eval enroll: --guard %q (off, words, words+strings)", g)
		}
		guardList = append(guardList, k)
	}
	if *connChoice != "held-out" && *connChoice != "shipped" {
		return fmt.Errorf("eval enroll: --connected-model %q (held-out, shipped)", *connChoice)
	}
	kinds := strings.Split(*copies, ",")
	for _, k := range kinds {
		if !slices.Contains(teachCopyKinds, k) {
			return fmt.Errorf("eval enroll: --teach-copies %q (%s)", k, strings.Join(teachCopyKinds, ", "))
		}
	}
	wordModel, err := defaults.Adaptable(stderr)
	if err != nil {
		return err
	}
	words, err := engine.NewWordClassifier(wordModel)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "rfstream-eval-enrol-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var runs []enrolRun
	for _, set := range strings.Split(*sets, ",") {
		voices, scored, err := enrolVoices(set, *seed, words, tmp, stderr)
		if err != nil {
			return err
		}
		if *only != "" {
			keep := strings.Split(*only, ",")
			voices = slices.DeleteFunc(voices, func(v enrolVoice) bool { return !slices.Contains(keep, v.name) })
			if len(voices) == 0 {
				return fmt.Errorf("eval enroll: --voices %q: none is in set %s", *only, set)
			}
		}
		var conn *engine.Connected
		connNote := "not scored"
		if *which != "words" {
			if conn, connNote, err = enrolConnected(set, *connChoice == "shipped", stderr); err != nil {
				return err
			}
			if set == "fsdd" && *connChoice == "held-out" {
				// Each speaker's own model, the shipped recipe
				// without it (a connected training each, first).
				for i := range voices {
					m, note, err := recipes.HeldOutConnectedWithout(recipes.ConnectedOptions(), voices[i].name, stderr)
					if err != nil {
						return err
					}
					if voices[i].conn, err = engine.NewConnected(m); err != nil {
						return err
					}
					fmt.Fprintf(stderr, "enroll fsdd %s: connected model %s\n", voices[i].name, note)
				}
				connNote = "the shipped recipe without the speaker, one model per speaker (recipes.HeldOutConnectedWithout)"
			}
		}
		var settings []enrolSettings
		for _, kind := range kinds {
			for _, join := range joins {
				for _, c := range cp {
					for _, w := range wp {
						for _, weight := range ww {
							for _, g := range guardList {
								settings = append(settings, enrolSettings{c, w, weight, *which, kind, join, *seed, g})
							}
						}
					}
				}
			}
		}
		for _, st := range settings {
			run := enrolRun{Set: set, Scored: scored, ConnectedModel: connNote, ConnectedPull: st.connPull, WordPull: st.wordPull, WordWeight: st.wordWeight, Copies: st.copies, Strings: st.strings, Guard: guardKindName(st.guard), Seed: *seed}
			for _, v := range voices {
				c := conn
				if v.conn != nil {
					c = v.conn
				}
				s, err := scoreEnrolment(c, v, st)
				if err != nil {
					return fmt.Errorf("%s: %w", v.name, err)
				}
				s.Set = set
				run.Voices = append(run.Voices, s)
				fmt.Fprintf(stderr, "enroll %s %s (pulls %g, %g, weight %g, copies %s, strings %s, guard %s, guarded %v): word %.1f → %.1f %%, connected alone %.1f → %.1f %%, WER %.1f → %.1f %%\n",
					set, v.name, st.connPull, st.wordPull, st.wordWeight, st.copies, st.strings, guardKindName(st.guard), s.Guarded, s.WordAcc[0], s.WordAcc[1], s.ConnAcc[0], s.ConnAcc[1], s.WER[0], s.WER[1])
			}
			run.Pooled = poolEnrol(run.Voices)
			runs = append(runs, run)
			writeEnrolTable(stdout, run)
		}
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(runs, "", "  ")
		return os.WriteFile(*jsonOut, append(b, '\n'), 0o644)
	}
	return nil
}

// enrolConnected is the connected model a set's voices are taught to and
// scored with, and what it is: one that never trained on them, the
// shipped recipe less the set's voices (recipes.HeldOutConnected: the real
// set without the real voices, the synthetic set without any
// synthesiser's voice set); the shipped model when that leaves its recipe
// as it is. FSDD's speakers are in every connected recipe: the fsdd set
// gets the shipped model here, which evalEnrol replaces, unless
// --connected-model shipped, with each speaker's own model trained without
// it (recipes.HeldOutConnectedWithout: six trainings on first use).
func enrolConnected(set string, shipped bool, log io.Writer) (*engine.Connected, string, error) {
	o := recipes.ConnectedOptions()
	var m *engine.Model
	var note string
	var err error
	switch {
	case shipped:
		m, err = defaults.Speech(log)
		note = "the shipped model (--connected-model shipped: it may have trained on these voices)"
	case set == "real" || set == "real-loo":
		m, note, err = recipes.HeldOutConnected(recipes.WithoutRealVoices(o), log)
		note = "the shipped recipe without the real voices: " + note
	case set == "synth":
		m, note, err = recipes.HeldOutConnected(recipes.WithoutEngineVoices(o), log)
		note = "the shipped recipe without the synthesisers' voice sets: " + note
	case set == "fsdd":
		m, err = defaults.Speech(log)
		note = "the shipped model, which trained on every FSDD speaker (not held out)"
	default:
		return nil, "", fmt.Errorf("eval enroll: unknown set %q", set)
	}
	if err != nil {
		return nil, "", err
	}
	c, err := engine.NewConnected(m)
	return c, note, err
}

func floatList(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) {
			return nil, fmt.Errorf("pull %q: want a positive number", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// enrolVoices lists a set's voices, each with what it is taught and what
// is scored, and says what is scored.
func enrolVoices(set string, seed uint64, words *engine.WordClassifier, tmp string, log io.Writer) ([]enrolVoice, string, error) {
	switch set {
	case "synth":
		var out []enrolVoice
		for _, name := range []string{"flite", "festival"} {
			e, err := datasets.EngineByName(name)
			if err != nil {
				return nil, "", err
			}
			vs, err := datasets.BuildVoiceSet(defaults.VoicesDir(), e, datasets.DefaultVoiceSetOptions(), nil)
			if err != nil {
				return nil, "", err
			}
			for _, sp := range vs.Speakers {
				v, err := splitVoice(sp.Name(), speakerRecs(vs.Digits, sp.Name()), seed, words)
				if err != nil {
					return nil, "", err
				}
				var us []datasets.Utterance
				for _, u := range vs.Strings {
					if u.Speaker == sp.Name() {
						us = append(us, u)
					}
				}
				if v.strings, err = spokenTestStrings(us, 8000); err != nil {
					return nil, "", err
				}
				out = append(out, v)
			}
		}
		return out, "one take of each digit taught (drawn with the seed), the other three takes and the voice's ten spoken strings scored", nil
	case "real", "real-loo":
		recs, err := datasets.RealVoiceDigits(defaults.RealVoicesDir())
		if err != nil {
			return nil, "", err
		}
		var out []enrolVoice
		for _, rv := range datasets.RealVoices() {
			var digits []datasets.Recording
			for _, r := range speakerRecs(recs, rv.Name) {
				if r.Label != engine.OhLabel {
					digits = append(digits, r)
				}
			}
			copies, err := augmentedCopies(digits, filepath.Join(tmp, rv.Name))
			if err != nil {
				return nil, "", err
			}
			strs, err := joinedTestStrings(copies, 20, seed, 8000)
			if err != nil {
				return nil, "", err
			}
			if set == "real-loo" {
				out = append(out, enrolVoice{name: rv.Name, teach: digits, isolated: digits, folds: true, words: words})
			} else {
				out = append(out, enrolVoice{name: rv.Name, teach: digits, isolated: copies, strings: strs, words: words})
			}
		}
		if set == "real-loo" {
			return out, "one take per digit: leave-one-digit-out, nine taught and the tenth scored (pessimistic: the voice is never taught the digit it is scored on, and its read-out leans to the nine it was)", nil
		}
		return out, "one take per digit, all ten taught; scored: four pitch/tempo-shifted copies of each (±60 cents, 0.9× and 1.1×) alone, and 20 strings joined from them (optimistic: copies of the taught recordings, not new takes)", nil
	case "fsdd":
		all, err := datasets.FSDD(defaults.FSDDDir())
		if err != nil {
			return nil, "", err
		}
		var out []enrolVoice
		for _, sp := range datasets.Speakers(all) {
			path := filepath.Join(defaults.DataDir(), "models", "digits-adaptable-without-"+sp+".rfm")
			m, err := recipes.AdaptableAt(path, sp, log)
			if err != nil {
				return nil, "", err
			}
			wc, err := engine.NewWordClassifier(m)
			if err != nil {
				return nil, "", err
			}
			v, err := splitVoice(sp, speakerRecs(all, sp), seed, wc)
			if err != nil {
				return nil, "", err
			}
			out = append(out, v)
		}
		return out, "word model trained without the speaker (digits-adaptable recipe), one take of each digit taught, the other 490 scored; the connected model: see below", nil
	}
	return nil, "", fmt.Errorf("eval enroll: unknown set %q (synth, real, real-loo, fsdd)", set)
}

func speakerRecs(recs []datasets.Recording, speaker string) []datasets.Recording {
	var out []datasets.Recording
	for _, r := range recs {
		if r.Speaker == speaker {
			out = append(out, r)
		}
	}
	return out
}

// splitVoice draws, with seed, one recording of each digit to teach and
// leaves the rest to score.
func splitVoice(name string, recs []datasets.Recording, seed uint64, words *engine.WordClassifier) (enrolVoice, error) {
	rng := rand.New(rand.NewPCG(seed, 0x656e726f))
	byDigit := map[string][]int{}
	for i, r := range recs {
		byDigit[r.Label] = append(byDigit[r.Label], i)
	}
	taught := map[int]bool{}
	v := enrolVoice{name: name, words: words}
	for d := range 10 {
		idx := byDigit[strconv.Itoa(d)]
		if len(idx) < 2 {
			return v, fmt.Errorf("voice %s has %d recordings of %d: one to teach and one to score are needed", name, len(idx), d)
		}
		i := idx[rng.IntN(len(idx))]
		taught[i] = true
		v.teach = append(v.teach, recs[i])
	}
	for i, r := range recs {
		if !taught[i] {
			v.isolated = append(v.isolated, r)
		}
	}
	return v, nil
}

// augmentedCopies writes four copies of each recording into dir, shifted
// ±60 cents in pitch and played 0.9× and 1.1× as fast, and lists them.
func augmentedCopies(recs []datasets.Recording, dir string) ([]datasets.Recording, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []datasets.Recording
	for _, r := range recs {
		a, err := frontend.ReadAudio(r.Path, 8000)
		if err != nil {
			return nil, err
		}
		for k, pt := range [][2]float64{{-60, 0.9}, {60, 0.9}, {-60, 1.1}, {60, 1.1}} {
			b, err := augment.PitchTempo(a, pt[0], pt[1])
			if err != nil {
				return nil, err
			}
			p := filepath.Join(dir, fmt.Sprintf("%s-%d.wav", r.Label, k))
			f, err := os.Create(p)
			if err != nil {
				return nil, err
			}
			err = frontend.EncodeWAV16(f, b)
			if e := f.Close(); err == nil {
				err = e
			}
			if err != nil {
				return nil, err
			}
			out = append(out, datasets.Recording{Path: p, Label: r.Label, Speaker: r.Speaker, Take: k})
		}
	}
	return out, nil
}

// scoreEnrolment teaches v to both models and scores it before and after.
// enrolSettings are what one evaluation run varies.
type enrolSettings struct {
	connPull, wordPull, wordWeight float64
	which, copies                  string // the models scored; the kind of taught copies
	strings                        string // the kind of joined strings taught (joinKinds)
	seed                           uint64
	guard                          guardKind
}

func scoreEnrolment(conn *engine.Connected, v enrolVoice, set enrolSettings) (enrolScore, error) {
	connPull, wordPull, which, copies := set.connPull, set.wordPull, set.which, set.copies
	doConn, doWords := which != "words", which != "connected"
	s := enrolScore{Voice: v.name, Taught: len(v.teach), Isolated: len(v.isolated), Strings: len(v.strings)}
	read := func(r datasets.Recording) (*frontend.Audio, error) { return frontend.ReadAudio(r.Path, 0) }
	teachBoth := func(recs []datasets.Recording) (*engine.ConnectedVoice, *engine.VoiceSession, error) {
		var cv *engine.ConnectedVoice
		if doConn {
			var err error
			if cv, err = conn.NewVoice(); err != nil {
				return nil, nil, err
			}
			cv.Pull, cv.GuardMisses, cv.GuardStrings = connPull, set.guard.misses, set.guard.strings
			k := joinKinds[set.strings]
			cv.Strings, cv.StringPauses = k.count, [2]float64{k.minGap, k.maxGap}
			if copies != "none" {
				cv.Copies = func(a *frontend.Audio) ([]*frontend.Audio, error) { return teachCopies(a, copies) }
			}
		}
		ws := v.words.NewVoiceSession()
		ws.SelfTrain, ws.TeachPull, ws.TeachWeight = false, wordPull, set.wordWeight
		for _, r := range recs {
			a, err := read(r)
			if err != nil {
				return nil, nil, err
			}
			if err := engine.CheckTeachable(a.Samples, a.Rate); err != nil {
				// enroll would ask again; here the voice is taught one
				// word fewer.
				s.Refused = append(s.Refused, fmt.Sprintf("%s: %v", r.Path, err))
				continue
			}
			if doConn {
				// The voice makes the copies and teaches them with
				// the recording, in one refit.
				if err := cv.Teach(a, r.Label); err != nil {
					return nil, nil, err
				}
			}
			if !doWords {
				continue
			}
			variants, err := teachCopies(a, copies)
			if err != nil {
				return nil, nil, err
			}
			for _, a := range append([]*frontend.Audio{a}, variants...) {
				x, err := v.words.RawVector(a)
				if err != nil {
					return nil, nil, err
				}
				if err := ws.Teach(x, r.Label); err != nil {
					return nil, nil, err
				}
			}
		}
		return cv, ws, nil
	}
	var plainRec engine.Recognizer
	if doConn {
		var err error
		if plainRec, err = engine.NewRecognizer(conn.Model); err != nil {
			return s, err
		}
	}
	// isolated scores recordings with both models: a word session's
	// decision and the connected recogniser's text.
	isolated := func(recs []datasets.Recording, cv *engine.ConnectedVoice, ws *engine.VoiceSession) error {
		plain := v.words.NewVoiceSession()
		plain.SelfTrain = false
		for _, r := range recs {
			a, err := read(r)
			if err != nil {
				return err
			}
			for _, k := range []struct {
				s  *engine.VoiceSession
				ok *int
			}{{plain, &s.WordOK[0]}, {ws, &s.WordOK[1]}} {
				if !doWords {
					break
				}
				x, err := v.words.RawVector(a)
				if err != nil {
					return err
				}
				if err := k.s.Normalise(x, false); err != nil {
					return err
				}
				if v.words.ResultOf(k.s.Score(x)).Text == r.Label {
					*k.ok++
				}
			}
			for _, k := range []struct {
				rec engine.Recognizer
				ok  *int
			}{{plainRec, &s.ConnOK[0]}, {cv.Recognizer(), &s.ConnOK[1]}} {
				if !doConn {
					break
				}
				res, err := k.rec.Recognize(a.Samples, a.Rate)
				if err != nil {
					return err
				}
				if res.Text == r.Label {
					*k.ok++
				}
			}
		}
		return nil
	}
	if v.folds {
		for i := range v.teach {
			cv, ws, err := teachBoth(slices.Delete(slices.Clone(v.teach), i, i+1))
			if err != nil {
				return s, err
			}
			if err := isolated(v.teach[i:i+1], cv, ws); err != nil {
				return s, err
			}
		}
		s.Taught = len(v.teach) - 1
	} else {
		cv, ws, err := teachBoth(v.teach)
		if err != nil {
			return s, err
		}
		s.Guarded = cv != nil && cv.Guarded()
		if err := isolated(v.isolated, cv, ws); err != nil {
			return s, err
		}
	}
	if len(v.strings) > 0 && doConn {
		cv, _, err := teachBoth(v.teach)
		if err != nil {
			return s, err
		}
		var before, after decode.ErrorCounts
		for _, h := range v.strings {
			for _, k := range []struct {
				rec engine.Recognizer
				c   *decode.ErrorCounts
			}{{plainRec, &before}, {cv.Recognizer(), &after}} {
				res, err := k.rec.Recognize(h.audio.Samples, h.audio.Rate)
				if err != nil {
					return s, err
				}
				k.c.Add(h.words, strings.Fields(res.Text))
			}
		}
		s.StringRef = before.Ref
		s.StringErrs = [2]int{before.Sub + before.Ins + before.Del, after.Sub + after.Ins + after.Del}
	}
	s.finish()
	return s, nil
}

// teachCopyKinds are the kinds of copies of a taught word that can be
// taught with it (round E2 of experiments/journal/enrol.md): none; speed,
// played 0.92, 0.96, 1.04 and 1.08 times as fast by resampling (pitch,
// formants and tempo move together); tract, its spectral envelope warped
// by 0.92, 0.96, 1.04 and 1.08 (augment.VTLN: a shorter or longer vocal
// tract, the pitch kept); both, the four pairs of speed 0.94 or 1.06 with
// a warp of 0.94 or 1.06.
var teachCopyKinds = []string{"none", "speed", "tract", "both"}

// teachCopies makes the copies of a of the given kind.
func teachCopies(a *frontend.Audio, kind string) ([]*frontend.Audio, error) {
	var steps [][2]float64 // speed, warp
	switch kind {
	case "none":
		return nil, nil
	case "speed":
		steps = [][2]float64{{0.92, 1}, {0.96, 1}, {1.04, 1}, {1.08, 1}}
	case "tract":
		steps = [][2]float64{{1, 0.92}, {1, 0.96}, {1, 1.04}, {1, 1.08}}
	case "both":
		steps = [][2]float64{{0.94, 0.94}, {0.94, 1.06}, {1.06, 0.94}, {1.06, 1.06}}
	default:
		return nil, fmt.Errorf("teach copies %q", kind)
	}
	// At 8 kHz, both default models' rate, every speed below is a ratio
	// of small numbers (23/25 …), which the resampler needs.
	a, err := frontend.Resample(a, 8000)
	if err != nil {
		return nil, err
	}
	var out []*frontend.Audio
	for _, st := range steps {
		b := a
		if st[0] != 1 {
			var err error
			// Samples played st[0] times as fast are samples at st[0]
			// times the rate, brought back to the rate.
			if b, err = frontend.Resample(&frontend.Audio{Rate: int(float64(a.Rate)*st[0] + 0.5), Samples: a.Samples}, a.Rate); err != nil {
				return nil, err
			}
		}
		if st[1] != 1 {
			var err error
			if b, err = augment.VTLN(b, st[1]); err != nil {
				return nil, err
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// joinKind is how many strings a voice is taught of its words, and their
// pauses (engine.ConnectedVoice.Strings; round E3 of
// experiments/journal/enrol.md chose 6-paused, the default).
type joinKind struct {
	count          int     // strings
	minGap, maxGap float64 // pause between words, s
}

var joinKinds = map[string]joinKind{
	"none":     {},
	"2-tight":  {count: 2, minGap: 0, maxGap: 0.05},
	"6-tight":  {count: 6, minGap: 0, maxGap: 0.05},
	"6-paused": {count: engine.TaughtStrings, minGap: engine.TaughtStringPauses[0], maxGap: engine.TaughtStringPauses[1]},
	// Round E4: how many.
	"3-paused":  {count: 3, minGap: engine.TaughtStringPauses[0], maxGap: engine.TaughtStringPauses[1]},
	"12-paused": {count: 12, minGap: engine.TaughtStringPauses[0], maxGap: engine.TaughtStringPauses[1]},
}

func joinKindNames() []string {
	return slices.Sorted(maps.Keys(joinKinds))
}

// guardKind is a setting of the guard (engine.ConnectedVoice.GuardMisses:
// the misses allowed among the taught words heard by the model alone, -1
// none; GuardStrings).
type guardKind struct {
	misses  int
	strings bool
}

var guardKinds = map[string]guardKind{"off": {-1, false}, "words": {0, false}, "words+strings": {0, true}}

func guardKindName(k guardKind) string {
	if k.misses < 0 {
		return "off"
	}
	for name, g := range guardKinds {
		if g == k {
			return name
		}
	}
	return fmt.Sprintf("%d misses, strings %v", k.misses, k.strings)
}
