package streaming

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/train"
)

// oodToy is the toy bar tagger with an out-of-domain rule chosen on bars
// like its training ones.
func oodToy(t *testing.T) *engine.ImageTagger {
	t.Helper()
	toy, err := toymodels.Images()
	if err != nil {
		t.Fatal(err)
	}
	// Bars with a little noise of their own, so the held-out ones are not
	// copies of the basis's rows and the threshold falls below 1.
	rng := rand.New(rand.NewPCG(1, 2))
	x := linalg.NewGeneral32(200, 64)
	for i := 0; i < 200; i++ {
		row := linalg.Row32(x, i)
		for j, v := range toymodels.Bars(i%2, (i/2)%8) {
			row[j] = v + 0.1*(rng.Float32()-0.5)
		}
	}
	if err := toy.Input.Prepare(x); err != nil {
		t.Fatal(err)
	}
	basis, rule, err := train.CalibrateOutOfDomain(toy.Map, x, 20, 0.05, 1)
	if err != nil || rule == nil {
		t.Fatalf("rule %v, %v", rule, err)
	}
	m := *toy.Model
	in := toy.Input
	in.OutOfDomain = rule
	m.Input, _ = json.Marshal(in)
	m.Blobs = map[string]blas32.General{engine.OODBasisBlob: basis}
	tagger, err := engine.NewImageTagger(&m)
	if err != nil {
		t.Fatal(err)
	}
	return tagger
}

// The tagger stage says what the tagger says in process: the same
// familiarity and out-of-domain mark for every image, bars in domain and
// noise out of it.
func TestTaggerStageMarksOutOfDomainAsInProcess(t *testing.T) {
	tagger := oodToy(t)
	srv, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	worker, _ := srv.Connect("stages")
	t.Cleanup(worker.Close)
	st, err := Start(worker, Pipeline{Name: "ood", Images: tagger, TopK: 2}, StageTagger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	client, _ := srv.Connect("client")
	t.Cleanup(client.Close)

	rng := rand.New(rand.NewPCG(5, 6))
	const n = 20
	raw := make([][]byte, n)
	x := linalg.NewGeneral32(n, 64)
	for i := range raw {
		raw[i] = make([]byte, 64)
		px := toymodels.Bars(i%2, (i/2)%8)
		for j := range raw[i] {
			if i >= n/2 {
				raw[i][j] = byte(rng.IntN(256))
			} else {
				raw[i][j] = byte(255 * px[j])
			}
			x.Data[i*64+j] = float32(raw[i][j]) / 255
		}
	}
	want, err := tagger.Classify(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	got, err := TagImages(context.Background(), client, "ood", "mixed", raw, true, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("threshold %.4f; familiarity of a bar %.4f, of noise %.4f", tagger.Input.OutOfDomain.MinFamiliarity, got[0].Familiarity, got[n-1].Familiarity)
	outside := 0
	for i, r := range got {
		if r.Error != "" || r.OutOfDomain != want[i].OutOfDomain || math.Abs(r.Familiarity-want[i].Familiarity) > 1e-5 {
			t.Fatalf("image %d: stage %+v, in process %+v", i, r, want[i])
		}
		if (i < n/2) == r.OutOfDomain {
			t.Errorf("image %d (%s): out of domain %v, familiarity %.3f", i, map[bool]string{true: "bars", false: "noise"}[i < n/2], r.OutOfDomain, r.Familiarity)
		}
		if r.OutOfDomain {
			outside++
		}
	}
	if outside != n/2 {
		t.Fatalf("%d of %d noise images out of domain", outside, n/2)
	}
}
