package datasets

import (
	"errors"
	"math"
	"os/exec"
	"slices"

	"github.com/rfstream/rfstream/internal/parallel"
)

// EspeakEngine is espeak-ng as a corpus source: its English accents, each
// with every voice variant of synthVariants.
type EspeakEngine struct{}

func (EspeakEngine) Name() string { return "espeak-ng" }

func (EspeakEngine) Available() error {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		return errors.New("espeak-ng is not installed (Debian: apt-get install espeak-ng)")
	}
	return nil
}

// femaleVariants are the variants of synthVariants whose espeak-ng voice
// file says "gender female" (espeak-ng-data/voices/!v); the rest are male.
var femaleVariants = []string{"f1", "f2", "f3", "f4", "f5", "Annie", "aunty", "belinda", "grandma", "linda", "steph", "steph2", "anika"}

// VariantSex is the sex of an espeak-ng voice variant.
func VariantSex(variant string) string {
	if slices.Contains(femaleVariants, variant) {
		return Female
	}
	return Male
}

// Sex is the sex of the synthetic speaker's voice variant.
func (s SynthSpeaker) Sex() string {
	_, variant, _ := cutPlus(s.Voice.Name)
	return VariantSex(variant)
}

func cutPlus(name string) (accent, variant string, ok bool) {
	for i := range name {
		if name[i] == '+' {
			return name[:i], name[i+1:], true
		}
	}
	return name, "", false
}

func (EspeakEngine) Voices() []EngineVoice {
	var out []EngineVoice
	for _, v := range synthVariants {
		for _, a := range synthAccents {
			out = append(out, EngineVoice{Name: a + "+" + v, Sex: VariantSex(v)})
		}
	}
	return out
}

// Say speaks each job with espeak-ng's own controls: pitch 50 (its
// default) moved by a point per 12 cents, speed 160 words per minute times
// the tempo.
func (EspeakEngine) Say(jobs []SayJob) error {
	return parallel.ForErr(len(jobs), func(i int) error {
		j := jobs[i]
		v := Voice{Name: j.Voice, Speed: int(math.Round(160 * j.Tempo)),
			Pitch: min(99, max(0, 50+int(math.Round(j.Cents/12))))}
		a, err := Espeak(j.Text, v, j.Rate)
		if err != nil {
			return err
		}
		return writeWAV(j.Path, a)
	})
}
