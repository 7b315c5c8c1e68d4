package train

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
)

// A noisy copy is the recording padded as a plain copy with the same draws
// would be, plus noise whose power against the recording as read is an SNR
// within the range; held-out recordings are never copied; the options
// unused leave a recipe's JSON (its fingerprint) as it was.
func TestNoisyCopiesHoldTheirSNR(t *testing.T) {
	recs := toneFSDD(t, []string{"ann", "bob"}, 3)
	held := func(r datasets.Recording) bool { return r.Take == 2 }
	o := DigitStringOptions{PadMin: 0.1, PadMax: 0.3, NoisyCopies: 2, NoisySNR: [2]float64{5, 10}}
	noisy, err := o.noisyCopies(recs, held, 8000)
	if err != nil {
		t.Fatal(err)
	}
	var kept []datasets.Recording
	for _, r := range recs {
		if !held(r) {
			kept = append(kept, r)
		}
	}
	if len(noisy) != 2*len(kept) {
		t.Fatalf("%d noisy copies of %d kept recordings, want twice as many", len(noisy), len(kept))
	}
	for c := 1; c <= 2; c++ {
		clean, err := o.paddedRecordings(kept, held, 8000, 1<<10+uint64(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		for j, r := range kept {
			got, want := noisy[(c-1)*len(kept)+j], clean[j]
			if got.HeldOut || !slices.Equal(got.Words, []string{r.Label}) || len(got.Samples) != len(want.Samples) {
				t.Fatalf("copy %d of %s: words %v, held out %v, %d samples (plain copy %d)", c, r.Path, got.Words, got.HeldOut, len(got.Samples), len(want.Samples))
			}
			a, err := frontend.ReadAudio(r.Path, 8000)
			if err != nil {
				t.Fatal(err)
			}
			diff := make([]float32, len(got.Samples))
			for i := range diff {
				diff[i] = got.Samples[i] - want.Samples[i]
			}
			snr := 10 * math.Log10(meanPower(a.Samples)/meanPower(diff))
			if snr < 5-0.01 || snr > 10+0.01 {
				t.Errorf("copy %d of %s: noise at %.2f dB SNR, want 5 to 10", c, r.Path, snr)
			}
		}
	}
	if c, err := (DigitStringOptions{}).noisyCopies(recs, held, 8000); err != nil || len(c) != 0 {
		t.Errorf("no noisy copies asked: %d, %v", len(c), err)
	}
	for _, bad := range []DigitStringOptions{{NoisyCopies: 11}, {NoisyCopies: 1, NoisySNR: [2]float64{10, 5}}} {
		if _, err := bad.noisyCopies(recs, held, 8000); err == nil {
			t.Errorf("%d copies at %v dB accepted", bad.NoisyCopies, bad.NoisySNR)
		}
	}
	b, err := json.Marshal(DefaultDigitStringOptions())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "Noisy") {
		t.Errorf("a recipe without noisy copies names them in its JSON: %s", b)
	}
}
