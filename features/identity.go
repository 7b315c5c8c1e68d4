package features

import "gonum.org/v1/gonum/blas/blas32"

// Identity is the linear baseline: features are the inputs themselves.
type Identity struct{ d int }

// NewIdentity returns the identity map on d-dimensional inputs.
func NewIdentity(d int) *Identity { return &Identity{d: d} }

func init() {
	Register("identity", func(r Recipe) (Map, error) { return NewIdentity(r.In), nil })
}

func (m *Identity) InDim() int     { return m.d }
func (m *Identity) OutDim() int    { return m.d }
func (m *Identity) Recipe() Recipe { return Recipe{Kind: "identity", In: m.d} }

func (m *Identity) Apply(dst, x blas32.General) {
	CheckShapes(m, dst, x)
	for i := 0; i < x.Rows; i++ {
		copy(dst.Data[i*dst.Stride:i*dst.Stride+m.d], x.Data[i*x.Stride:i*x.Stride+m.d])
	}
}
