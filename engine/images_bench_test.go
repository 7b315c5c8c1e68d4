package engine

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/maxout"
)

// BenchmarkTagRows tags batches of MNIST-shaped images with a model of the
// demo's shape (maxout m = 1000, q = 4, ten classes), weights drawn at
// random: the cost does not depend on their values. The rows are copied in
// every iteration because TagRows normalises them in place; allocs/op and
// B/op show what each batch allocates beside the map's pooled scratch.
func BenchmarkTagRows(b *testing.B) {
	const batch, pixels, classes = 256, 784, 10
	mp, err := maxout.New(pixels, maxout.Params{M: 1000, Q: 4}, 1)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	rls := &classifier.RLS{Dim: mp.OutDim(), Classes: classes, Lambda: 1e-3, W: linalg.NewGeneral32(mp.OutDim(), classes)}
	for i := range rls.W.Data {
		rls.W.Data[i] = float32(r.NormFloat64())
	}
	in, _ := json.Marshal(ImageInput{Height: 28, Width: 28, Scale: "byte/255", Normalize: "unit"})
	labels := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
	tg, err := NewImageTagger(&Model{Task: TaskImages, Labels: labels, Input: in, Map: mp.Recipe(), RLS: rls})
	if err != nil {
		b.Fatal(err)
	}
	src := linalg.NewGeneral32(batch, pixels)
	for i := range src.Data {
		src.Data[i] = r.Float32()
	}
	x := linalg.NewGeneral32(batch, pixels)
	b.Run("batch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			copy(x.Data, src.Data)
			if _, err := tg.TagRows(x, 3); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(batch)*float64(b.N)/b.Elapsed().Seconds(), "images/s")
	})
	// What TagRows allocates, and the top-k it allocates for, without the
	// products: the share that buffers kept between batches could save.
	scores := linalg.NewGeneral32(batch, classes)
	for i := range scores.Data {
		scores.Data[i] = r.Float32()
	}
	b.Run("allocations", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			z := linalg.NewGeneral32(batch, mp.OutDim())
			s := linalg.NewGeneral32(batch, classes)
			copy(s.Data, scores.Data)
			out := make([][]Tag, batch)
			for i := range out {
				out[i] = TopK(linalg.Row32(s, i), labels, 3)
			}
			sinkTags, sinkZ = out, z
		}
	})
}

// Sinks keep the compiler from dropping the allocations being timed.
var (
	sinkTags [][]Tag
	sinkZ    blas32.General
)
