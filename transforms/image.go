package transforms

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Kinds of the image groups.
const (
	RotationKind    = "rotation"
	TranslationKind = "translation"
)

// ImageSize is the shape of the row-major images an image group acts on.
type ImageSize struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

func (s ImageSize) check() error {
	if s.Width < 1 || s.Height < 1 {
		return fmt.Errorf("transforms: image size %dx%d", s.Width, s.Height)
	}
	return nil
}

// RotationParams describe a RotationGroup.
type RotationParams struct {
	ImageSize
	// MaxDegrees bounds the local subset [−MaxDegrees, MaxDegrees]; 180 is
	// the whole circle.
	MaxDegrees float64 `json:"max_degrees"`
	// Steps, when positive, makes the subset finite: the 2·Steps+1 equally
	// spaced angles from −MaxDegrees to MaxDegrees.
	Steps int `json:"steps,omitempty"`
}

// RotationGroup rotates images about their centre with bilinear
// interpolation; pixels that come from outside the image are zero.
type RotationGroup struct{ p RotationParams }

// Angle is a rotation in degrees. Positive angles turn the x axis towards
// the y axis; as y counts rows downwards, that is clockwise on screen.
type Angle float64

func (a Angle) String() string { return fmt.Sprintf("rot(%.4g°)", float64(a)) }

// TranslationParams describe a TranslationGroup.
type TranslationParams struct {
	ImageSize
	// MaxShift bounds both components of the shift, in pixels.
	MaxShift float64 `json:"max_shift"`
	// SubPixel draws real shifts (bilinear); otherwise shifts are integers
	// and the subset is finite.
	SubPixel bool `json:"subpixel,omitempty"`
}

// TranslationGroup shifts images; pixels shifted in from outside are zero.
type TranslationGroup struct{ p TranslationParams }

// Shift is a translation by DX pixels right and DY pixels down.
type Shift struct{ DX, DY float64 }

func (s Shift) String() string { return fmt.Sprintf("shift(%.4g,%.4g)", s.DX, s.DY) }

func init() {
	Register(RotationKind, func(s Spec) (Group, error) {
		var p RotationParams
		if err := UnmarshalParams(s, &p); err != nil {
			return nil, err
		}
		return NewRotationGroup(p)
	})
	Register(TranslationKind, func(s Spec) (Group, error) {
		var p TranslationParams
		if err := UnmarshalParams(s, &p); err != nil {
			return nil, err
		}
		return NewTranslationGroup(p)
	})
}

// NewRotationGroup returns rotations within ±MaxDegrees.
func NewRotationGroup(p RotationParams) (*RotationGroup, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if !(p.MaxDegrees >= 0 && p.MaxDegrees <= 180) || p.Steps < 0 {
		return nil, fmt.Errorf("transforms: rotation needs 0 ≤ max_degrees ≤ 180 and steps ≥ 0, have %v, %d", p.MaxDegrees, p.Steps)
	}
	return &RotationGroup{p: p}, nil
}

// NewTranslationGroup returns shifts within ±MaxShift pixels.
func NewTranslationGroup(p TranslationParams) (*TranslationGroup, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if !(p.MaxShift >= 0) || math.IsInf(p.MaxShift, 0) {
		return nil, fmt.Errorf("transforms: translation needs a finite max_shift ≥ 0, have %v", p.MaxShift)
	}
	if !p.SubPixel && p.MaxShift != math.Trunc(p.MaxShift) {
		return nil, fmt.Errorf("transforms: integer translation needs an integer max_shift, have %v", p.MaxShift)
	}
	return &TranslationGroup{p: p}, nil
}

func (g *RotationGroup) Dim() int          { return g.p.Width * g.p.Height }
func (g *RotationGroup) Spec() Spec        { return Spec{Kind: RotationKind, Params: marshalParams(g.p)} }
func (g *RotationGroup) Identity() Element { return Angle(0) }
func (g *RotationGroup) size() ImageSize   { return g.p.ImageSize }

// Sample draws angles uniformly from the subset (the Haar measure when
// MaxDegrees is 180).
func (g *RotationGroup) Sample(r *rand.Rand, n int) []Element {
	if g.p.Steps > 0 {
		e, _ := g.Elements()
		return SampleFinite(r, e, n)
	}
	out := make([]Element, n)
	for i := range out {
		out[i] = Angle(g.p.MaxDegrees * (2*Uniform(r) - 1))
	}
	return out
}

func (g *RotationGroup) Elements() ([]Element, bool) {
	if g.p.Steps == 0 {
		return nil, false
	}
	out := make([]Element, 0, 2*g.p.Steps+1)
	for k := -g.p.Steps; k <= g.p.Steps; k++ {
		out = append(out, Angle(g.p.MaxDegrees*float64(k)/float64(g.p.Steps)))
	}
	return out, true
}

func (g *RotationGroup) angle(e Element) float64 {
	a, ok := e.(Angle)
	if !ok {
		panic(fmt.Sprintf("transforms: %v is not a rotation", e))
	}
	return float64(a)
}

func (g *RotationGroup) Apply(dst, src []float32, e Element) {
	checkLen(g, dst, src)
	warpBilinear(dst, src, g.p.ImageSize, g.sourceMap(e))
}

func (g *RotationGroup) Inverse(e Element) Element { return Angle(-g.angle(e)) }
func (g *RotationGroup) Compose(a, b Element) Element {
	return Angle(g.angle(a) + g.angle(b))
}

// sourceMap returns where each output pixel reads from: the inverse
// rotation about the centre.
func (g *RotationGroup) sourceMap(e Element) affine {
	th := -g.angle(e) * math.Pi / 180
	s, c := math.Sincos(th)
	if g.angle(e) == 0 {
		s, c = 0, 1
	}
	cx, cy := float64(g.p.Width-1)/2, float64(g.p.Height-1)/2
	// p = R(−θ)(p′ − centre) + centre, with y pointing down the rows.
	return affine{a: c, b: -s, c: s, d: c, e: cx - c*cx + s*cy, f: cy - s*cx - c*cy}
}

func (g *TranslationGroup) Dim() int { return g.p.Width * g.p.Height }
func (g *TranslationGroup) Spec() Spec {
	return Spec{Kind: TranslationKind, Params: marshalParams(g.p)}
}
func (g *TranslationGroup) Identity() Element { return Shift{} }
func (g *TranslationGroup) size() ImageSize   { return g.p.ImageSize }

// Sample draws shifts uniformly from the box (integer or real).
func (g *TranslationGroup) Sample(r *rand.Rand, n int) []Element {
	out := make([]Element, n)
	m := g.p.MaxShift
	for i := range out {
		if g.p.SubPixel {
			out[i] = Shift{m * (2*Uniform(r) - 1), m * (2*Uniform(r) - 1)}
		} else {
			k := 2*int(m) + 1
			out[i] = Shift{float64(Intn(r, k)) - m, float64(Intn(r, k)) - m}
		}
	}
	return out
}

func (g *TranslationGroup) Elements() ([]Element, bool) {
	if g.p.SubPixel {
		return nil, false
	}
	m := int(g.p.MaxShift)
	out := make([]Element, 0, (2*m+1)*(2*m+1))
	for dy := -m; dy <= m; dy++ {
		for dx := -m; dx <= m; dx++ {
			out = append(out, Shift{float64(dx), float64(dy)})
		}
	}
	return out, true
}

func (g *TranslationGroup) shift(e Element) Shift {
	s, ok := e.(Shift)
	if !ok {
		panic(fmt.Sprintf("transforms: %v is not a translation", e))
	}
	return s
}

func (g *TranslationGroup) Apply(dst, src []float32, e Element) {
	checkLen(g, dst, src)
	warpBilinear(dst, src, g.p.ImageSize, g.sourceMap(e))
}

func (g *TranslationGroup) Inverse(e Element) Element {
	s := g.shift(e)
	return Shift{-s.DX, -s.DY}
}

func (g *TranslationGroup) Compose(a, b Element) Element {
	sa, sb := g.shift(a), g.shift(b)
	return Shift{sa.DX + sb.DX, sa.DY + sb.DY}
}

func (g *TranslationGroup) sourceMap(e Element) affine {
	s := g.shift(e)
	return affine{a: 1, d: 1, e: -s.DX, f: -s.DY}
}

// affine maps an output pixel (x, y) to the source point
// (a·x + b·y + e, c·x + d·y + f) it reads from.
type affine struct{ a, b, c, d, e, f float64 }

// followedBy returns the map p ↦ first(m(p)). The source map of g(h(x))
// is g's source map followed by h's.
func (m affine) followedBy(first affine) affine {
	return affine{
		a: first.a*m.a + first.b*m.c, b: first.a*m.b + first.b*m.d,
		c: first.c*m.a + first.d*m.c, d: first.c*m.b + first.d*m.d,
		e: first.a*m.e + first.b*m.f + first.e, f: first.c*m.e + first.d*m.f + first.f,
	}
}

// imageWarper is an image group whose elements are affine warps, so that a
// product of such groups resamples once instead of once per factor.
type imageWarper interface {
	size() ImageSize
	sourceMap(Element) affine
}

// warpBilinear resamples src through the source map m; points outside the
// image read as zero. Integer source points copy pixels exactly.
func warpBilinear(dst, src []float32, sz ImageSize, m affine) {
	w, h := sz.Width, sz.Height
	at := func(x, y int) float64 {
		if x < 0 || y < 0 || x >= w || y >= h {
			return 0
		}
		return float64(src[y*w+x])
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			sx := m.a*float64(x) + m.b*float64(y) + m.e
			sy := m.c*float64(x) + m.d*float64(y) + m.f
			x0, y0 := math.Floor(sx), math.Floor(sy)
			fx, fy := sx-x0, sy-y0
			ix, iy := int(x0), int(y0)
			if ix < -1 || iy < -1 || ix >= w || iy >= h {
				dst[y*w+x] = 0
				continue
			}
			v := (1-fy)*((1-fx)*at(ix, iy)+fx*at(ix+1, iy)) + fy*((1-fx)*at(ix, iy+1)+fx*at(ix+1, iy+1))
			dst[y*w+x] = float32(v)
		}
	}
}
