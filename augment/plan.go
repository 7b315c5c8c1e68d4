package augment

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rfstream/rfstream/frontend"
)

// Ranges bound what Draw may choose; a zero field leaves that change out.
type Ranges struct {
	Cents    float64  // pitch within ±Cents
	MaxTempo float64  // tempo within [1/MaxTempo, MaxTempo] (≤ 1: none)
	Warp     float64  // vocal-tract warp within [1−Warp, 1+Warp]
	Noises   []string // noise kinds to pick from (white, pink, background)
	SNR      [2]float64
	Reverb   float64 // probability of a room
	MaxRT60  float64 // its reverberation time, 0.1 s to MaxRT60
	Phone    float64 // probability of the telephone channel
	Codecs   []string
	LevelDB  float64 // level within ±LevelDB
}

// DefaultRanges are the groups at moderate strength: ±300 cents,
// tempo 0.8–1.25×, warps of ±12 %, noise at 5–30 dB, a room one time in
// three, a telephone one in four (no codec, μ-law or GSM), ±10 dB.
func DefaultRanges() Ranges {
	return Ranges{Cents: 300, MaxTempo: 1.25, Warp: 0.12, Noises: []string{"white", "pink", "background"},
		SNR: [2]float64{5, 30}, Reverb: 1.0 / 3, MaxRT60: 0.6, Phone: 0.25, Codecs: []string{"", "u-law", "gsm"}, LevelDB: 10}
}

// Plan is one drawn set of changes, applied in the order a voice meets
// them: the speaker (pitch, tempo, vocal tract), the room (reverberation,
// then noise), the channel, the level.
type Plan struct {
	Cents, Tempo, Warp float64
	Noise              string
	SNR                float64
	RT60               float64 // 0: no room
	Phone              bool
	Codec              string
	LevelDB            float64
	Seed               uint64 // the noise's and the room's
}

// String names the plan, for a condition's name in a vector cache.
func (p Plan) String() string {
	return fmt.Sprintf("c%.0f t%.3f w%.3f n%s@%.1f r%.2f p%v%s l%.1f s%d", p.Cents, p.Tempo, p.Warp, p.Noise, p.SNR, p.RT60, p.Phone, p.Codec, p.LevelDB, p.Seed)
}

// Draw picks a plan within r from seed (the same seed, the same plan).
func Draw(r Ranges, seed uint64) Plan {
	rng := rand.New(rand.NewPCG(seed, 0x61756770))
	uniform := func(lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
	p := Plan{Tempo: 1, Warp: 1, Seed: rng.Uint64()}
	p.Cents = math.Round(uniform(-r.Cents, r.Cents))
	if r.MaxTempo > 1 {
		p.Tempo = math.Pow(r.MaxTempo, uniform(-1, 1))
	}
	p.Warp = uniform(1-r.Warp, 1+r.Warp)
	if len(r.Noises) > 0 {
		p.Noise = r.Noises[rng.IntN(len(r.Noises))]
		p.SNR = uniform(r.SNR[0], r.SNR[1])
	}
	if rng.Float64() < r.Reverb {
		p.RT60 = uniform(0.1, max(r.MaxRT60, 0.1))
	}
	if rng.Float64() < r.Phone {
		p.Phone = true
		if len(r.Codecs) > 0 {
			p.Codec = r.Codecs[rng.IntN(len(r.Codecs))]
		}
	}
	p.LevelDB = uniform(-r.LevelDB, r.LevelDB)
	return p
}

// Apply makes the plan's changes to a; the result is at a's rate.
func (p Plan) Apply(a *frontend.Audio) (*frontend.Audio, error) {
	rng := rand.New(rand.NewPCG(p.Seed, 0x706c616e))
	b, err := PitchTempo(a, p.Cents, p.Tempo)
	if err == nil && p.Warp != 1 {
		b, err = VTLN(b, p.Warp)
	}
	if err == nil && p.RT60 > 0 {
		b, err = Reverb(b, p.RT60, 0.5, rng)
	}
	if err == nil && p.Noise != "" {
		b, err = Noise(b, p.Noise, p.SNR, rng)
	}
	if err == nil && p.Phone {
		if b, err = Telephone(b, p.Codec); err == nil && a.Rate != 8000 {
			b, err = frontend.Resample(b, a.Rate)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("augment %s: %w", p, err)
	}
	return Level(b, p.LevelDB), nil
}
