// Command oh measures how the connected digit model hears "oh", the digit
// 0 read out as English speakers read numbers (issue 38, point 3), on
// voices it never trained on: espeak-ng voices that are none of the
// filler's training voices (train.DefaultFillerOptions), and flite's and
// festival's voices (the connected model trains on no voice of theirs).
// Each speaker says "oh" alone --takes times and --strings strings of 3–6
// digits, each with at least one "oh" (a 0 is said "oh" or "zero" at
// random), spoken whole by the synthesiser, not joined from words.
//
// Every file goes through the product's recogniser (engine.NewLiveRecognizer,
// as `rfstream recognize` runs it). Reported per engine: "oh" alone printed
// as 0 and heard as "oh" (Word.Spoken), strings' WER on the printed digits
// and strings exactly right, and where the strings' "oh"s went.
//
// usage: go run ./experiments/probes/oh --model M.rfm [--dir DIR]
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/train"
)

// clip is one recording of the probe: what was said, as units ("oh"
// apart from "0"), and how: "alone", "joined" (words said one by one,
// joined with pauses as the demo's strings are) or "fluent" (the string
// said in one breath).
type clip struct {
	engine string
	kind   string
	path   string
	words  []string
	// parts, for a joined string, are the word files joined.
	parts []string
}

func main() {
	modelPath := flag.String("model", defaults.ConnectedModel(), "the connected digit model")
	dir := flag.String("dir", filepath.Join(defaults.DataDir(), "oh-probe"), "where the probe's recordings are written (reused when complete)")
	espeakVoices := flag.Int("espeak", 20, "espeak-ng speakers (none of the filler's training voices)")
	takes := flag.Int("takes", 2, "\"oh\" alone, takes per speaker")
	nStrings := flag.Int("strings", 6, "strings per speaker")
	seed := flag.Uint64("seed", 7, "draws the speakers, their jitter and the strings")
	flag.Parse()
	m, err := engine.LoadModel(*modelPath)
	if err != nil {
		log.Fatal(err)
	}
	clips, err := build(*dir, *espeakVoices, *takes, *nStrings, *seed)
	if err != nil {
		log.Fatal(err)
	}
	rec, err := engine.NewLiveRecognizer(m)
	if err != nil {
		log.Fatal(err)
	}
	results := make([]engine.Result, len(clips))
	err = parallel.ForErr(len(clips), func(i int) error {
		a, err := clips[i].audio(*seed)
		if err != nil {
			return err
		}
		results[i], err = rec.Recognize(a.Samples, a.Rate)
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("model %s, labels %v\n", *modelPath, m.Labels)
	report(clips, results)
}

// speakers draws each engine's held-out speakers; an engine not installed
// is left out with a line on stderr.
func speakers(espeakVoices int, seed uint64) ([]datasets.Speaker, error) {
	trained, err := train.DefaultFillerOptions().FillerVoiceNames()
	if err != nil {
		return nil, err
	}
	var out []datasets.Speaker
	for _, e := range datasets.Engines() {
		if err := e.Available(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: left out: %v\n", e.Name(), err)
			continue
		}
		n := len(e.Voices())
		if e.Name() == "espeak-ng" {
			n = min(n, 4*espeakVoices)
		}
		table, err := datasets.SpeakerTable(e, datasets.VoiceSetOptions{Speakers: n, Cents: 200, MaxTempo: 1.25, Takes: 1, Seed: seed, Rate: 8000})
		if err != nil {
			return nil, err
		}
		kept := 0
		for _, s := range table {
			if e.Name() == "espeak-ng" && (trained[s.Voice] || kept == espeakVoices) {
				continue
			}
			out = append(out, s)
			kept++
		}
	}
	return out, nil
}

// build plans every clip and speaks those not yet written.
func build(dir string, espeakVoices, takes, nStrings int, seed uint64) ([]clip, error) {
	sp, err := speakers(espeakVoices, seed)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x6f68))
	jobs := map[string][]datasets.SayJob{}
	var clips []clip
	add := func(s datasets.Speaker, name string, words []string, kind string) string {
		path := filepath.Join(dir, fmt.Sprintf("s%d", seed), strings.ReplaceAll(s.Name(), "/", "_")+"_"+name+".wav")
		text := make([]string, len(words))
		for i, w := range words {
			text[i] = w
			if d, err := strconv.Atoi(w); err == nil {
				text[i] = datasets.DigitWords[d]
			}
		}
		job := datasets.SayJob{Text: strings.Join(text, " "), Voice: s.Voice, Rate: 8000, Path: path,
			Cents: s.Cents + 100*rng.Float64() - 50, Tempo: s.Tempo * (0.95 + 0.1*rng.Float64())}
		if _, err := os.Stat(path); err != nil {
			jobs[s.Engine] = append(jobs[s.Engine], job)
		}
		if kind != "" {
			clips = append(clips, clip{engine: s.Engine, kind: kind, path: path, words: words})
		}
		return path
	}
	draw := func() []string {
		words := make([]string, 3+rng.IntN(4))
		for i := range words {
			words[i] = strconv.Itoa(rng.IntN(10))
			if words[i] == "0" && rng.IntN(2) == 0 {
				words[i] = engine.OhLabel
			}
		}
		words[rng.IntN(len(words))] = engine.OhLabel
		return words
	}
	for _, s := range sp {
		for t := 0; t < takes; t++ {
			add(s, fmt.Sprintf("oh%d", t), []string{engine.OhLabel}, "alone")
		}
		wordFile := map[string]string{}
		for _, w := range append(datasets.TIDIGITSWords[:10:10], engine.OhLabel) {
			wordFile[w] = add(s, "w"+w, []string{w}, "")
		}
		for k := 0; k < nStrings; k++ {
			add(s, fmt.Sprintf("str%d", k), draw(), "fluent")
			words := draw()
			c := clip{engine: s.Engine, kind: "joined", words: words,
				path: filepath.Join(dir, fmt.Sprintf("s%d", seed), strings.ReplaceAll(s.Name(), "/", "_")+fmt.Sprintf("_join%d.wav", k))}
			for _, w := range words {
				c.parts = append(c.parts, wordFile[w])
			}
			clips = append(clips, c)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("s%d", seed)), 0o755); err != nil {
		return nil, err
	}
	for name, js := range jobs {
		e, err := datasets.EngineByName(name)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "%s: speaking %d files\n", name, len(js))
		if err := datasets.SayInRoom(e, js, seed); err != nil {
			return nil, err
		}
	}
	return clips, nil
}

// audio is a clip's recording: its file, or its words' files joined with
// seeded pauses of 0.1–0.5 s (0.2–0.5 s at the edges), as the demo's
// strings are.
func (c clip) audio(seed uint64) (*frontend.Audio, error) {
	if c.parts == nil {
		return frontend.ReadAudio(c.path, 0)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(len(c.path))<<8+uint64(c.path[len(c.path)-5])))
	p := datasets.StringPlan{Gaps: make([]float64, len(c.parts)+1)}
	for i, path := range c.parts {
		p.Parts = append(p.Parts, datasets.Recording{Path: path, Label: c.words[i]})
	}
	for i := range p.Gaps {
		lo := 0.1
		if i == 0 || i == len(c.parts) {
			lo = 0.2
		}
		p.Gaps[i] = lo + (0.5-lo)*rng.Float64()
	}
	a, _, err := datasets.RenderString(p, 8000, datasets.Noise{}, rng.Uint64())
	return a, err
}

// units are a result's accepted words, a 0 said "oh" as "oh".
func units(r engine.Result) []string {
	var out []string
	for _, w := range r.Words {
		switch {
		case w.Rejected:
		case w.Spoken == engine.OhLabel:
			out = append(out, engine.OhLabel)
		default:
			out = append(out, w.Word)
		}
	}
	return out
}

// tally is one engine's counts for one kind of clip.
type tally struct {
	alone, aloneZero, aloneOh, aloneNone, aloneRejected int
	strs                                                decode.ErrorCounts
	ohs, ohAsOh, ohAsZero, ohOther, ohDeleted           int
}

func report(clips []clip, results []engine.Result) {
	by := map[string]*tally{}
	var order []string
	for i, c := range clips {
		key := c.engine + " " + c.kind
		t := by[key]
		if t == nil {
			t = &tally{}
			by[key] = t
			order = append(order, key)
		}
		if c.kind == "alone" {
			t.addAlone(results[i])
		} else {
			t.addString(c.words, results[i])
		}
	}
	for _, key := range order {
		t := by[key]
		if t.alone > 0 {
			fmt.Printf("%s \"oh\": %d/%d printed 0 (%d of them heard as oh), %d no speech, %d rejected\n",
				key, t.aloneZero, t.alone, t.aloneOh, t.aloneNone, t.aloneRejected)
			continue
		}
		fmt.Printf("%s strings: %d, WER %.2f%% (sub %d, ins %d, del %d of %d), %d exactly right; their %d \"oh\"s: %d heard as oh, %d as zero, %d as another digit, %d lost\n",
			key, t.strs.Strings, 100*t.strs.ErrorRate(), t.strs.Sub, t.strs.Ins, t.strs.Del, t.strs.Ref, t.strs.Strings-t.strs.StringError,
			t.ohs, t.ohAsOh, t.ohAsZero, t.ohOther, t.ohDeleted)
	}
}

func (t *tally) addAlone(r engine.Result) {
	t.alone++
	switch {
	case r.Text == "0":
		t.aloneZero++
		if u := units(r); len(u) == 1 && u[0] == engine.OhLabel {
			t.aloneOh++
		}
	case r.NoSpeech:
		t.aloneNone++
	case r.Text == "":
		t.aloneRejected++
	}
}

// addString scores a string on its printed digits and follows its "oh"s
// through the alignment of units.
func (t *tally) addString(words []string, r engine.Result) {
	printed := make([]string, len(words))
	for j, w := range words {
		printed[j] = datasets.DigitOf(w)
	}
	t.strs.Add(printed, strings.Fields(r.Text))
	hyp := units(r)
	for _, op := range decode.EditDistance(words, hyp).Ops {
		if op.Ref < 0 || words[op.Ref] != engine.OhLabel {
			continue
		}
		t.ohs++
		switch {
		case op.Kind == decode.Match:
			t.ohAsOh++
		case op.Kind == decode.Deletion:
			t.ohDeleted++
		case hyp[op.Hyp] == "0":
			t.ohAsZero++
		default:
			t.ohOther++
		}
	}
}
