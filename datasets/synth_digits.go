package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rfstream/rfstream/internal/parallel"
)

// SynthDigitOptions shape BuildSynthDigits: how many synthetic speakers say
// the ten digits, how often, and the seed that draws them.
type SynthDigitOptions struct {
	Voices int    // synthetic speakers
	Takes  int    // recordings of each digit per speaker
	Seed   uint64 // the same seed gives the same voices and the same audio
	Rate   int    // sample rate of the written files (8000)
}

// synthAccents are espeak-ng's English voices: the accent (vowels,
// intonation) of a synthetic speaker.
var synthAccents = []string{"en", "en-us", "en-gb-scotland", "en-gb-x-rp", "en-gb-x-gbclan", "en-gb-x-gbcwmd", "en-029", "en-us-nyc"}

// synthVariants are espeak-ng voice variants: they change the voice's
// formant frequencies, pitch range, breathiness and timing, which is what
// makes two synthetic speakers of one accent sound like different people.
// Whispered and robotic variants are left out: FSDD has none of either.
var synthVariants = []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "f1", "f2", "f3", "f4", "f5",
	"klatt", "klatt2", "klatt3", "klatt4", "klatt6", "adam", "Alex", "Andy", "Annie", "antonio", "aunty", "belinda",
	"benjamin", "boris", "caleb", "david", "Denis", "ed", "edward", "Gene", "gustave", "Henrique", "Hugo", "iven",
	"iven2", "iven3", "Jacky", "john", "kaukovalta", "Lee", "linda", "Marco", "max", "Michael", "michel", "Mike",
	"norbert", "pablo", "paul", "pedro", "quincy", "rob", "robert", "sandro", "shelby", "steph", "steph2", "travis",
	"victor", "zac", "grandpa", "grandma", "anika"}

// SynthSpeaker is one synthetic speaker: an espeak-ng voice with a variant,
// a base speed (words per minute) and a base pitch (0–99); each take varies
// the speed and pitch a little around them, as a person never says a word
// twice alike.
type SynthSpeaker struct {
	Voice Voice
}

// Name is the speaker label of its recordings; "espeak:" keeps it apart
// from every FSDD speaker.
func (s SynthSpeaker) Name() string { return "espeak:" + s.Voice.String() }

// SynthSpeakers draws n distinct synthetic speakers from seed.
func SynthSpeakers(n int, seed uint64) ([]SynthSpeaker, error) {
	if most := len(synthAccents) * len(synthVariants); n <= 0 || n > most {
		return nil, fmt.Errorf("datasets: %d synthetic voices requested (1 to %d)", n, most)
	}
	rng := rand.New(rand.NewPCG(seed, 0x73796e74))
	pairs := rng.Perm(len(synthAccents) * len(synthVariants))[:n]
	out := make([]SynthSpeaker, n)
	for i, p := range pairs {
		name := synthAccents[p%len(synthAccents)] + "+" + synthVariants[p/len(synthAccents)]
		out[i] = SynthSpeaker{Voice: Voice{Name: name, Speed: 120 + rng.IntN(81), Pitch: 20 + rng.IntN(61)}}
	}
	return out, nil
}

// BuildSynthDigits writes every synthetic speaker's takes of the ten digit
// words under dir (one folder per option set, reused when complete) and
// returns them as recordings labelled "0"–"9" like FSDD's, with the
// speaker's name. The audio is deterministic for the options: espeak-ng is,
// and the per-take jitter and background come from the seed.
func BuildSynthDigits(dir string, o SynthDigitOptions) ([]Recording, error) {
	return BuildSynthDigitsProgress(dir, o, nil)
}

// BuildSynthDigitsProgress is BuildSynthDigits calling progress (when not
// nil) with the number of files written at each step.
func BuildSynthDigitsProgress(dir string, o SynthDigitOptions, progress func(files int)) ([]Recording, error) {
	if o.Rate == 0 {
		o.Rate = 8000
	}
	if o.Takes <= 0 || o.Takes > 100 {
		return nil, fmt.Errorf("datasets: %d synthetic takes per digit requested (1 to 100)", o.Takes)
	}
	if o.Rate < 4000 {
		return nil, fmt.Errorf("datasets: synthetic digits at %d Hz (at least 4000)", o.Rate)
	}
	speakers, err := SynthSpeakers(o.Voices, o.Seed)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, fmt.Sprintf("v%d-t%d-s%d-r%d", o.Voices, o.Takes, o.Seed, o.Rate))
	manifest := filepath.Join(out, "manifest.tsv")
	var recs []Recording
	reuse := func() bool {
		recs, err = ReadManifest(manifest)
		return err == nil && len(recs) == o.Voices*o.Takes*10
	}
	err = buildOnce(out, fmt.Sprintf("v1 %+v\n", o), reuse, func() error {
		recs, err = writeSynthDigits(out, manifest, speakers, o, progress)
		return err
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// writeSynthDigits speaks every take of BuildSynthDigits's set into out and
// lists them in manifest.
func writeSynthDigits(out, manifest string, speakers []SynthSpeaker, o SynthDigitOptions, progress func(files int)) ([]Recording, error) {
	type job struct {
		rec   Recording
		voice Voice
		seed  uint64
	}
	var jobs []job
	rng := rand.New(rand.NewPCG(o.Seed, 0x74616b65))
	for si, s := range speakers {
		for d := range DigitWords {
			for t := 0; t < o.Takes; t++ {
				v := varyTake(s.Voice, t, rng)
				path := filepath.Join(out, fmt.Sprintf("%d_s%03d_%d.wav", d, si, t))
				jobs = append(jobs, job{Recording{Path: path, Label: strconv.Itoa(d), Speaker: s.Name(), Take: t}, v, rng.Uint64()})
			}
		}
	}
	errs := make([]error, len(jobs))
	parallel.For(len(jobs), func(i int) {
		j := jobs[i]
		d, _ := strconv.Atoi(j.rec.Label)
		a, err := Espeak(DigitWords[d], j.voice, o.Rate)
		if err != nil {
			errs[i] = fmt.Errorf("%s: %w", j.voice, err)
			return
		}
		if len(a.Samples) == 0 {
			errs[i] = fmt.Errorf("datasets: espeak-ng voice %s said nothing for %q", j.voice, DigitWords[d])
			return
		}
		a.Samples = roomEdges(a.Samples, o.Rate, j.seed)
		errs[i] = writeWAV(j.rec.Path, a)
		if progress != nil {
			progress(1)
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	recs := make([]Recording, len(jobs))
	var b []byte
	for i, j := range jobs {
		recs[i] = j.rec
		b = fmt.Appendf(b, "%s\t%s\t%s\n", filepath.Base(j.rec.Path), j.rec.Label, j.rec.Speaker)
	}
	if err := os.WriteFile(manifest, b, 0o644); err != nil {
		return nil, err
	}
	// Recordings read back from the manifest have Take −1; keep the same
	// shape whether the set was built now or found complete.
	for i := range recs {
		recs[i].Take = -1
	}
	return recs, nil
}

// roomEdges gives a synthetic word what a microphone recording has and
// espeak-ng's output lacks: a short stretch of background before and after
// (FSDD's words are cut tightly, 20–120 ms here) and a faint noise floor
// under everything, instead of digital silence; the peak is scaled to a
// level drawn between −12 and −1 dB full scale.
func roomEdges(x []float32, rate int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 0x726f6f6d))
	var peak float32
	for _, v := range x {
		peak = max(peak, v, -v)
	}
	gain := float32(1)
	if peak > 0 {
		db := -1 - 11*rng.Float64()
		gain = float32(math.Pow(10, db/20)) / peak
	}
	level := 3e-4 * (0.5 + rng.Float64())
	lead := int((0.02 + 0.1*rng.Float64()) * float64(rate))
	trail := int((0.02 + 0.1*rng.Float64()) * float64(rate))
	out := Silence(lead, level, rng)
	for _, v := range x {
		out = append(out, v*gain+float32(level*rng.NormFloat64()))
	}
	return append(out, Silence(trail, level, rng)...)
}

// varyTake is the voice of take t of a synthetic speaker: takes after the
// first vary speed by up to ±10 % and pitch by up to ±6 (of 99). Every take
// draws from rng, the first too, so the draws happen in a fixed order and a
// set does not depend on scheduling.
func varyTake(v Voice, t int, rng *rand.Rand) Voice {
	ds, dp := rng.IntN(21)-10, rng.IntN(13)-6
	if t > 0 {
		v.Speed = max(80, v.Speed+v.Speed*ds/100)
		v.Pitch = min(99, max(0, v.Pitch+dp))
	}
	return v
}
