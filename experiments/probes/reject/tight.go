package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/parallel"
)

// The tight step measures the endpointer's edge fill (SpotterConfig.EdgeFillMs,
// experiments/journal/reject.md section 3) on recordings cut tight to
// their word: FSDD's clips as recorded, the probe's synthetic digits cut to
// their first and last audible sample and as the synth set renders them
// (with background either side), and inputs with no speech. Each
// recording goes through the live recogniser, the product's stream with
// the default endpointer but for EdgeFillMs.

// liveWithFill is the live recogniser of a connected model with the
// default endpointer's EdgeFillMs set to fillMs.
type liveWithFill struct {
	c   *engine.Connected
	cfg engine.SpotterConfig
}

func connectedWithFill(m *engine.Model, fillMs float64) (engine.Recognizer, error) {
	c, err := engine.NewConnected(m)
	if err != nil {
		return nil, err
	}
	cfg := engine.DefaultConnectedStreamConfig()
	cfg.EdgeFillMs = fillMs
	return liveWithFill{c, cfg}, nil
}

func (l liveWithFill) Recognize(samples []float32, rate int) (engine.Result, error) {
	s, err := engine.NewConnectedStream(l.c, l.cfg, rate)
	if err != nil {
		return engine.Result{}, err
	}
	out := append(s.Push(samples), s.Flush()...)
	for _, r := range out {
		if r.Error != "" {
			return engine.Result{}, fmt.Errorf("%s", r.Error)
		}
	}
	return out[len(out)-1], nil
}

// tightCase is one recording of the tight step's sets.
type tightCase struct {
	set, said string // said "" = no speech wanted
	audio     func() (*frontend.Audio, error)
}

func tight(args []string) {
	fs := flag.NewFlagSet("tight", flag.ExitOnError)
	modelPath := fs.String("model", defaults.ConnectedModel(), "the connected digit model")
	half := fs.String("half", "dev", "dev: FSDD takes 5-9 and the dev voices; test: takes 0-4 and the test voices")
	fills := fs.String("fill", "0,100,200,300,500,800", "EdgeFillMs values to measure, comma separated")
	_ = fs.Parse(args)
	m, err := engine.LoadModel(*modelPath)
	if err != nil {
		log.Fatal(err)
	}
	cases, err := tightCases(*half)
	if err != nil {
		log.Fatal(err)
	}
	audio := make([]*frontend.Audio, len(cases))
	if err := parallel.ForErr(len(cases), func(i int) error {
		a, err := cases[i].audio()
		audio[i] = a
		return err
	}); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s half; right = printed exactly what was said (no speech: empty text and no_speech)\n", *half)
	fmt.Printf("%7s %-12s %5s %7s %10s %7s %17s\n", "fill ms", "set", "n", "right", "no speech", "wrong", "words past the end")
	for _, f := range strings.Split(*fills, ",") {
		ms, err := strconv.ParseFloat(f, 64)
		if err != nil {
			log.Fatalf("--fill: %v", err)
		}
		rec, err := connectedWithFill(m, ms)
		if err != nil {
			log.Fatal(err)
		}
		res := make([]engine.Result, len(cases))
		if err := parallel.ForErr(len(cases), func(i int) error {
			res[i], err = rec.Recognize(audio[i].Samples, audio[i].Rate)
			return err
		}); err != nil {
			log.Fatal(err)
		}
		tallyTight(ms, cases, audio, res)
	}
}

// tallyTight prints one line a set: recordings right, heard as no speech,
// wrong, and words timed outside the recording (the fill must not show).
func tallyTight(ms float64, cases []tightCase, audio []*frontend.Audio, res []engine.Result) {
	type count struct{ n, right, none, wrong, outside int }
	var order []string
	counts := map[string]*count{}
	for i, tc := range cases {
		c := counts[tc.set]
		if c == nil {
			c = &count{}
			counts[tc.set] = c
			order = append(order, tc.set)
		}
		c.n++
		r := res[i]
		switch {
		case tc.said == "" && r.Text == "" && r.NoSpeech, tc.said != "" && r.Text == tc.said:
			c.right++
		case r.NoSpeech:
			c.none++
		default:
			c.wrong++
		}
		dur := float64(len(audio[i].Samples)) / float64(audio[i].Rate)
		for _, w := range r.Words {
			if w.Start < 0 || w.End > dur+1e-9 {
				c.outside++
			}
		}
	}
	for _, set := range order {
		c := counts[set]
		fmt.Printf("%7g %-12s %5d %7d %10d %7d %17d\n", ms, set, c.n, c.right, c.none, c.wrong, c.outside)
	}
}

// tightCases are the step's recordings of one half.
func tightCases(half string) ([]tightCase, error) {
	items, err := buildItems(40, 3, 38)
	if err != nil {
		return nil, err
	}
	var out []tightCase
	for _, it := range items {
		if it.half != half {
			continue
		}
		switch it.set {
		case "fsdd":
			out = append(out, tightCase{"fsdd", it.said, it.audio})
		case "synth":
			out = append(out, tightCase{"synth-padded", it.said, it.audio})
			raw := it.raw
			out = append(out, tightCase{"synth-tight", it.said, func() (*frontend.Audio, error) {
				a, err := raw()
				if err != nil {
					return nil, err
				}
				a.Samples = cutTight(a.Samples)
				return a, nil
			}})
		}
	}
	for _, a := range noSpeech() {
		out = append(out, tightCase{"no-speech", "", func() (*frontend.Audio, error) { return a, nil }})
	}
	return out, nil
}

// cutTight is x from its first to its last sample above 1 % of its peak.
func cutTight(x []float32) []float32 {
	var peak float32
	for _, v := range x {
		peak = max(peak, v, -v)
	}
	from, to := 0, len(x)
	for from < to && math.Abs(float64(x[from])) <= 0.01*float64(peak) {
		from++
	}
	for to > from && math.Abs(float64(x[to-1])) <= 0.01*float64(peak) {
		to--
	}
	return x[from:to]
}

// noSpeech are inputs that must give no speech: digital silence, one
// sample, and white noise at three levels and two lengths (as
// ../shared/checks/10-no-speech and the defaultrec probe make them).
func noSpeech() []*frontend.Audio {
	rng := rand.New(rand.NewPCG(38, 7))
	noise := func(sec, rms float64) *frontend.Audio {
		x := make([]float32, int(sec*8000))
		for i := range x {
			x[i] = float32(rms * rng.NormFloat64())
		}
		return &frontend.Audio{Rate: 8000, Samples: x}
	}
	out := []*frontend.Audio{
		{Rate: 8000, Samples: make([]float32, 12000)},
		{Rate: 8000, Samples: []float32{1200.0 / 32768}},
	}
	for _, rms := range []float64{0.003, 0.03, 0.3} {
		out = append(out, noise(1.5, rms), noise(0.4, rms), noise(4, rms))
	}
	return out
}
