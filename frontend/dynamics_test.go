package frontend

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Static frames normalised with the utterance's own mean and variance and
// put through Dynamics, a few at a time, are the Extractor's frames with
// utterance CMVN, to float32 rounding: the same deltas and splicing, the
// same edges.
func TestDynamicsIsTheFrontendAfterCMVN(t *testing.T) {
	cfg := DefaultAudioConfig()
	cfg.Ceps, cfg.Deltas, cfg.CMVN, cfg.Splice = 13, 2, "utterance", 5
	r := rand.New(rand.NewPCG(3, 4))
	samples := make([]float32, 8000)
	for i := range samples {
		samples[i] = float32(0.1*math.Sin(float64(i)*0.07) + 0.01*r.NormFloat64())
	}
	want, err := ExtractFrames(cfg, samples)
	if err != nil {
		t.Fatal(err)
	}
	st := cfg
	st.Deltas, st.Splice, st.CMVN = 0, 0, "none"
	static, err := ExtractFrames(st, samples)
	if err != nil {
		t.Fatal(err)
	}
	n, dim := static.Rows, static.Cols
	mean, inv := make([]float64, dim), make([]float64, dim)
	for i := 0; i < n; i++ {
		for j := 0; j < dim; j++ {
			mean[j] += float64(static.Data[i*dim+j]) / float64(n)
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < dim; j++ {
			d := float64(static.Data[i*dim+j]) - mean[j]
			inv[j] += d * d / float64(n)
		}
	}
	for j := range inv {
		inv[j] = 1 / math.Sqrt(inv[j]+1e-8)
	}
	d, err := NewDynamics(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []float32
	f := make([]float32, dim)
	for i := 0; i < n; i++ {
		for j := range f {
			f[j] = float32((float64(static.Data[i*dim+j]) - mean[j]) * inv[j])
		}
		d.Push(f)
		if i%7 == 0 {
			got = append(got, d.Pop().Data...)
		}
	}
	d.Flush()
	got = append(got, d.Pop().Data...)
	if len(got) != len(want.Data) || want.Cols != cfg.Dim() {
		t.Fatalf("%d values, the frontend gave %d", len(got), len(want.Data))
	}
	for i, v := range want.Data {
		if math.Abs(float64(got[i]-v)) > 1e-4*(1+math.Abs(float64(v))) {
			t.Fatalf("value %d (frame %d): %v, frontend %v", i, i/want.Cols, got[i], v)
		}
	}
}
