package transforms

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// SpectroKind is the group kind of pitch shifts and tempo warps acting on
// log-mel patches (frames × bands, time-major), the time–frequency form of
// the audio groups: cheap enough to transform thousands of templates.
const SpectroKind = "spectro-warp"

// SpectroParams describe the patch and the local subset of warps.
type SpectroParams struct {
	Frames int     `json:"frames"`
	Mels   int     `json:"mels"`
	LowHz  float64 `json:"low_hz"`  // lowest mel band edge
	HighHz float64 `json:"high_hz"` // highest mel band edge
	// Cents bounds pitch shifts to ±Cents; Tempo bounds speed factors to
	// [1/Tempo, Tempo]. Both ranges are symmetric, so the subset is closed
	// under inverse.
	Cents float64 `json:"cents"`
	Tempo float64 `json:"tempo"`
	// FillMin makes a pitch shift a translation with silence coming in:
	// bands whose source frequency lies outside the patch read the patch's
	// smallest value (what an empty band of a word vector holds) instead of
	// repeating the edge band, as a shift of the waveform does when content
	// moves past the band edges or Nyquist.
	FillMin bool `json:"fill_min,omitempty"`
}

// Warp is a pitch shift in cents and a tempo factor (2 plays twice as fast).
type Warp struct{ Cents, Tempo float64 }

func (w Warp) String() string { return fmt.Sprintf("warp(%+.0fc, %.3g×)", w.Cents, w.Tempo) }

// SpectroGroup shifts pitch along the mel axis (a shift of c cents
// multiplies every frequency by 2^(c/1200), which moves a band's content to
// the band of the scaled frequency) and scales time about the patch's
// centre, with linear interpolation and edge clamping on both axes. Like an
// image rotation, it is a group only up to those edges.
type SpectroGroup struct {
	p      SpectroParams
	centre []float64 // centre frequency of each band, Hz
	lo, hi float64   // mel of the outer band edges
}

func init() {
	Register(SpectroKind, func(s Spec) (Group, error) {
		var p SpectroParams
		if err := UnmarshalParams(s, &p); err != nil {
			return nil, err
		}
		return NewSpectroGroup(p)
	})
}

func hzToMel(f float64) float64 { return 2595 * math.Log10(1+f/700) }
func melToHz(m float64) float64 { return 700 * (math.Pow(10, m/2595) - 1) }

// NewSpectroGroup checks p and precomputes the band centres.
func NewSpectroGroup(p SpectroParams) (*SpectroGroup, error) {
	if p.Frames < 2 || p.Mels < 2 || p.LowHz < 0 || p.HighHz <= p.LowHz || p.Cents < 0 || p.Tempo < 1 || math.IsInf(p.Cents+p.Tempo, 0) {
		return nil, fmt.Errorf("transforms: spectro-warp needs frames, mels ≥ 2, 0 ≤ low < high Hz, cents ≥ 0, tempo ≥ 1; have %+v", p)
	}
	g := &SpectroGroup{p: p, lo: hzToMel(p.LowHz), hi: hzToMel(p.HighHz), centre: make([]float64, p.Mels)}
	for k := range g.centre {
		g.centre[k] = melToHz(g.lo + (g.hi-g.lo)*float64(k+1)/float64(p.Mels+1))
	}
	return g, nil
}

func (g *SpectroGroup) Dim() int          { return g.p.Frames * g.p.Mels }
func (g *SpectroGroup) Spec() Spec        { return Spec{Kind: SpectroKind, Params: marshalParams(g.p)} }
func (g *SpectroGroup) Identity() Element { return Warp{0, 1} }

// Sample draws cents uniformly and the tempo factor log-uniformly, so a
// factor and its inverse are equally likely.
func (g *SpectroGroup) Sample(r *rand.Rand, n int) []Element {
	out := make([]Element, n)
	lt := math.Log(g.p.Tempo)
	for i := range out {
		c := g.p.Cents * (2*Uniform(r) - 1)
		t := math.Exp(lt * (2*Uniform(r) - 1))
		out[i] = Warp{c, t}
	}
	return out
}

func (g *SpectroGroup) Elements() ([]Element, bool) { return nil, false }

func (g *SpectroGroup) warp(e Element) Warp {
	w, ok := e.(Warp)
	if !ok {
		panic(fmt.Sprintf("transforms: %v is not an element of %s", e, SpectroKind))
	}
	return w
}

func (g *SpectroGroup) Inverse(e Element) Element {
	w := g.warp(e)
	return Warp{-w.Cents, 1 / w.Tempo}
}

func (g *SpectroGroup) Compose(a, b Element) Element {
	x, y := g.warp(a), g.warp(b)
	return Warp{x.Cents + y.Cents, x.Tempo * y.Tempo}
}

// bandOf returns the fractional band index whose centre is at f Hz.
func (g *SpectroGroup) bandOf(f float64) float64 {
	m := hzToMel(math.Max(f, 0))
	return (m-g.lo)/(g.hi-g.lo)*float64(g.p.Mels+1) - 1
}

// Apply writes the warped patch: output band k holds what the source had
// at frequency centre(k)/2^(c/1200), output frame t what the source had at
// time centre + (t − centre)·tempo.
func (g *SpectroGroup) Apply(dst, src []float32, e Element) {
	w := g.warp(e)
	F, M := g.p.Frames, g.p.Mels
	ratio := math.Pow(2, w.Cents/1200)
	mid := float64(F-1) / 2
	var floor float32
	if g.p.FillMin {
		floor = src[0]
		for _, v := range src {
			floor = min(floor, v)
		}
	}
	for t := 0; t < F; t++ {
		st := clamp(mid+(float64(t)-mid)*w.Tempo, 0, float64(F-1))
		t0 := int(st)
		t1 := min(t0+1, F-1)
		ft := float32(st - float64(t0))
		for k := 0; k < M; k++ {
			raw := g.bandOf(g.centre[k] / ratio)
			if g.p.FillMin && (raw < 0 || raw > float64(M-1)) {
				// Between the edge band and one band beyond it the value
				// fades to the floor; further out it is the floor.
				edge, out := 0, -raw
				if raw > 0 {
					edge, out = M-1, raw-float64(M-1)
				}
				f := float32(math.Min(out, 1))
				a := (1-f)*src[t0*M+edge] + f*floor
				b := (1-f)*src[t1*M+edge] + f*floor
				dst[t*M+k] = (1-ft)*a + ft*b
				continue
			}
			sk := clamp(raw, 0, float64(M-1))
			k0 := int(sk)
			k1 := min(k0+1, M-1)
			fk := float32(sk - float64(k0))
			a := (1-fk)*src[t0*M+k0] + fk*src[t0*M+k1]
			b := (1-fk)*src[t1*M+k0] + fk*src[t1*M+k1]
			dst[t*M+k] = (1-ft)*a + ft*b
		}
	}
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }
