package transforms

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// SpectroVTLNKind is the group kind of vocal-tract-length warps acting on
// log-mel patches (frames × bands, time-major), the patch form of
// augment.VTLN: formants move, harmonics stay.
const SpectroVTLNKind = "spectro-vtln"

// SpectroVTLNParams describe the patch and the local subset of warps.
type SpectroVTLNParams struct {
	Frames int     `json:"frames"`
	Mels   int     `json:"mels"`
	LowHz  float64 `json:"low_hz"`
	HighHz float64 `json:"high_hz"`
	// Alpha bounds the warp factors to [1/Alpha, Alpha] (symmetric in the
	// log, so the subset is closed under inverse).
	Alpha float64 `json:"alpha"`
	// Lifter is the number of cosine coefficients of a frame's log-mel
	// spectrum that make its envelope; the rest is the fine structure
	// (harmonics), which stays in place.
	Lifter int `json:"lifter"`
}

// VTLNFactor is a vocal-tract warp: a formant at f moves to factor·f (a
// tract 1/factor times as long).
type VTLNFactor float64

func (a VTLNFactor) String() string { return fmt.Sprintf("vtln(%.3g)", float64(a)) }

// SpectroVTLNGroup warps every frame's spectral envelope along frequency
// and leaves the fine structure where it is: a frame's log-mel values v
// split into the envelope e (v's first Lifter cosine coefficients) and
// v − e; output band k is e read at the band of centre(k)/factor (linear
// interpolation, edge bands clamped) plus (v − e)[k]. The action is linear,
// so the invariant map can store the warped templates and project inputs
// onto them; like the pitch warp it is a group only up to the band edges.
type SpectroVTLNGroup struct {
	p     SpectroVTLNParams
	bands *SpectroGroup // band centres and the mel scale, shared with the pitch warp
	// basis[q*M+k] is cosine coefficient q's weight of band k, orthonormal.
	basis []float64
}

func init() {
	Register(SpectroVTLNKind, func(s Spec) (Group, error) {
		var p SpectroVTLNParams
		if err := UnmarshalParams(s, &p); err != nil {
			return nil, err
		}
		return NewSpectroVTLNGroup(p)
	})
}

// NewSpectroVTLNGroup checks p and precomputes the cosine basis.
func NewSpectroVTLNGroup(p SpectroVTLNParams) (*SpectroVTLNGroup, error) {
	if !(p.Alpha >= 1) || p.Alpha > 2 || p.Lifter < 1 || p.Lifter > p.Mels {
		return nil, fmt.Errorf("transforms: spectro-vtln needs 1 ≤ alpha ≤ 2 and 1 ≤ lifter ≤ mels; have %+v", p)
	}
	bands, err := NewSpectroGroup(SpectroParams{Frames: p.Frames, Mels: p.Mels, LowHz: p.LowHz, HighHz: p.HighHz, Tempo: 1})
	if err != nil {
		return nil, err
	}
	m := p.Mels
	g := &SpectroVTLNGroup{p: p, bands: bands, basis: make([]float64, p.Lifter*m)}
	for q := 0; q < p.Lifter; q++ {
		scale := math.Sqrt(2 / float64(m))
		if q == 0 {
			scale = math.Sqrt(1 / float64(m))
		}
		for k := 0; k < m; k++ {
			g.basis[q*m+k] = scale * math.Cos(math.Pi*float64(q)*(float64(k)+0.5)/float64(m))
		}
	}
	return g, nil
}

func (g *SpectroVTLNGroup) Dim() int { return g.p.Frames * g.p.Mels }
func (g *SpectroVTLNGroup) Spec() Spec {
	return Spec{Kind: SpectroVTLNKind, Params: marshalParams(g.p)}
}
func (g *SpectroVTLNGroup) Identity() Element { return VTLNFactor(1) }

// Sample draws factors log-uniformly, so a factor and its inverse are
// equally likely.
func (g *SpectroVTLNGroup) Sample(r *rand.Rand, n int) []Element {
	out := make([]Element, n)
	la := math.Log(g.p.Alpha)
	for i := range out {
		out[i] = VTLNFactor(math.Exp(la * (2*Uniform(r) - 1)))
	}
	return out
}

func (g *SpectroVTLNGroup) Elements() ([]Element, bool) { return nil, false }

func (g *SpectroVTLNGroup) factor(e Element) float64 {
	a, ok := e.(VTLNFactor)
	if !ok || !(a > 0) {
		panic(fmt.Sprintf("transforms: %v is not an element of %s", e, SpectroVTLNKind))
	}
	return float64(a)
}

func (g *SpectroVTLNGroup) Inverse(e Element) Element { return VTLNFactor(1 / g.factor(e)) }

func (g *SpectroVTLNGroup) Compose(a, b Element) Element {
	return VTLNFactor(g.factor(a) * g.factor(b))
}

// Apply writes the warped patch frame by frame.
func (g *SpectroVTLNGroup) Apply(dst, src []float32, e Element) {
	checkLen(g, dst, src)
	alpha := g.factor(e)
	m := g.p.Mels
	// Where each output band reads the envelope: the same for every frame.
	at := make([]float64, m)
	for k := range at {
		at[k] = clamp(g.bands.bandOf(g.bands.centre[k]/alpha), 0, float64(m-1))
	}
	coef := make([]float64, g.p.Lifter)
	env := make([]float64, m)
	for t := 0; t < g.p.Frames; t++ {
		in, out := src[t*m:(t+1)*m], dst[t*m:(t+1)*m]
		for q := range coef {
			var s float64
			for k, v := range in {
				s += g.basis[q*m+k] * float64(v)
			}
			coef[q] = s
		}
		for k := range env {
			var s float64
			for q, c := range coef {
				s += c * g.basis[q*m+k]
			}
			env[k] = s
		}
		for k := range out {
			k0 := int(at[k])
			k1 := min(k0+1, m-1)
			f := at[k] - float64(k0)
			warped := (1-f)*env[k0] + f*env[k1]
			out[k] = float32(warped + float64(in[k]) - env[k])
		}
	}
}
