// Command phonedecoder searches a trained phone model's decoder settings
// on real words said alone (experiments/journal/phones.md, round 6): the
// frames of every recording are classified once, then only the search is
// repeated per setting. It chooses on the development speakers of the
// registered split (datasets.DefaultRealPhoneSpeakers) and prints the test
// speakers' figure for the chosen setting only, never for the others.
//
// Besides the PER it says where the insertions sit: before the first
// reference phone (lead), after the last (tail) or between (inside), and
// how many inserted phones lie outside the recording's speech region by
// energy (frontend.SpeechRegion).
//
// Dev PER's noise is a bootstrap over the development recordings (the
// PER's spread, and the spread of each setting's difference from the
// model's own setting, paired).
//
// --write gives a model train.WordsAloneDecoder (what `train phones` now
// gives its model after training) and saves it: R5c's saved model so
// becomes the file `train phones` writes, without training it again.
//
// usage: go run ./experiments/probes/phonedecoder --model M.rfm [--voices DIR] [--grid full|saved] [--edge] [--write OUT.rfm]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"sort"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/train"
)

// recording is one real recording, classified once.
type recording struct {
	speaker, role string
	words         []string
	prons         [][]string
	post          blas32.General // log posteriors, no prior divided out
	speech        [2]int         // the speech region by energy, frames [start, end)
}

// setting is one decoder configuration tried.
type setting struct {
	Penalty, Acoustic, Prior, LMScale, SilenceProb, SelfLoop float64
	Edge                                                     bool // decode the speech region (± edgeMargin) only
}

func (s setting) String() string {
	e := ""
	if s.Edge {
		e = " edge"
	}
	return fmt.Sprintf("pen %g as %g ps %g lm %g sil %g loop %g%s", s.Penalty, s.Acoustic, s.Prior, s.LMScale, s.SilenceProb, s.SelfLoop, e)
}

// realTuneEvery is train's: one real training recording in this many is
// held out of the classifier to tune.
const realTuneEvery = 10

// edgeMargin frames of silence are kept either side of the speech region
// when decoding the region only.
const edgeMargin = 10

// tally is one setting's errors on a set of recordings.
type tally struct {
	counts            decode.ErrorCounts
	lead, tail, in    int // insertions by position
	outside           int // inserted phones whose middle lies outside the speech region
	perRec            []int
	refPerRec         []int
	hypPhones, record int
}

func main() {
	modelPath := flag.String("model", "", "the phone model")
	voices := flag.String("voices", defaults.RealVoicesDir(), "the real voices folder")
	lexPath := flag.String("lexicon", "", "the lexicon (empty: datasets.DefaultLexiconPath)")
	grid := flag.String("grid", "full", "saved: the model's own setting only (where the insertions sit); full: round 6's grid")
	edge := flag.Bool("edge", false, "with --grid full: also every setting decoding the speech region only")
	seed := flag.Uint64("seed", 1, "bootstrap seed")
	noTest := flag.Bool("no-test", false, "print no test figure (a candidate model that may not be chosen)")
	dump := flag.String("dump", "", "write each development recording's errors and reference phones under the saved and the chosen setting here (JSON), for a paired bootstrap between models")
	write := flag.String("write", "", "write the model with train.WordsAloneDecoder (train phones' search) here first, and score that")
	flag.Parse()
	if *modelPath == "" {
		log.Fatal("usage: phonedecoder --model M.rfm [--grid saved|full] [--edge] [--write OUT.rfm]")
	}
	m, err := engine.LoadModel(*modelPath)
	if err != nil {
		log.Fatal(err)
	}
	if *write != "" {
		if err := train.WordsAloneDecoder.Apply(m); err != nil {
			log.Fatal(err)
		}
		if err := engine.SaveModel(*write, m); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("wrote %s with the decoder %s\n", *write, train.WordsAloneDecoder)
	}
	c, err := engine.NewConnected(m)
	if err != nil {
		log.Fatal(err)
	}
	lex, err := datasets.LoadLexicon(*lexPath)
	if err != nil {
		log.Fatal(err)
	}
	split := datasets.DefaultRealPhoneSpeakers
	l, err := train.LabelRealPhones(*voices, lex, func(s string) bool { return split.Role(s) != "" })
	if err != nil {
		log.Fatal(err)
	}
	// The training speakers' recordings that tune (every tenth, as
	// train's addRealPhones holds them out of the classifier) are kept as
	// role "tune"; the rest of the training speakers' are dropped.
	nTrain := 0
	var kept datasets.MissingWords = l.Missing
	keep := &train.RealPhoneLabels{Missing: kept, Skipped: l.Skipped}
	roles := []string{}
	for i, r := range l.Recordings {
		role := split.Role(r.Speaker)
		if role == "train" {
			nTrain++
			if nTrain%realTuneEvery != 0 {
				continue
			}
			role = "tune"
		}
		keep.Recordings, keep.Phones, keep.Prons = append(keep.Recordings, r), append(keep.Phones, l.Phones[i]), append(keep.Prons, l.Prons[i])
		roles = append(roles, role)
	}
	l = keep
	recs := make([]recording, len(l.Recordings))
	if err := parallel.ForErr(len(recs), func(i int) error {
		r := l.Recordings[i]
		a, err := frontend.ReadAudio(r.Path, 0)
		if err != nil {
			return err
		}
		if a, err = frontend.Resample(a, c.Input.Audio.SampleRate); err != nil {
			return err
		}
		x, err := c.Frames(a)
		if err != nil {
			return err
		}
		meter, err := frontend.NewEnergyMeter(c.Input.Audio)
		if err != nil {
			return err
		}
		meter.Push(a.Samples)
		meter.Flush()
		meter.Pop()
		s0, s1 := frontend.SpeechRegion(meter.PopEnergy(), 35)
		recs[i] = recording{speaker: r.Speaker, role: roles[i], words: r.Words, prons: l.Prons[i], post: c.LogPosteriors(x), speech: [2]int{s0, s1}}
		return nil
	}); err != nil {
		log.Fatal(err)
	}
	var dev, test, tune []int
	for i, r := range recs {
		switch r.role {
		case "dev":
			dev = append(dev, i)
		case "test":
			test = append(test, i)
		case "tune":
			tune = append(tune, i)
		}
	}
	fmt.Printf("%s: %d development recordings (%v), %d test (%v), %d tuning (every %dth of %v); %d left out (%s)\n",
		*modelPath, len(dev), split.Dev, len(test), split.Test, len(tune), realTuneEvery, split.Train, l.Skipped, l.Missing)
	dc := c.Decoder
	saved := setting{Penalty: dc.WordPenalty, Acoustic: dc.AcousticScale, Prior: dc.PriorScale, LMScale: dc.LMScale, SilenceProb: dc.SilenceProb, SelfLoop: dc.SelfLoop}
	settings := []setting{saved}
	if *grid == "full" {
		settings = append(settings, fullGrid(saved, *edge)...)
	}
	ev := &evaluator{m: m, recs: recs}
	rng := rand.New(rand.NewPCG(*seed, 6))
	base := ev.must(saved, dev)
	report("saved, development", saved, base)
	fmt.Printf("development PER bootstrap sd (recordings resampled, 2000 draws): %.2f points\n", 100*bootSD(base, nil, rng))
	baseTune := ev.must(saved, tune)
	report("saved, tuning words", saved, baseTune)
	if *grid == "saved" {
		writeDump(*dump, map[string]*tally{"saved": base})
		return
	}
	// R6t: the setting with the lowest PER on the held-out real training
	// words; R6d: the lowest on the development speakers. Ties (equal
	// PER) go to the first tried, the saved setting first.
	var onDev, onTune []*tally
	bestT, bestD := 0, 0
	for i, s := range settings {
		onDev, onTune = append(onDev, ev.must(s, dev)), append(onTune, ev.must(s, tune))
		if onTune[i].counts.ErrorRate() < onTune[bestT].counts.ErrorRate() {
			bestT = i
		}
		if onDev[i].counts.ErrorRate() < onDev[bestD].counts.ErrorRate() {
			bestD = i
		}
	}
	order := make([]int, len(settings))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return onDev[order[a]].counts.ErrorRate() < onDev[order[b]].counts.ErrorRate() })
	fmt.Printf("%d settings tried; the 10 best on the development speakers:\n", len(settings))
	for _, i := range order[:min(10, len(order))] {
		report("  dev", settings[i], onDev[i])
	}
	report("R6t (best on the tuning words), tuning words", settings[bestT], onTune[bestT])
	report("R6t, development", settings[bestT], onDev[bestT])
	report("R6d (best on development), development", settings[bestD], onDev[bestD])
	noise := func(a, b int) (float64, float64) {
		d := onDev[a].counts.ErrorRate() - onDev[b].counts.ErrorRate()
		var sd float64
		if a != b {
			sd = bootSD(onDev[a], onDev[b], rng)
		}
		return d, sd
	}
	dT, sdT := noise(bestT, 0)
	dD, sdD := noise(bestD, bestT)
	fmt.Printf("R6t − saved on development: %+.2f points (paired bootstrap sd %.2f); R6d − R6t: %+.2f points (sd %.2f)\n", 100*dT, 100*sdT, 100*dD, 100*sdD)
	// The registered rule: R6t replaces the saved setting if it is better
	// on development by more than twice the paired sd; R6d then replaces
	// the choice if better than R6t by more than twice its paired sd.
	chosen, name := 0, "saved"
	if dT < -2*sdT {
		chosen, name = bestT, "R6t"
		if dD < -2*sdD {
			chosen, name = bestD, "R6d"
		}
	} else if d, sd := noise(bestD, 0); d < -2*sd {
		fmt.Printf("R6d − saved on development: %+.2f points (sd %.2f)\n", 100*d, 100*sd)
		chosen, name = bestD, "R6d"
	}
	report("chosen ("+name+"), development", settings[chosen], onDev[chosen])
	writeDump(*dump, map[string]*tally{"saved": base, "chosen": onDev[chosen], "r6t": onDev[bestT], "r6d": onDev[bestD]})
	if *noTest {
		return
	}
	tb := ev.must(settings[chosen], test)
	report("chosen ("+name+"), test", settings[chosen], tb)
	out, _ := json.Marshal(map[string]any{"chosen": name, "setting": settings[chosen], "dev_per": onDev[chosen].counts.ErrorRate(), "test_per": tb.counts.ErrorRate(),
		"r6t": settings[bestT], "r6t_dev_per": onDev[bestT].counts.ErrorRate(), "r6d": settings[bestD], "r6d_dev_per": onDev[bestD].counts.ErrorRate(),
		"saved": saved, "saved_dev_per": base.counts.ErrorRate()})
	fmt.Println(string(out))
}

func (e *evaluator) must(s setting, idx []int) *tally {
	t, err := e.run(s, idx)
	if err != nil {
		log.Fatal(err)
	}
	return t
}

// fullGrid is round 6's registered grid around the saved setting.
func fullGrid(saved setting, edge bool) []setting {
	var out []setting
	for _, sl := range []float64{saved.SelfLoop, 0.7, 0.85} {
		for _, sp := range []float64{saved.SilenceProb, 0.8, 0.95} {
			for _, lm := range []float64{1, 2, 3} {
				for _, ps := range []float64{1, 0.5, 0.2} {
					for _, as := range []float64{1, 0.5, 0.25} {
						for _, pen := range []float64{2, 0, -2, -4, -8, -12, -16, -24} {
							for _, e := range []bool{false, true} {
								if e && !edge {
									continue
								}
								out = append(out, setting{Penalty: pen, Acoustic: as, Prior: ps, LMScale: lm, SilenceProb: sp, SelfLoop: sl, Edge: e})
							}
						}
					}
				}
			}
		}
	}
	return out
}

// evaluator decodes recordings under settings, caching one recogniser per
// self-loop (the units' transitions are built with it).
type evaluator struct {
	m    *engine.Model
	recs []recording
	rec  map[float64]*engine.Connected
}

func (e *evaluator) recogniser(selfLoop float64) (*engine.Connected, error) {
	if c, ok := e.rec[selfLoop]; ok {
		return c, nil
	}
	var dc engine.ConnectedDecoder
	if err := json.Unmarshal(e.m.Decoder, &dc); err != nil {
		return nil, err
	}
	dc.SelfLoop = selfLoop
	mc := *e.m
	var err error
	if mc.Decoder, err = json.Marshal(dc); err != nil {
		return nil, err
	}
	c, err := engine.NewConnected(&mc)
	if err != nil {
		return nil, err
	}
	if e.rec == nil {
		e.rec = map[float64]*engine.Connected{}
	}
	e.rec[selfLoop] = c
	return c, nil
}

// run decodes the recordings idx with s and tallies their errors.
func (e *evaluator) run(s setting, idx []int) (*tally, error) {
	c, err := e.recogniser(s.SelfLoop)
	if err != nil {
		return nil, err
	}
	dc := c.Decoder
	dc.WordPenalty, dc.AcousticScale, dc.PriorScale, dc.LMScale, dc.SilenceProb = s.Penalty, s.Acoustic, s.Prior, s.LMScale, s.SilenceProb
	dec, err := c.DecoderWith(dc)
	if err != nil {
		return nil, err
	}
	prior := c.LogPriors()
	t := &tally{}
	for _, i := range idx {
		r := e.recs[i]
		first, last := 0, r.post.Rows
		if s.Edge {
			first, last = max(0, r.speech[0]-edgeMargin), min(r.post.Rows, r.speech[1]+edgeMargin)
		}
		ll := linalg.NewGeneral32(last-first, r.post.Cols)
		for f := first; f < last; f++ {
			src, dst := linalg.Row32(r.post, f), linalg.Row32(ll, f-first)
			for j, v := range src {
				dst[j] = v - float32(s.Prior)*prior[j]
			}
		}
		res, err := dec(ll)
		if err != nil {
			return nil, err
		}
		hyp := datasets.FoldToLexicon(decode.Labels(res.Words))
		ref := closest(r.prons, hyp)
		ed := t.counts.Add(ref, hyp)
		t.perRec = append(t.perRec, ed.Errors())
		t.refPerRec = append(t.refPerRec, ed.RefLen)
		t.hypPhones += len(hyp)
		t.record++
		firstRef, lastRef := -1, -1
		for k, op := range ed.Ops {
			if op.Ref >= 0 {
				if firstRef < 0 {
					firstRef = k
				}
				lastRef = k
			}
		}
		for k, op := range ed.Ops {
			if op.Kind != decode.Insertion {
				continue
			}
			switch {
			case firstRef < 0 || k < firstRef:
				t.lead++
			case k > lastRef:
				t.tail++
			default:
				t.in++
			}
			w := res.Words[op.Hyp]
			mid := first + (w.Start+w.End)/2
			if mid < r.speech[0] || mid >= r.speech[1] {
				t.outside++
			}
		}
	}
	return t, nil
}

// closest is the pronunciation of prons nearest hyp (as eval phones --real
// scores).
func closest(prons [][]string, hyp []string) []string {
	best, bestErr := prons[0], -1
	for _, p := range prons {
		if e := decode.EditDistance(p, hyp).Errors(); bestErr < 0 || e < bestErr {
			best, bestErr = p, e
		}
	}
	return best
}

func report(what string, s setting, t *tally) {
	c := t.counts
	fmt.Printf("%s: %s: PER %.2f %% (%d sub / %d ins / %d del of %d phones, %d recordings, %.2f phones a recording recognised); insertions lead %d, inside %d, tail %d; outside the speech region %d\n",
		what, s, 100*c.ErrorRate(), c.Sub, c.Ins, c.Del, c.Ref, t.record, float64(t.hypPhones)/float64(max(t.record, 1)), t.lead, t.in, t.tail, t.outside)
}

// bootSD is the standard deviation of a's PER (or, with b, of a's PER
// minus b's on the same recordings) over recordings drawn with
// replacement.
func bootSD(a, b *tally, rng *rand.Rand) float64 {
	n := len(a.perRec)
	var sum, sum2 float64
	const draws = 2000
	for d := 0; d < draws; d++ {
		var ea, eb, refA, refB int
		for k := 0; k < n; k++ {
			i := rng.IntN(n)
			ea += a.perRec[i]
			refA += a.refPerRec[i]
			if b != nil {
				eb += b.perRec[i]
				refB += b.refPerRec[i]
			}
		}
		v := float64(ea) / float64(max(refA, 1))
		if b != nil {
			v -= float64(eb) / float64(max(refB, 1))
		}
		sum += v
		sum2 += v * v
	}
	mean := sum / draws
	return math.Sqrt(max(sum2/draws-mean*mean, 0))
}

// writeDump writes each tally's errors and reference phones per
// development recording to path (nothing when path is empty).
func writeDump(path string, ts map[string]*tally) {
	if path == "" {
		return
	}
	out := map[string]map[string][]int{}
	for k, t := range ts {
		out[k] = map[string][]int{"errors": t.perRec, "ref": t.refPerRec}
	}
	b, err := json.Marshal(out)
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		log.Fatal(err)
	}
}
