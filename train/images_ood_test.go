package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
)

// Rows near a 3-dimensional subspace of R^10: the rule's basis is
// orthonormal and spans it (a row inside it has familiarity 1, one
// orthogonal to it 0), a tenth of the rows is held out, and the threshold
// leaves the asked share of them below it.
func TestCalibrateOutOfDomainFindsTheTrainingSubspace(t *testing.T) {
	const n, d = 400, 10
	rng := rand.New(rand.NewPCG(3, 4))
	x := linalg.NewGeneral32(n, d)
	for i := 0; i < n; i++ {
		row := linalg.Row32(x, i)
		for j := 0; j < 3; j++ {
			row[j] = float32(rng.NormFloat64())
		}
		for j := 3; j < d; j++ {
			row[j] = float32(0.05 * rng.NormFloat64())
		}
	}
	basis, rule, err := CalibrateOutOfDomain(features.NewIdentity(d), x, 3, 0.05, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rule.Components != 3 || rule.HeldOut != n/10 || rule.HeldOutRejected > 0.05 || rule.HeldOutRejected < 0.02 {
		t.Fatalf("rule %+v: want 3 components, %d held out, about 5%% of them rejected", rule, n/10)
	}
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			var dot float64
			for j := 0; j < d; j++ {
				dot += float64(basis.Data[a*d+j] * basis.Data[b*d+j])
			}
			if want := map[bool]float64{true: 1, false: 0}[a == b]; math.Abs(dot-want) > 1e-5 {
				t.Fatalf("basis rows %d·%d = %v, want %v", a, b, dot, want)
			}
		}
	}
	probe := linalg.NewGeneral32(2, d)
	copy(linalg.Row32(probe, 0), []float32{1, 2, 3})
	probe.Data[d+7] = 1
	fam := engine.Familiarity(probe, basis)
	if fam[0] < 0.99 || fam[1] > 0.01 || rule.MinFamiliarity < 0.9 {
		t.Fatalf("familiarity inside %v, outside %v, threshold %v", fam[0], fam[1], rule.MinFamiliarity)
	}
	if _, rule, _ := CalibrateOutOfDomain(features.NewIdentity(d), linalg.Rows32(x, 0, 3), 3, 0.05, 1); rule != nil {
		t.Fatal("a rule from three rows")
	}
}
