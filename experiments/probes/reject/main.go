// Command reject measures how well the connected digit model's evidence
// (engine.WordEvidence: each decoded word against an any-state filler)
// tells words that are not digits from digits (issue 38, "not a digit").
//
// Every recording goes through the product's live path (the connected
// endpointer, then each closed utterance decoded whole), and every decoded
// word's evidence is written, one line a recording, to --out. The sets are:
//
//   - nondigit: words of datasets/nondigit_words.txt said by espeak-ng voices;
//   - synth: the ten digit names said by the same kind of voices;
//   - fsdd: FSDD recordings as recorded (dev: training takes 5-9, which the
//     model's classifier never trained on; test: the test takes 0-4).
//
// Words and voices are split into halves by a seeded shuffle: the dev half
// chooses the threshold, the test half is only reported. The model was
// trained on FSDD alone, so no espeak-ng voice was ever in its training.
//
// usage: go run ./experiments/probes/reject measure --model M.rfm --out F.tsv
//
//	go run ./experiments/probes/reject curve F.tsv
//	go run ./experiments/probes/reject strings --model M.rfm [--bias B] [--edge-fill-ms MS] MANIFEST.tsv
//	go run ./experiments/probes/reject tight --model M.rfm --half dev --fill 0,100,300
//
// The strings step scores a connected set (make demo part 4's is
// data/connected/demo-clean/manifest.tsv) through the product's live
// recogniser (engine.NewLiveRecognizer, whose results the NATS pipeline's
// equal): WER and strings exactly right, rejected words counted as deleted.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/train"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: reject measure|curve …")
	}
	switch os.Args[1] {
	case "measure":
		measure(os.Args[2:])
	case "curve":
		curve(os.Args[2:])
	case "strings":
		scoreStrings(os.Args[2:])
	case "tight":
		tight(os.Args[2:])
	default:
		log.Fatalf("unknown step %q (measure, curve, strings, tight)", os.Args[1])
	}
}

// item is one recording to hear: its set, half, what was said, by whom.
type item struct {
	set, half, said, voice string
	audio                  func() (*frontend.Audio, error)
	// raw is a synthetic item's voice alone, before any background.
	raw func() (*frontend.Audio, error)
}

func measure(args []string) {
	fs := flag.NewFlagSet("measure", flag.ExitOnError)
	modelPath := fs.String("model", defaults.ConnectedModel(), "the connected digit model")
	out := fs.String("out", "reject.tsv", "where the evidence goes")
	voices := fs.Int("voices", 40, "espeak-ng voices (half dev, half test)")
	perWord := fs.Int("per-word", 3, "voices saying each non-digit word")
	seed := fs.Uint64("seed", 38, "seed of the splits and the voices")
	_ = fs.Parse(args)
	m, err := engine.LoadModel(*modelPath)
	if err != nil {
		log.Fatal(err)
	}
	c, err := engine.NewConnected(m)
	if err != nil {
		log.Fatal(err)
	}
	items, err := buildItems(*voices, *perWord, *seed)
	if err != nil {
		log.Fatal(err)
	}
	lines := make([]string, len(items))
	errs := make([]error, len(items))
	parallel.For(len(items), func(i int) {
		it := items[i]
		a, err := it.audio()
		if err == nil {
			lines[i], err = hear(c, it, a)
		}
		errs[i] = err
	})
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "# set\thalf\tsaid\tvoice\twords (label:frames:gap:wordgap:postgap:conf, space separated)")
	for i, l := range lines {
		if errs[i] != nil {
			log.Fatalf("%s %s %s: %v", items[i].set, items[i].said, items[i].voice, errs[i])
		}
		fmt.Fprintln(w, l)
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "%d recordings heard, evidence in %s\n", len(items), *out)
}

// fillerBiases are the filler weights the measurement decodes with, added
// to the model's own (FillerBias): the curve of the filler.
var fillerBiases = []float64{-6, -4, -3, -2, -1.5, -1, -0.5, 0, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6}

// hear runs the product's live path over a and writes each final
// utterance's words with their evidence, then, for each filler bias, what
// the recogniser prints: the text and how many words it rejected.
func hear(c *engine.Connected, it item, a *frontend.Audio) (string, error) {
	seg, err := engine.NewConnectedSegmenter(c, engine.DefaultConnectedStreamConfig(), a.Rate)
	if err != nil {
		return "", err
	}
	var words []string
	texts := make([][]string, len(fillerBiases))
	rejected := make([]int, len(fillerBiases))
	for _, sg := range append(seg.Push(a.Samples), seg.Flush()...) {
		if !sg.Final {
			continue
		}
		x, err := c.Frames(sg.Audio)
		if err != nil {
			return "", err
		}
		ll := c.LogLikelihoods(x)
		r, err := c.DecodeFrames(ll)
		if err != nil {
			return "", err
		}
		ev, err := c.Evidence(ll, r)
		if err != nil {
			return "", err
		}
		for i, w := range r.Words {
			e := ev[i]
			words = append(words, fmt.Sprintf("%s:%d:%.4f:%.4f:%.4f:%.4f", w.Label, e.Frames, e.Gap, e.WordGap, e.PostGap, e.Conf))
		}
		for b, bias := range fillerBiases {
			ws, err := c.DecodeWords(withFillerBias(c, ll, bias))
			if err != nil {
				return "", err
			}
			for _, w := range ws {
				if w.Rejected {
					rejected[b]++
				} else {
					texts[b] = append(texts[b], w.Word)
				}
			}
		}
	}
	cols := []string{it.set, it.half, it.said, it.voice, strings.Join(words, " ")}
	for b := range fillerBiases {
		cols = append(cols, fmt.Sprintf("%d/%s", rejected[b], strings.Join(texts[b], ",")))
	}
	return strings.Join(cols, "\t"), nil
}

// withFillerBias is ll with bias added to the filler's states (a copy;
// ll unchanged when the model has no filler).
func withFillerBias(c *engine.Connected, ll blas32.General, bias float64) blas32.General {
	f := slices.Index(c.Model.Labels, engine.FillerLabel)
	if f < 0 {
		return ll
	}
	out := blas32.General{Rows: ll.Rows, Cols: ll.Cols, Stride: ll.Stride, Data: slices.Clone(ll.Data)}
	k := c.Input.StatesPerWord
	for t := 0; t < out.Rows; t++ {
		for j := f * k; j < (f+1)*k; j++ {
			out.Data[t*out.Stride+j] += float32(bias)
		}
	}
	return out
}

// allVoices is how many synthetic voices datasets.SynthSpeakers can draw
// (8 accents × 66 variants).
const allVoices = 528

func buildItems(nVoices, perWord int, seed uint64) ([]item, error) {
	rng := rand.New(rand.NewPCG(seed, 0x72656a))
	words := datasets.NonDigitWords()
	rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	// Voices the default model's filler was trained on are left out: every
	// voice here is new to the model.
	trained, err := train.DefaultFillerOptions().FillerVoiceNames()
	if err != nil {
		return nil, err
	}
	all, err := datasets.SynthSpeakers(allVoices, seed)
	if err != nil {
		return nil, err
	}
	var speakers []datasets.SynthSpeaker
	for _, s := range all {
		if !trained[s.Voice.Name] && len(speakers) < nVoices {
			speakers = append(speakers, s)
		}
	}
	half := func(i, n int) string {
		if i < n/2 {
			return "dev"
		}
		return "test"
	}
	var items []item
	// Voices of a half say that half's words, perWord voices each, in turn.
	byHalf := map[string][]datasets.Voice{}
	for i, s := range speakers {
		byHalf[half(i, len(speakers))] = append(byHalf[half(i, len(speakers))], s.Voice)
	}
	next := map[string]int{}
	for i, w := range words {
		h := half(i, len(words))
		for k := 0; k < perWord; k++ {
			v := byHalf[h][next[h]%len(byHalf[h])]
			next[h]++
			items = append(items, synthItem("nondigit", h, w, w, v, rng.Uint64()))
		}
	}
	for i, s := range speakers {
		h := half(i, len(speakers))
		for d, name := range datasets.DigitWords {
			items = append(items, synthItem("synth", h, strconv.Itoa(d), name, s.Voice, rng.Uint64()))
		}
	}
	recs, err := datasets.FSDD(defaults.FSDDDir())
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		h := "test"
		if r.Take >= 5 && r.Take <= 9 {
			h = "dev"
		} else if r.Take > 9 {
			continue // the classifier trained on takes 10-49
		}
		path := r.Path
		items = append(items, item{set: "fsdd", half: h, said: r.Label, voice: r.Speaker,
			audio: func() (*frontend.Audio, error) { return frontend.ReadAudio(path, 8000) }})
	}
	return items, nil
}

// synthItem is text said by voice v, put in a room as a microphone hears
// it: 0.2-0.5 s of faint background either side and a noise floor under
// the word, its peak at a drawn level between −12 and −1 dB.
func synthItem(set, half, said, text string, v datasets.Voice, seed uint64) item {
	return item{set: set, half: half, said: said, voice: v.String(), raw: func() (*frontend.Audio, error) { return datasets.Espeak(text, v, 8000) }, audio: func() (*frontend.Audio, error) {
		a, err := datasets.Espeak(text, v, 8000)
		if err != nil {
			return nil, err
		}
		rng := rand.New(rand.NewPCG(seed, 1))
		var peak float32
		for _, s := range a.Samples {
			peak = max(peak, s, -s)
		}
		gain := float32(math.Pow(10, (-1-11*rng.Float64())/20)) / max(peak, 1e-6)
		level := 3e-4 * (0.5 + rng.Float64())
		out := datasets.Silence(int((0.2+0.3*rng.Float64())*8000), level, rng)
		for _, s := range a.Samples {
			out = append(out, s*gain+float32(level*rng.NormFloat64()))
		}
		a.Samples = append(out, datasets.Silence(int((0.2+0.3*rng.Float64())*8000), level, rng)...)
		return a, nil
	}}
}

// heard is one recording's line of evidence.
type heard struct {
	set, half, said string
	words           []wordEv
	// filler is, per fillerBiases entry, what was printed and how many
	// words were rejected.
	filler []printed
}

type printed struct {
	rejected int
	text     string
}

type wordEv struct {
	label string
	f     [5]float64 // frames, gap, wordgap, postgap, conf
}

func readEvidence(path string) []heard {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	var out []heard
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 5+len(fillerBiases) {
			log.Fatalf("%s: bad line %q", path, sc.Text())
		}
		h := heard{set: cols[0], half: cols[1], said: cols[2]}
		for _, c := range cols[5:] {
			n, text, _ := strings.Cut(c, "/")
			var p printed
			if p.rejected, err = strconv.Atoi(n); err != nil {
				log.Fatalf("%s: %v", path, err)
			}
			p.text = strings.ReplaceAll(text, ",", " ")
			h.filler = append(h.filler, p)
		}
		for _, w := range strings.Fields(cols[4]) {
			p := strings.Split(w, ":")
			var e wordEv
			e.label = p[0]
			for k := range e.f {
				e.f[k], err = strconv.ParseFloat(p[k+1], 64)
				if err != nil {
					log.Fatalf("%s: %v", path, err)
				}
			}
			h.words = append(h.words, e)
		}
		out = append(out, h)
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	return out
}

// features are the candidate scores, larger = less like a digit.
var features = []struct {
	name  string
	score func(e wordEv) float64
}{
	{"gap", func(e wordEv) float64 { return e.f[1] }},
	{"wordgap", func(e wordEv) float64 { return e.f[2] }},
	{"postgap", func(e wordEv) float64 { return e.f[3] }},
	{"1-conf", func(e wordEv) float64 { return 1 - e.f[4] }},
}

// rates at threshold th: the share of non-digit recordings with no word
// left (all rejected, or none heard), and of digit recordings (synth and
// fsdd) with any word rejected.
func rates(hs []heard, half string, score func(wordEv) float64, th float64) (rej float64, frr map[string]float64, n map[string]int) {
	frr, n = map[string]float64{}, map[string]int{}
	for _, h := range hs {
		if h.half != half {
			continue
		}
		n[h.set]++
		rejected := 0
		for _, w := range h.words {
			if score(w) > th {
				rejected++
			}
		}
		switch {
		case h.set == "nondigit" && rejected == len(h.words):
			frr[h.set]++
		case h.set != "nondigit" && rejected > 0:
			frr[h.set]++
		}
	}
	for k := range frr {
		frr[k] /= float64(n[k])
	}
	return frr["nondigit"], frr, n
}

func curve(args []string) {
	fs := flag.NewFlagSet("curve", flag.ExitOnError)
	maxFRR := fs.Float64("max-frr", 0.02, "the digit false-rejection rate the dev threshold may reach (worse of synth and fsdd)")
	_ = fs.Parse(args)
	if fs.NArg() != 1 {
		log.Fatal("usage: reject curve F.tsv")
	}
	hs := readEvidence(fs.Arg(0))
	for _, ft := range features {
		var ths []float64
		for _, h := range hs {
			for _, w := range h.words {
				ths = append(ths, ft.score(w))
			}
		}
		sort.Float64s(ths)
		// The chosen threshold: the lowest that keeps both digit sets'
		// dev false rejections at most maxFRR.
		chosen := math.Inf(1)
		for i := len(ths) - 1; i >= 0; i-- {
			_, frr, _ := rates(hs, "dev", ft.score, ths[i])
			if max(frr["synth"], frr["fsdd"]) > *maxFRR {
				break
			}
			chosen = ths[i]
		}
		fmt.Printf("\n== %s: threshold %.4f chosen on dev (digit false rejections ≤ %.1f %%)\n", ft.name, chosen, 100**maxFRR)
		fmt.Printf("%-8s %10s %12s %12s %12s\n", "half", "threshold", "nondigit rej", "synth FRR", "fsdd FRR")
		for _, half := range []string{"dev", "test"} {
			for q := 0; q <= 20; q++ {
				th := ths[min(len(ths)-1, q*len(ths)/20)]
				row(hs, half, ft.score, th, "")
			}
			row(hs, half, ft.score, chosen, "  ← chosen")
		}
	}
	fillerCurve(hs, *maxFRR)
	combinedCurve(hs, *maxFRR)
	_, _, n := rates(hs, "dev", features[0].score, 0)
	_, _, nt := rates(hs, "test", features[0].score, 0)
	fmt.Printf("\nrecordings: dev %v, test %v\n", n, nt)
}

// combinedCurve is the threshold step for each score with the filler's
// decision kept (journal section 4): a word the decoder labelled filler is
// rejected whatever its score, any other when its score is over the
// threshold, chosen on dev as for the scores alone.
func combinedCurve(hs []heard, maxFRR float64) {
	for _, ft := range features {
		score := func(e wordEv) float64 {
			if e.label == engine.FillerLabel {
				return math.Inf(1)
			}
			return ft.score(e)
		}
		var ths []float64
		for _, h := range hs {
			for _, w := range h.words {
				if v := score(w); !math.IsInf(v, 1) {
					ths = append(ths, v)
				}
			}
		}
		sort.Float64s(ths)
		// MaxFloat64, not +Inf, is "no threshold": a filler word's +Inf
		// is over it.
		chosen := math.MaxFloat64
		for i := len(ths) - 1; i >= 0; i-- {
			_, frr, _ := rates(hs, "dev", score, ths[i])
			if max(frr["synth"], frr["fsdd"]) > maxFRR {
				break
			}
			chosen = ths[i]
		}
		fmt.Printf("\n== filler or %s over the threshold: %.4f chosen on dev (digit false rejections ≤ %.1f %%)\n", ft.name, chosen, 100*maxFRR)
		fmt.Printf("%-8s %10s %12s %12s %12s\n", "half", "threshold", "nondigit rej", "synth FRR", "fsdd FRR")
		for _, half := range []string{"dev", "test"} {
			row(hs, half, score, math.MaxFloat64, "  ← the filler alone")
			row(hs, half, score, chosen, "  ← chosen")
		}
	}
}

func row(hs []heard, half string, score func(wordEv) float64, th float64, note string) {
	rej, frr, _ := rates(hs, half, score, th)
	shown := fmt.Sprintf("%10.4f", th)
	if th == math.MaxFloat64 {
		shown = fmt.Sprintf("%10s", "none")
	}
	fmt.Printf("%-8s %s %11.1f%% %11.1f%% %11.1f%%%s\n", half, shown, 100*rej, 100*frr["synth"], 100*frr["fsdd"], note)
}

// fillerCurve prints, for each filler bias, the share of non-digit
// recordings printed as no digit, of digit recordings with a word rejected
// and of digit recordings printed exactly right; the chosen bias is the
// largest whose dev digit false rejections stay at most maxFRR.
func fillerCurve(hs []heard, maxFRR float64) {
	type stat struct{ n, rej, right int }
	tally := func(half string, b int) map[string]*stat {
		m := map[string]*stat{"nondigit": {}, "synth": {}, "fsdd": {}}
		for _, h := range hs {
			if h.half != half {
				continue
			}
			st, p := m[h.set], h.filler[b]
			st.n++
			if h.set == "nondigit" && p.text == "" || h.set != "nondigit" && p.rejected > 0 {
				st.rej++
			}
			if p.text == h.said {
				st.right++
			}
		}
		return m
	}
	pct := func(a, n int) float64 { return 100 * float64(a) / float64(max(n, 1)) }
	chosen := -1
	for b := range fillerBiases {
		d := tally("dev", b)
		if max(pct(d["synth"].rej, d["synth"].n), pct(d["fsdd"].rej, d["fsdd"].n)) <= 100*maxFRR {
			chosen = b
		}
	}
	fmt.Printf("\n== filler: bias added to the model's FillerBias; nondigit rej = printed no digit; FRR = a word rejected; right = printed exactly the digit\n")
	fmt.Printf("%-5s %6s %12s %10s %10s %11s %11s\n", "half", "bias", "nondigit rej", "synth FRR", "fsdd FRR", "synth right", "fsdd right")
	for _, half := range []string{"dev", "test"} {
		for b, bias := range fillerBiases {
			m := tally(half, b)
			note := ""
			if b == chosen {
				note = "  ← chosen on dev"
			}
			fmt.Printf("%-5s %6.2f %11.1f%% %9.1f%% %9.1f%% %10.1f%% %10.1f%%%s\n", half, bias, pct(m["nondigit"].rej, m["nondigit"].n),
				pct(m["synth"].rej, m["synth"].n), pct(m["fsdd"].rej, m["fsdd"].n), pct(m["synth"].right, m["synth"].n), pct(m["fsdd"].right, m["fsdd"].n), note)
		}
	}
}

func scoreStrings(args []string) {
	fs := flag.NewFlagSet("strings", flag.ExitOnError)
	modelPath := fs.String("model", defaults.ConnectedModel(), "the connected digit model")
	bias := fs.Float64("bias", math.NaN(), "filler bias in place of the model's")
	fill := fs.Float64("edge-fill-ms", math.NaN(), "the endpointer's EdgeFillMs in place of the default's")
	_ = fs.Parse(args)
	m, err := engine.LoadModel(*modelPath)
	if err != nil {
		log.Fatal(err)
	}
	if !math.IsNaN(*bias) {
		var dc engine.ConnectedDecoder
		if err := json.Unmarshal(m.Decoder, &dc); err != nil {
			log.Fatal(err)
		}
		dc.FillerBias = *bias
		if m.Decoder, err = json.Marshal(dc); err != nil {
			log.Fatal(err)
		}
	}
	rec, err := engine.NewLiveRecognizer(m)
	if err != nil {
		log.Fatal(err)
	}
	if !math.IsNaN(*fill) {
		if rec, err = connectedWithFill(m, *fill); err != nil {
			log.Fatal(err)
		}
	}
	for _, manifest := range fs.Args() {
		us, err := datasets.ReadTranscripts(manifest)
		if err != nil {
			log.Fatal(err)
		}
		texts := make([]string, len(us))
		rejected := make([]int, len(us))
		err = parallel.ForErr(len(us), func(i int) error {
			a, err := frontend.ReadAudio(us[i].Path, 8000)
			if err != nil {
				return err
			}
			r, err := rec.Recognize(a.Samples, a.Rate)
			for _, w := range r.Words {
				if w.Rejected {
					rejected[i]++
				}
			}
			texts[i] = r.Text
			return err
		})
		if err != nil {
			log.Fatal(err)
		}
		var counts decode.ErrorCounts
		nRej := 0
		for i, u := range us {
			counts.Add(u.Words, strings.Fields(texts[i]))
			nRej += rejected[i]
		}
		fmt.Printf("%s: %d strings, WER %.2f%%, %d exactly right, %d rejected words (sub %d, ins %d, del %d of %d)\n", manifest, len(us),
			100*counts.ErrorRate(), counts.Strings-counts.StringError, nRej, counts.Sub, counts.Ins, counts.Del, counts.Ref)
	}
}
