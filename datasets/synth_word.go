package datasets

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"

	"github.com/rfstream/rfstream/internal/parallel"
)

// BuildSynthWord writes every synthetic speaker of o (SynthSpeakers(o.Voices,
// o.Seed), the voices BuildSynthDigits uses with the same options) saying
// text o.Takes times under dir, in a folder of its own reused when
// complete, and returns the takes as recordings labelled label. Takes
// after the first vary speed and pitch as the digits' takes do, and every
// take gets the digits' room (background before and after, noise floor,
// level). It is how a connected digit model hears "oh" from the voices
// that say its synthetic digits.
func BuildSynthWord(dir, text, label string, o SynthDigitOptions) ([]Recording, error) {
	if o.Rate == 0 {
		o.Rate = 8000
	}
	if o.Takes <= 0 || o.Takes > 100 || o.Rate < 4000 {
		return nil, fmt.Errorf("datasets: %d synthetic takes at %d Hz (1 to 100 takes, at least 4000 Hz)", o.Takes, o.Rate)
	}
	if text == "" || !lowerWord(label) {
		return nil, fmt.Errorf("datasets: synthetic word %q labelled %q (a label is lower-case letters a–z)", text, label)
	}
	speakers, err := SynthSpeakers(o.Voices, o.Seed)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, fmt.Sprintf("%s-v%d-t%d-s%d-r%d", label, o.Voices, o.Takes, o.Seed, o.Rate))
	manifest := filepath.Join(out, "manifest.tsv")
	stamp := fmt.Sprintf("v1 %q %+v\n", text, o)
	var recs []Recording
	reuse := func() bool {
		recs, err = ReadManifest(manifest)
		return err == nil && len(recs) == o.Voices*o.Takes
	}
	err = buildOnce(out, stamp, reuse, func() error {
		recs, err = writeSynthWord(out, text, label, speakers, o)
		if err != nil {
			return err
		}
		return writeManifest(manifest, recs)
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// writeSynthWord speaks every take of BuildSynthWord's set into out.
func writeSynthWord(out, text, label string, speakers []SynthSpeaker, o SynthDigitOptions) ([]Recording, error) {
	type job struct {
		rec   Recording
		voice Voice
		seed  uint64
	}
	var jobs []job
	rng := rand.New(rand.NewPCG(o.Seed, 0x776f7264))
	for si, s := range speakers {
		for t := 0; t < o.Takes; t++ {
			v := varyTake(s.Voice, t, rng)
			path := filepath.Join(out, fmt.Sprintf("%s_s%03d_%d.wav", label, si, t))
			jobs = append(jobs, job{Recording{Path: path, Label: label, Speaker: s.Name(), Take: -1}, v, rng.Uint64()})
		}
	}
	errs := make([]error, len(jobs))
	parallel.For(len(jobs), func(i int) {
		a, err := SynthWord(text, jobs[i].voice, o.Rate, jobs[i].seed)
		if err == nil {
			err = writeWAV(jobs[i].rec.Path, a)
		}
		errs[i] = err
	})
	recs := make([]Recording, len(jobs))
	for i, j := range jobs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		recs[i] = j.rec
	}
	return recs, nil
}

// lowerWord says whether s is one or more of the letters a–z (a label that
// is safe in a file name and a manifest).
func lowerWord(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return s != ""
}
