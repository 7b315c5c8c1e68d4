package train

import (
	"math"
	"slices"
	"testing"

	"github.com/rfstream/rfstream/datasets"
)

// A dev set of two groups scores each group as that group alone would be
// scored, trial for trial, and the whole as the word-weighted mix of the
// two; a dev set of one group reports no groups.
func TestTuneScoresEachDevGroup(t *testing.T) {
	m := trainToneModel(t, "rls")
	dev := toneDev()
	grid := TuneGrid{WordPenalties: []float64{0, -20}, AcousticScales: []float64{1, 0.1}, PriorScales: []float64{1, 0.2}}
	alone, err := TuneConnected(m, dev, grid)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range alone {
		if tr.GroupWER != nil {
			t.Fatalf("one dev group reported by group: %+v", tr)
		}
	}
	for i := range dev {
		dev[i].Group = []string{"a", "b"}[i%2]
	}
	a := []DevUtterance{dev[0], dev[2]}
	b := []DevUtterance{dev[1], dev[3]}
	words := func(d []DevUtterance) float64 { return float64(len(d[0].Words) + len(d[1].Words)) }
	mixed, err := TuneConnected(m, dev, grid)
	if err != nil {
		t.Fatal(err)
	}
	ta, err := TuneConnected(m, a, grid)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := TuneConnected(m, b, grid)
	if err != nil {
		t.Fatal(err)
	}
	sawErrors := false
	for i, tr := range mixed {
		if tr.GroupWER["a"] != ta[i].WER || tr.GroupWER["b"] != tb[i].WER || len(tr.GroupWER) != 2 {
			t.Fatalf("trial %d: groups %v, alone a %.3f b %.3f", i, tr.GroupWER, ta[i].WER, tb[i].WER)
		}
		want := (ta[i].WER*words(a) + tb[i].WER*words(b)) / (words(a) + words(b))
		if math.Abs(tr.WER-want) > 1e-12 || tr.WER != alone[i].WER {
			t.Fatalf("trial %d: WER %.4f, want the groups' mix %.4f and the ungrouped %.4f", i, tr.WER, want, alone[i].WER)
		}
		sawErrors = sawErrors || tr.WER > 0
	}
	if !sawErrors {
		t.Error("no trial made an error: the groups' scores were never tested apart from 0")
	}
}

// The wide grid is the default grid with word bonuses and acoustic scales
// above 1 after the default values (ties keep the default choice).
func TestWideTuneGridExtendsTheDefault(t *testing.T) {
	d, w := DefaultTuneGrid(), WideTuneGrid()
	if !slices.Equal(w.WordPenalties[:len(d.WordPenalties)], d.WordPenalties) || !slices.Equal(w.AcousticScales[:len(d.AcousticScales)], d.AcousticScales) ||
		!slices.Equal(w.PriorScales, d.PriorScales) {
		t.Fatalf("wide grid %+v does not start with the default %+v", w, d)
	}
	if slices.Max(w.WordPenalties) <= 0 || slices.Max(w.AcousticScales) <= 1 {
		t.Errorf("wide grid %+v has no word bonus or no acoustic scale above 1", w)
	}
	if g := (DigitStringOptions{WideTune: true, TunePriorScale: 0.5}).TuneGrid(); !slices.Equal(g.WordPenalties, w.WordPenalties) || !slices.Equal(g.PriorScales, []float64{0.5}) {
		t.Errorf("WideTune with a held prior scale searches %+v", g)
	}
}

// The tuning strings of DevVoiceSpeakers are whole spoken strings of new
// speakers of the training engines only, grouped by engine, none of them a
// training speaker; without engines or speakers there are none.
func TestDevVoiceStringsAreUnheardSpeakersOfTrainingEngines(t *testing.T) {
	e, err := datasets.EngineByName("flite")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Available(); err != nil {
		t.Skip("flite not installed:", err)
	}
	set := datasets.DefaultVoiceSetOptions()
	set.Speakers, set.Takes, set.Strings = 4, 1, 1
	o := DigitStringOptions{PadMin: 0.1, PadMax: 0.2, DevVoiceSpeakers: 1,
		Voices: ConnectedVoices{Engines: EngineVoices{Engines: []string{"flite"}, Set: set, Dir: t.TempDir()}}}
	dev, err := o.devVoiceStrings(8000)
	if err != nil {
		t.Fatal(err)
	}
	if len(dev) != 10 {
		t.Fatalf("%d dev strings of one speaker, want 10", len(dev))
	}
	for _, d := range dev {
		if d.Group != "flite" || len(d.Words) < 2 || len(d.Audio.Samples) < int(0.2*8000)+len(d.Words)*800 {
			t.Fatalf("dev string %v of group %q, %d samples", d.Words, d.Group, len(d.Audio.Samples))
		}
	}
	ds := o.devVoiceSet()
	if ds.Seed == set.Seed || ds.Takes != 0 || ds.Speakers != 1 {
		t.Errorf("dev voice set %+v from the training set %+v", ds, set)
	}
	table, err := datasets.SpeakerTable(e, ds)
	if err != nil {
		t.Fatal(err)
	}
	trained, err := trainedSpeakers(set, "flite")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(trained, table[0].Name()) {
		t.Errorf("dev speaker %s is a training speaker", table[0].Name())
	}
	for _, off := range []DigitStringOptions{{DevVoiceSpeakers: 3}, {Voices: o.Voices}} {
		if d, err := off.devVoiceStrings(8000); err != nil || d != nil {
			t.Errorf("%d dev voice strings (%v) with %d speakers of engines %v", len(d), err, off.DevVoiceSpeakers, off.Voices.Engines.Engines)
		}
	}
}

// RecordingCopies adds copies of the recordings not held out, each with
// its own padding around the same recording and label; 0 and 1 add none.
func TestRecordingCopiesWeighTheRecordings(t *testing.T) {
	recs := toneFSDD(t, []string{"ann", "bob"}, 3)
	held := func(r datasets.Recording) bool { return r.Take == 2 }
	o := DigitStringOptions{PadMin: 0.1, PadMax: 0.3, RecordingCopies: 3}
	copies, err := o.recordingCopies(recs, held, 8000)
	if err != nil {
		t.Fatal(err)
	}
	once, err := o.paddedRecordings(recs, held, 8000, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kept []int
	for i, r := range recs {
		if !held(r) {
			kept = append(kept, i)
		}
	}
	if len(copies) != 2*len(kept) {
		t.Fatalf("%d copies of %d kept recordings, want twice as many", len(copies), len(kept))
	}
	for c := 0; c < 2; c++ {
		for j, i := range kept {
			cp, orig := copies[c*len(kept)+j], once[i]
			if cp.HeldOut || !slices.Equal(cp.Words, orig.Words) || slices.Equal(cp.Samples, orig.Samples) {
				t.Fatalf("copy %d of %s: words %v (want %v), held out %v, padding same as the original: %v", c+1, recs[i].Path, cp.Words, orig.Words, cp.HeldOut, slices.Equal(cp.Samples, orig.Samples))
			}
		}
	}
	for _, n := range []int{0, 1} {
		if c, err := (DigitStringOptions{RecordingCopies: n}).recordingCopies(recs, held, 8000); err != nil || len(c) != 0 {
			t.Errorf("RecordingCopies %d: %d copies, %v", n, len(c), err)
		}
	}
	if _, err := (DigitStringOptions{RecordingCopies: 11}).recordingCopies(recs, held, 8000); err == nil {
		t.Error("11 copies accepted")
	}
}
