package frontend

import "math"

// UnitWordVector removes v's mean and scales it to unit length, the last
// step of WordVector. A word vector changed afterwards (warped, or
// normalised by its voice) is made a word vector again by it.
func UnitWordVector(v []float32) {
	var mean float64
	for _, x := range v {
		mean += float64(x)
	}
	mean /= float64(len(v))
	var ss float64
	for i, x := range v {
		d := float64(x) - mean
		v[i] = float32(d)
		ss += d * d
	}
	if ss == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
}

// VoiceStats is one voice's mean, and optionally inverse standard
// deviation, of every log-mel band over all frames of its word vectors:
// speaker-level CMVN. A nil Inv scales nothing (mean removal only). A voice's microphone, room and vocal tract colour
// every word it says the same way; removing that colour leaves what
// differs between words.
type VoiceStats struct {
	Mean, Inv []float32
}

// EstimateVoice computes the statistics of one voice from its word
// vectors (frame-major, mels values per frame). With scale false every
// Inv is 1 and only the mean is removed.
func EstimateVoice(vectors [][]float32, mels int, scale bool) VoiceStats {
	sum, sq := make([]float64, mels), make([]float64, mels)
	var frames float64
	for _, v := range vectors {
		for t := 0; t+mels <= len(v); t += mels {
			for k, x := range v[t : t+mels] {
				sum[k] += float64(x)
				sq[k] += float64(x) * float64(x)
			}
			frames++
		}
	}
	st := VoiceStats{Mean: make([]float32, mels), Inv: make([]float32, mels)}
	for k := range sum {
		m := sum[k] / frames
		st.Mean[k], st.Inv[k] = float32(m), 1
		if scale {
			st.Inv[k] = float32(1 / math.Sqrt(math.Max(sq[k]/frames-m*m, 1e-12)))
		}
	}
	return st
}

// Normalise removes the voice's statistics from every frame of the word
// vector v, in place, and makes it a unit word vector again.
func (s VoiceStats) Normalise(v []float32) {
	mels := len(s.Mean)
	for t := 0; t+mels <= len(v); t += mels {
		for k := range v[t : t+mels] {
			if s.Inv == nil {
				v[t+k] -= s.Mean[k]
			} else {
				v[t+k] = (v[t+k] - s.Mean[k]) * s.Inv[k]
			}
		}
	}
	UnitWordVector(v)
}
