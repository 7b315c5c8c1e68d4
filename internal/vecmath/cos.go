package vecmath

import "math"

// CosReduced returns cos(x) to within 1e-8 for |x| up to about 1e6: x is
// reduced to [−π, π] in float64 and a Taylor polynomial of degree 20 in x
// is evaluated there, whose truncation error at ±π is π²²/22! ≈ 8.8e-11.
// It is several times faster than math.Cos, which the Fourier map's
// float32 output does not need the last bits of, and has no branches, so
// the loop over a row stays tight.
//
// Every product is rounded on its own (the explicit float64 conversions
// forbid the compiler to fuse a multiply and an add), which is what the
// assembly kernel does too: the two agree bit for bit on any GOAMD64 level.
func CosReduced(x float64) float64 {
	const twoPi, invTwoPi = 2 * math.Pi, 1 / (2 * math.Pi)
	y := x - float64(twoPi*math.Round(x*invTwoPi))
	z := y * y
	// Horner in z = y² over the coefficients (−1)ᵏ/(2k)!, k = 10 … 0.
	p := 1.0 / 2432902008176640000
	p = float64(p*z) - 1.0/6402373705728000
	p = float64(p*z) + 1.0/20922789888000
	p = float64(p*z) - 1.0/87178291200
	p = float64(p*z) + 1.0/479001600
	p = float64(p*z) - 1.0/3628800
	p = float64(p*z) + 1.0/40320
	p = float64(p*z) - 1.0/720
	p = float64(p*z) + 1.0/24
	p = float64(p*z) - 1.0/2
	return float64(p*z) + 1
}
