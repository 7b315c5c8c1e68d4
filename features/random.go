package features

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
)

// Stream identifies an independent random stream of one seed, so that a map
// drawing its projections (stream 0) and, say, its offsets (stream 1) never
// shares numbers between them, and adding a stream never shifts another.
type Stream uint64

// NewRand returns a generator for (seed, stream) whose output is fixed by
// the ChaCha8 specification: identical on every platform and Go release.
func NewRand(seed uint64, stream Stream) *rand.Rand {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[0:], seed)
	binary.LittleEndian.PutUint64(key[8:], uint64(stream))
	copy(key[16:], "rfstream-feature")
	return rand.New(rand.NewChaCha8(key))
}

// Uniform returns a float64 in [0, 1) from the top 53 bits of one draw.
// We do not use rand.Float64 so the mapping from stream to values is ours
// and cannot change under us.
func Uniform(r *rand.Rand) float64 {
	return float64(r.Uint64()>>11) * (1.0 / (1 << 53))
}

// FillNormal32 fills dst with independent standard normal variates using the
// Box–Muller transform on our own uniform draws, so the values are a pure
// function of the generator's stream (math/rand's NormFloat64 makes no such
// promise across releases).
func FillNormal32(r *rand.Rand, dst []float32) {
	for i := 0; i < len(dst); i += 2 {
		z0, z1 := normalPair(r)
		dst[i] = float32(z0)
		if i+1 < len(dst) {
			dst[i+1] = float32(z1)
		}
	}
}

// FillNormal64 is FillNormal32 for float64.
func FillNormal64(r *rand.Rand, dst []float64) {
	for i := 0; i < len(dst); i += 2 {
		z0, z1 := normalPair(r)
		dst[i] = z0
		if i+1 < len(dst) {
			dst[i+1] = z1
		}
	}
}

func normalPair(r *rand.Rand) (float64, float64) {
	// 1-u lies in (0, 1], so the logarithm is finite.
	u1 := 1 - Uniform(r)
	u2 := Uniform(r)
	rad := math.Sqrt(-2 * math.Log(u1))
	s, c := math.Sincos(2 * math.Pi * u2)
	return rad * c, rad * s
}
