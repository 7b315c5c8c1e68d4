package datasets

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/rfstream/rfstream/frontend"
)

// ConnectedSet names one generated connected-digit test set.
type ConnectedSet struct {
	Name string
	// Noise added to FSDD strings; ignored for synthetic ones.
	Noise Noise
	// Synthetic sets are spoken by espeak-ng voices instead of FSDD speakers.
	Synthetic bool
}

// DefaultConnectedSets are the evaluation's test sets: FSDD test-split
// strings clean and with white noise at 20 and 10 dB SNR (the same strings,
// so the columns differ only by the noise), and espeak-ng strings.
var DefaultConnectedSets = []ConnectedSet{
	{Name: "clean"},
	{Name: "snr20", Noise: Noise{Kind: "white", SNR: 20}},
	{Name: "snr10", Noise: Noise{Kind: "white", SNR: 10}},
	{Name: "espeak", Synthetic: true},
}

// EspeakVoices are the synthetic speakers: voices and variants crossed with
// speeds and pitches, none of them ever in training.
var EspeakVoices = func() []Voice {
	var vs []Voice
	names := []string{"en", "en-us", "en+f3", "en+m3", "en-gb-scotland", "en-us+f2", "en+m7", "en-gb-x-rp+f4"}
	speeds := []int{130, 160, 190}
	pitches := []int{35, 50, 70}
	for i, n := range names {
		for j, s := range speeds {
			vs = append(vs, Voice{Name: n, Speed: s, Pitch: pitches[(i+j)%len(pitches)]})
		}
	}
	return vs
}()

// BuildOptions shape BuildConnectedSet.
type BuildOptions struct {
	Strings StringOptions
	Rate    int // sample rate of the written files (8000)
}

// BuildConnectedSet writes set s's WAVs and manifest.tsv under dir/s.Name,
// unless a complete copy built with the same options is already there, and
// returns the manifest's path. FSDD strings come from test (the test split
// only); synthetic ones reuse the same digit plans with espeak-ng voices.
func BuildConnectedSet(dir string, s ConnectedSet, test []Recording, o BuildOptions) (string, error) {
	if o.Rate == 0 {
		o.Rate = 8000
	}
	o.Strings.defaults()
	out := filepath.Join(dir, s.Name)
	manifest := filepath.Join(out, "manifest.tsv")
	// v2: pauses in the recordings' own background (EstimateBackground)
	// instead of white noise; a set built before is rebuilt.
	stamp := fmt.Sprintf("v2 %+v %+v rate=%d recordings=%d\n", s, o.Strings, o.Rate, len(test))
	if err := buildOnce(out, stamp, nil, func() error { return writeConnectedSet(out, manifest, s, test, o) }); err != nil {
		return "", err
	}
	return manifest, nil
}

// writeConnectedSet renders BuildConnectedSet's strings into out and lists
// them in manifest.
func writeConnectedSet(out, manifest string, s ConnectedSet, test []Recording, o BuildOptions) error {
	plans, err := PlanStrings(test, o.Strings)
	if err != nil {
		return err
	}
	var us []Utterance
	for i, p := range plans {
		var a *frontend.Audio
		speaker := p.Speaker
		if s.Synthetic {
			v := EspeakVoices[i%len(EspeakVoices)]
			speaker = v.String()
			text, err := DigitText(p.Words())
			if err != nil {
				return err
			}
			if a, err = Espeak(text, v, o.Rate); err != nil {
				return err
			}
			// Synthetic audio is digitally silent around the words: give it
			// the same kind of background and edges the FSDD strings have.
			rng := rand.New(rand.NewPCG(o.Strings.Seed, uint64(i)))
			level := 3e-4
			a.Samples = append(append(Silence(int(p.Gaps[0]*float64(o.Rate)), level, rng), a.Samples...),
				Silence(int(p.Gaps[len(p.Gaps)-1]*float64(o.Rate)), level, rng)...)
			for k := range a.Samples {
				a.Samples[k] += float32(level * rng.NormFloat64())
			}
		} else {
			if a, _, err = RenderString(p, o.Rate, s.Noise, o.Strings.Seed^uint64(i)*0x9e3779b97f4a7c15); err != nil {
				return err
			}
		}
		path := filepath.Join(out, fmt.Sprintf("%04d.wav", i))
		if err := writeWAV(path, a); err != nil {
			return err
		}
		us = append(us, Utterance{Path: path, Words: p.Words(), Speaker: speaker})
	}
	return WriteTranscripts(manifest, us)
}

func writeWAV(path string, a *frontend.Audio) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := frontend.EncodeWAV16(f, a); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
