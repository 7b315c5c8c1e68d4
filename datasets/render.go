package datasets

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rfstream/rfstream/frontend"
)

// Span is where one word of a rendered string lies, in seconds.
type Span struct {
	Word       string
	Start, End float64
}

// Noise is background noise added to a whole rendered signal.
type Noise struct {
	// Kind is "white", "pink" or "brown"; "" adds none.
	Kind string
	// SNR is the ratio of the words' mean power to the noise power, in dB.
	SNR float64
}

// Silence is n samples of white noise at RMS level: the pause between two
// words continues the room's background instead of dropping to digital zero,
// which no microphone produces.
func Silence(n int, level float64, rng *rand.Rand) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(level * rng.NormFloat64())
	}
	return out
}

// PadSilence returns samples with lead and trail seconds of background-level
// silence on either side.
func PadSilence(samples []float32, rate int, lead, trail float64, rng *rand.Rand) []float32 {
	level := frontend.NoiseFloor(samples, rate)
	out := Silence(int(lead*float64(rate)), level, rng)
	out = append(out, samples...)
	return append(out, Silence(int(trail*float64(rate)), level, rng)...)
}

// PauseRendering names how RenderString renders pauses. A model trained
// on rendered strings learns their pauses and records this name, so one
// trained on another rendering can be recognised and retrained.
const PauseRendering = "background (all-pole model of the quietest stretches)"

// RenderString builds the audio of a planned string at rate: the parts'
// recordings joined by pauses of their own background (EstimateBackground:
// its spectrum and level), then noise at the requested SNR. It returns
// the audio and each word's span.
func RenderString(p StringPlan, rate int, noise Noise, seed uint64) (*frontend.Audio, []Span, error) {
	if len(p.Parts) == 0 {
		return nil, nil, fmt.Errorf("datasets: string of no parts")
	}
	if len(p.Gaps) != len(p.Parts)+1 {
		return nil, nil, fmt.Errorf("datasets: string of %d parts with %d gaps", len(p.Parts), len(p.Gaps))
	}
	parts := make([][]float32, len(p.Parts))
	rooms := make([]frontend.Background, len(p.Parts))
	for i, r := range p.Parts {
		a, err := frontend.ReadAudio(r.Path, rate)
		if err != nil {
			return nil, nil, err
		}
		parts[i] = a.Samples
		rooms[i] = frontend.EstimateBackground(a.Samples, rate)
	}
	// One room for the whole string: the pauses continue the background
	// of the word whose background level is the median.
	byLevel := slices.Clone(rooms)
	slices.SortStableFunc(byLevel, func(x, y frontend.Background) int { return cmp.Compare(x.Level, y.Level) })
	room := byLevel[len(byLevel)/2]
	rng := rand.New(rand.NewPCG(seed, 0x72656e64))
	var out []float32
	var spans []Span
	var speechPower float64
	var speechN int
	for i, s := range parts {
		out = append(out, room.Noise(int(p.Gaps[i]*float64(rate)), rng)...)
		start := len(out)
		out = append(out, s...)
		spans = append(spans, Span{Word: p.Parts[i].Label, Start: float64(start) / float64(rate), End: float64(len(out)) / float64(rate)})
		for _, v := range s {
			speechPower += float64(v) * float64(v)
		}
		speechN += len(s)
	}
	out = append(out, room.Noise(int(p.Gaps[len(parts)]*float64(rate)), rng)...)
	if speechN > 0 {
		if err := AddNoise(out, speechPower/float64(speechN), noise, rng); err != nil {
			return nil, nil, err
		}
	}
	normalisePeak(out)
	return &frontend.Audio{Rate: rate, Samples: out}, spans, nil
}

// AddNoise adds noise of the given kind to x so that signalPower over the
// noise's power is noise.SNR dB.
func AddNoise(x []float32, signalPower float64, noise Noise, rng *rand.Rand) error {
	var n []float64
	switch noise.Kind {
	case "":
		return nil
	case "white":
		n = make([]float64, len(x))
		for i := range n {
			n[i] = rng.NormFloat64()
		}
	case "pink":
		n = pinkNoise(len(x), rng)
	case "brown":
		n = brownNoise(len(x), rng)
	default:
		return fmt.Errorf("datasets: noise kind %q (white, pink, brown)", noise.Kind)
	}
	MixNoise(x, signalPower, n, noise.SNR)
	return nil
}

// pinkNoise filters white noise through Paul Kellet's economy 1/f filter
// (three first-order sections, within about 0.5 dB of −3 dB/octave over the
// audio band).
func pinkNoise(n int, rng *rand.Rand) []float64 {
	out := make([]float64, n)
	var b0, b1, b2 float64
	for i := range out {
		w := rng.NormFloat64()
		b0 = 0.99765*b0 + w*0.0990460
		b1 = 0.96300*b1 + w*0.2965164
		b2 = 0.57000*b2 + w*1.0526913
		out[i] = b0 + b1 + b2 + w*0.1848
	}
	return out
}

// normalisePeak scales x down when its peak exceeds 0.99, so a 16-bit file
// does not clip; the SNR is unchanged.
func normalisePeak(x []float32) {
	var peak float64
	for _, v := range x {
		peak = max(peak, math.Abs(float64(v)))
	}
	if peak > 0.99 {
		g := float32(0.99 / peak)
		for i := range x {
			x[i] *= g
		}
	}
}

// Voice is a synthetic speaker: an espeak-ng voice (with variant, e.g.
// "en+f3"), a speed in words per minute and a pitch (0–99).
type Voice struct {
	Name  string
	Speed int
	Pitch int
}

func (v Voice) String() string { return fmt.Sprintf("%s/s%d/p%d", v.Name, v.Speed, v.Pitch) }

// Espeak synthesises text with espeak-ng in voice v, resampled to rate.
func Espeak(text string, v Voice, rate int) (*frontend.Audio, error) {
	a, _, err := espeak(text, v, rate, false)
	return a, err
}

// EspeakPhonemes synthesises text like Espeak and also returns what
// espeak-ng says it spoke: its phoneme mnemonics (-x) with phonemes
// separated by '_' and words by spaces, from the same call, so the
// transcription is that of the voice's own accent.
func EspeakPhonemes(text string, v Voice, rate int) (*frontend.Audio, string, error) {
	return espeak(text, v, rate, true)
}

func espeak(text string, v Voice, rate int, phonemes bool) (*frontend.Audio, string, error) {
	if strings.HasPrefix(v.Name, "-") || strings.HasPrefix(text, "-") {
		return nil, "", fmt.Errorf("datasets: espeak voice %q / text %q may not start with '-'", v.Name, text)
	}
	tmp, err := os.MkdirTemp("", "rfstream-espeak-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "s.wav")
	args := []string{"-v", v.Name, "-s", strconv.Itoa(v.Speed), "-p", strconv.Itoa(v.Pitch), "-w", out}
	if phonemes {
		args = append(args, "-x", "--sep=_")
	}
	cmd := exec.Command("espeak-ng", append(args, "--", text)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, "", fmt.Errorf("espeak-ng (is it installed?): %v: %s", err, strings.TrimSpace(stderr.String()+stdout.String()))
	}
	a, err := frontend.ReadAudio(out, rate)
	return a, strings.TrimSpace(stdout.String()), err
}

// DigitText is how a synthesiser should say a digit string: the digits'
// names, so no synthesiser reads "1 2" as "twelve".
func DigitText(digits []string) (string, error) {
	words := make([]string, len(digits))
	for i, d := range digits {
		k, err := strconv.Atoi(d)
		if err != nil || k < 0 || k > 9 {
			return "", fmt.Errorf("datasets: %q is not a digit", d)
		}
		words[i] = DigitWords[k]
	}
	return strings.Join(words, " "), nil
}
