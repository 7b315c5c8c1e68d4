package train

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
)

// toyVoicesFolder lays out the five real voices as ../shared/voices does,
// each saying the ten digits (toy tones) and "oh".
func toyVoicesFolder(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for vi, v := range datasets.RealVoices() {
		dir := filepath.Join(root, v.Dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "oh"} {
			name := w
			if strings.HasPrefix(v.Dir, "gcompris") {
				name = map[bool]string{true: "U006F", false: fmt.Sprintf("U%04X", w[0])}[w == "oh"]
			}
			writeToyWAV(t, filepath.Join(dir, name+".wav"), toyWord(map[bool]string{true: "0", false: "1"}[w < "5"], uint64(1000+vi)))
		}
	}
	return root
}

// The recipe trains on every real voice but the excluded one, each digit
// Copies times (never its "oh"), and says so in the model.
func TestDigitStringsOnTrainsOnRealVoices(t *testing.T) {
	recs := toneFSDD(t, []string{"ann", "bob"}, 10)
	o := DefaultDigitStringOptions()
	o.Map = DefaultMapOptions("maxout", 64)
	o.Passes, o.States, o.TrainStrings, o.Filler.Voices, o.Oh = 0, 3, 0, 0, OhOptions{}
	_, baseRep, err := DigitStringsOn(o, recs, HeldOutTake)
	if err != nil {
		t.Fatal(err)
	}
	o.Voices.Real = RealVoiceTraining{Dir: toyVoicesFolder(t), Copies: 3, Exclude: []string{"rich"}}
	m, rep, err := DigitStringsOn(o, recs, HeldOutTake)
	if err != nil {
		t.Fatal(err)
	}
	if want := baseRep.Utterances + 4*10*3; rep.Utterances != want || rep.HeldOut != baseRep.HeldOut {
		t.Errorf("with four real voices ×3: %d training (want %d), %d held out (want %d)", rep.Utterances, want, rep.HeldOut, baseRep.HeldOut)
	}
	if len(m.Labels) != 10 {
		t.Errorf("labels %v, want the ten digits and no oh", m.Labels)
	}
	if got := fmt.Sprint(m.Meta[EngineVoicesMeta]); got != "real voices: 4 voices × 3 copies" {
		t.Errorf("meta %q", got)
	}
	o.Voices.Real.Copies = 101
	if _, _, err := DigitStringsOn(o, recs, HeldOutTake); err == nil {
		t.Error("101 copies were accepted")
	}
}

// Overlapped fluent strings run their words together: each word starts
// no later than the previous one ends, the spans stay inside the audio,
// and a tempo beyond the bound is refused.
func TestOverlappedFluentStrings(t *testing.T) {
	recs := toneFSDD(t, []string{"ann", "bob"}, 10)
	o := DigitStringOptions{Voices: ConnectedVoices{FluentStrings: 12, FluentMaxOverlap: 0.04, FluentMaxTempo: 1.2}}
	utts, err := o.fluentStrings(recs, HeldOutTake, 8000)
	if err != nil {
		t.Fatal(err)
	}
	if len(utts) != 12 {
		t.Fatalf("%d strings, want 12", len(utts))
	}
	for i, u := range utts {
		if len(u.Spans) != len(u.Words) || len(u.Words) < 2 {
			t.Fatalf("string %d: %d words, %d spans", i, len(u.Words), len(u.Spans))
		}
		for k := 1; k < len(u.Spans); k++ {
			if u.Spans[k][0] > u.Spans[k-1][1]+1e-9 {
				t.Errorf("string %d: a pause of %.4f s between words %d and %d", i, u.Spans[k][0]-u.Spans[k-1][1], k-1, k)
			}
		}
		if end := u.Spans[len(u.Spans)-1][1]; end > float64(len(u.Samples))/8000+0.05 {
			t.Errorf("string %d: last word ends at %.3f s of %.3f", i, end, float64(len(u.Samples))/8000)
		}
	}
	o.Voices.FluentMaxTempo = 3
	if _, err := o.fluentStrings(recs, HeldOutTake, 8000); err == nil {
		t.Error("a tempo of 3× was accepted")
	}
}

// A word model's voices take the real voices as speakers of their own:
// Synth adds their digits (an excluded voice and "oh" left out), and Rows
// every recording Copies times, the copies in the recording's group.
func TestWordRowsTakeTheRealVoices(t *testing.T) {
	recs := toneFSDD(t, []string{"ann"}, 3)
	o := VoiceOptions{RealWeight: 1, Real: RealVoiceTraining{Dir: toyVoicesFolder(t), Copies: 3, Exclude: []string{"captcha"}}}
	synth, err := o.Synth(8000)
	if err != nil {
		t.Fatal(err)
	}
	if len(synth) != 40 || slices.ContainsFunc(synth, func(r datasets.Recording) bool { return r.Speaker == "captcha" || r.Label == "oh" }) {
		t.Fatalf("synth %d recordings: %v", len(synth), datasets.Speakers(synth))
	}
	rows, err := o.Rows(recs, synth, frontend.DefaultWordConfig(), VectorCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(recs) + 40*3; rows.X.Rows != want || len(rows.Groups) != want {
		t.Fatalf("%d rows, %d groups, want %d", rows.X.Rows, len(rows.Groups), want)
	}
	perGroup := map[int]int{}
	for _, g := range rows.Groups {
		perGroup[g]++
	}
	for g := len(recs); g < len(recs)+40; g++ {
		if perGroup[g] != 3 {
			t.Fatalf("group %d (a real voice's recording) has %d rows, want 3", g, perGroup[g])
		}
	}
}

// The filler may train on three quarters of the real non-digit words and
// never on the held-out fourth, which stays the same whatever trains.
func TestRealFillerWordsHoldOutAQuarter(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "gcompris-en", "words")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 9 {
		writeToyWAV(t, filepath.Join(dir, fmt.Sprintf("w%d.wav", i)), toyWord("1", uint64(i)))
	}
	trainable, held, err := RealFillerWords(root)
	if err != nil {
		t.Fatal(err)
	}
	var heldWords []string
	for _, r := range held {
		heldWords = append(heldWords, r.Label)
	}
	if len(trainable) != 6 || !slices.Equal(heldWords, []string{"w0", "w4", "w8"}) {
		t.Fatalf("trainable %d, held out %v", len(trainable), heldWords)
	}
	for _, r := range trainable {
		if slices.Contains(heldWords, r.Label) {
			t.Errorf("%s is both trained on and held out", r.Label)
		}
	}
	if _, _, err := RealFillerWords(t.TempDir()); err == nil {
		t.Error("a folder without words was accepted")
	}
}
