package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/parallel"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "digits-speech", Summary: "spoken digits: the speech region the word vector resamples, per speaker and digit (does the endpointing cut words?)",
		Eval: evalDigitsSpeech})
}

// speechStats describes the detected speech region of one recording.
type speechStats struct {
	rec        datasets.Recording
	totalMs    float64 // the whole recording
	speechMs   float64 // the detected region the word vector resamples
	floorBinds bool    // the noise floor (its rule, or with the rule off the percentile itself), not the margin below the loud level, set the threshold
	// thrBelowLoudDB is how far below the loud level (95th percentile of
	// frame energy) the threshold lies.
	thrBelowLoudDB float64
	// edgeDB is the loudest frame outside the region, in dB below the loud
	// level (+Inf when the region is the whole recording): a small value
	// means sound close to the threshold was left out.
	edgeDB float64
	// contour is every frame's energy in dB relative to the loud level;
	// start, end the detected region's frames.
	contour    []float64
	start, end int
}

const natsToDB = 10 / math.Ln10

// measureSpeech reads one recording and locates its speech region with
// the word config's detector (frontend.SpeechRegion).
func measureSpeech(r datasets.Recording, wc frontend.WordConfig) (speechStats, error) {
	st := speechStats{rec: r, edgeDB: math.Inf(1)}
	a, err := frontend.ReadAudio(r.Path, 0)
	if err != nil {
		return st, err
	}
	if a.Rate != wc.Audio.SampleRate {
		if a, err = frontend.Resample(a, wc.Audio.SampleRate); err != nil {
			return st, fmt.Errorf("%s: %w", r.Path, err)
		}
	}
	_, energy := frontend.LogMel(wc.Audio, a.Samples)
	n := len(energy)
	if n == 0 {
		return st, fmt.Errorf("%s: empty recording", r.Path)
	}
	start, end := wc.SpeechRegion(energy)
	hop := wc.Audio.HopMs
	st.totalMs = float64(len(a.Samples)) * 1000 / float64(a.Rate)
	st.speechMs = float64(end-start) * hop
	s := append([]float64(nil), energy...)
	sort.Float64s(s)
	loud := s[(n*95)/100]
	byMargin := loud - wc.MarginDB/natsToDB
	thr := frontend.SpeechThreshold(energy, wc.MarginDB, wc.SpeechFloorShare())
	st.floorBinds = thr > byMargin
	st.thrBelowLoudDB = (loud - thr) * natsToDB
	st.start, st.end = start, end
	for i, e := range energy {
		st.contour = append(st.contour, (e-loud)*natsToDB)
		if i < start || i >= end {
			st.edgeDB = math.Min(st.edgeDB, (loud-e)*natsToDB)
		}
	}
	return st, nil
}

func evalDigitsSpeech(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval digits-speech", "[flags]", stderr)
	var ws cli.WordSet
	cli.WordSetFlags(fs, &ws)
	predPath := fs.String("predictions", "", "an eval digits --predictions file: also compare the speech regions of misrecognised recordings with those of recognised ones")
	showErrors := fs.Int("show-errors", 0, "with --predictions: print the energy contour and detected region of this many misrecognised recordings per speaker")
	wc := frontend.DefaultWordConfig()
	cli.WordConfigFlags(fs, &wc)
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	var recs []datasets.Recording
	if ws.TestManifest != "" {
		var err error
		if recs, err = datasets.ReadManifest(ws.TestManifest); err != nil {
			return err
		}
	} else {
		splits, err := digitSplits(ws, "official")
		if err != nil {
			return err
		}
		recs = append(append(recs, splits[0].train...), splits[0].test...)
	}
	var preds map[string]prediction
	if *predPath != "" {
		var err error
		if preds, err = readPredictions(*predPath); err != nil {
			return err
		}
	}
	stats := make([]speechStats, len(recs))
	errs := make([]error, len(recs))
	parallel.For(len(recs), func(i int) { stats[i], errs[i] = measureSpeech(recs[i], wc) })
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if *showErrors > 0 && preds == nil {
		return fmt.Errorf("--show-errors needs --predictions")
	}
	writeSpeechTables(stdout, stats, preds)
	if *showErrors > 0 {
		writeErrorContours(stdout, stats, preds, *showErrors)
	}
	return nil
}

// writeSpeechTables prints, per speaker, the recordings' mean length, the
// mean detected speech length, how often the noise-floor rule sets the
// threshold, and how close to the threshold the loudest left-out frame
// is; then the mean speech length per speaker and digit; and with
// predictions, the speech length of misrecognised recordings relative to
// the speaker's median for that digit.
func writeSpeechTables(w io.Writer, stats []speechStats, preds map[string]prediction) {
	bySpk := map[string][]speechStats{}
	digits := map[string]bool{}
	for _, s := range stats {
		bySpk[s.rec.Speaker] = append(bySpk[s.rec.Speaker], s)
		digits[s.rec.Label] = true
	}
	speakers := sortedKeys(bySpk)
	labels := sortedKeys(digits)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "speaker\trecordings\tmean length ms\tmean speech ms\tspeech share\tfloor, not the margin, sets threshold\tthreshold below loud dB\tloudest left-out frame below loud dB (median)\t")
	for _, spk := range speakers {
		ss := bySpk[spk]
		var tot, sp, thr float64
		var floor int
		var edges []float64
		for _, s := range ss {
			tot += s.totalMs
			sp += s.speechMs
			thr += s.thrBelowLoudDB
			if s.floorBinds {
				floor++
			}
			if !math.IsInf(s.edgeDB, 1) {
				edges = append(edges, s.edgeDB)
			}
		}
		n := float64(len(ss))
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.2f\t%.0f%%\t%.1f\t%.1f\t\n", spk, len(ss), tot/n, sp/n, sp/tot, 100*float64(floor)/n, thr/n, median(edges))
	}
	tw.Flush()
	fmt.Fprintln(w)
	// median speech length per speaker and digit
	med := map[string]map[string]float64{}
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "median speech ms\t")
	for _, l := range labels {
		fmt.Fprintf(tw, "%s\t", l)
	}
	fmt.Fprintln(tw)
	for _, spk := range speakers {
		med[spk] = map[string]float64{}
		fmt.Fprintf(tw, "%s\t", spk)
		for _, l := range labels {
			var v []float64
			for _, s := range bySpk[spk] {
				if s.rec.Label == l {
					v = append(v, s.speechMs)
				}
			}
			med[spk][l] = median(v)
			fmt.Fprintf(tw, "%.0f\t", med[spk][l])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if preds == nil {
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "speaker\tscored\terrors\tspeech / speaker-digit median, errors\tsame, recognised\terrors under 0.8×\trecognised under 0.8×\t")
	for _, spk := range speakers {
		var rErr, rOK []float64
		for _, s := range bySpk[spk] {
			p, ok := preds[s.rec.Path]
			if !ok {
				continue
			}
			ratio := s.speechMs / med[spk][s.rec.Label]
			if p.Label != p.Predicted {
				rErr = append(rErr, ratio)
			} else {
				rOK = append(rOK, ratio)
			}
		}
		if len(rErr)+len(rOK) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.2f\t%s\t%s\t\n", spk, len(rErr)+len(rOK), len(rErr), median(rErr), median(rOK), shareBelow(rErr, 0.8), shareBelow(rOK, 0.8))
	}
	tw.Flush()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func shareBelow(v []float64, x float64) string {
	if len(v) == 0 {
		return "-"
	}
	var n int
	for _, a := range v {
		if a < x {
			n++
		}
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(len(v)))
}

// writeErrorContours prints, for up to n misrecognised recordings per
// speaker, every frame's energy in dB below the loud level (rounded), with
// the detected speech region in brackets.
func writeErrorContours(w io.Writer, stats []speechStats, preds map[string]prediction, n int) {
	fmt.Fprintln(w, "\nmisrecognised recordings: frame energy in dB relative to the loud level, [detected speech region]")
	shown := map[string]int{}
	for _, s := range stats {
		p, ok := preds[s.rec.Path]
		if !ok || p.Label == p.Predicted || shown[s.rec.Speaker] >= n {
			continue
		}
		shown[s.rec.Speaker]++
		var b strings.Builder
		for i, v := range s.contour {
			if i == s.start {
				b.WriteString("[")
			}
			fmt.Fprintf(&b, "%.0f", v)
			if i == s.end-1 {
				b.WriteString("]")
			}
			b.WriteString(" ")
		}
		fmt.Fprintf(w, "%s (%s as %s, speech %.0f of %.0f ms): %s\n", filepath.Base(s.rec.Path), p.Label, p.Predicted, s.speechMs, s.totalMs, b.String())
	}
}
