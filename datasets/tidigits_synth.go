package datasets

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/parallel"
)

// TIDIGITSShape says what WriteTIDIGITSShaped writes: a corpus laid out
// as TIDIGITS is, spoken by espeak-ng voices instead of people.
type TIDIGITSShape struct {
	Groups        []string // speaker groups (TIDIGITSAdults when empty)
	TrainSpeakers int      // speakers per group in the training set
	TestSpeakers  int      // speakers per group in the test set
	// Strings are the connected strings each speaker says besides the 22
	// isolated words (each of the 11 words twice, takes a and b), of 2 to
	// 7 words as TIDIGITS' are.
	Strings int
	Seed    uint64
	Rate    int // 20000 when 0, TIDIGITS' rate
	// Joined builds every file from one espeak-ng call per speaker and
	// word: a take b is its take a played 4 % faster, a string is the
	// speaker's words joined by short pauses. Fast (tests); without it,
	// each file is one call and strings are spoken fluently.
	Joined bool
}

// SyntheticTIDIGITSNote is the file at the top of a synthetic corpus that
// says what it is, so every later evaluation of it can say so too.
const SyntheticTIDIGITSNote = "SYNTHETIC-TIDIGITS-SHAPED.txt"

// IsSyntheticTIDIGITS says whether dir holds a corpus WriteTIDIGITSShaped
// wrote.
func IsSyntheticTIDIGITS(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, SyntheticTIDIGITSNote))
	return err == nil
}

// groupVoices are the espeak-ng variants and pitch ranges a synthetic
// group's speakers are drawn from: male variants at low pitch for men,
// female variants for women, both raised for children.
var groupVoices = map[string]struct {
	variants         []string
	pitchLo, pitchHi int
}{
	"man":   {[]string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"}, 20, 45},
	"woman": {[]string{"f1", "f2", "f3", "f4", "f5"}, 45, 70},
	"boy":   {[]string{"m1", "m3", "m5", "m6", "m7"}, 75, 99},
	"girl":  {[]string{"f1", "f2", "f3", "f4", "f5"}, 80, 99},
}

// tidigitsJob is one file to synthesise.
type tidigitsJob struct {
	path    string
	words   []string
	take    byte
	speaker int
	voice   Voice
	big     bool
	seed    uint64
}

// WriteTIDIGITSShaped writes a synthetic TIDIGITS-shaped corpus under dir
// ({train,test}/GROUP/SPEAKER/DIGITS{a,b}.wav, NIST SPHERE at o.Rate,
// alternating byte orders by speaker) and returns how many files it wrote.
// Speakers are two letters, unique over the corpus. The same options give
// the same corpus.
func WriteTIDIGITSShaped(dir string, o TIDIGITSShape) (int, error) {
	if len(o.Groups) == 0 {
		o.Groups = TIDIGITSAdults
	}
	if o.Rate == 0 {
		o.Rate = 20000
	}
	speakers := len(o.Groups) * (o.TrainSpeakers + o.TestSpeakers)
	if o.TrainSpeakers < 0 || o.TestSpeakers < 0 || speakers == 0 || speakers > 26*26 {
		return 0, fmt.Errorf("datasets: %d speakers requested (1 to %d)", speakers, 26*26)
	}
	if o.Strings < 0 || o.Strings > 200 {
		return 0, fmt.Errorf("datasets: %d strings a speaker (0 to 200)", o.Strings)
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x74696469))
	var jobs []tidigitsJob
	n := 0
	for _, set := range []string{"train", "test"} {
		count := o.TrainSpeakers
		if set == "test" {
			count = o.TestSpeakers
		}
		for _, g := range o.Groups {
			gv, ok := groupVoices[g]
			if !ok {
				return 0, fmt.Errorf("datasets: group %q (man, woman, boy, girl)", g)
			}
			for k := 0; k < count; k++ {
				spk := string([]byte{byte('a' + n/26), byte('a' + n%26)})
				v := Voice{Name: synthAccents[rng.IntN(len(synthAccents))] + "+" + gv.variants[rng.IntN(len(gv.variants))],
					Speed: 130 + rng.IntN(51), Pitch: gv.pitchLo + rng.IntN(gv.pitchHi-gv.pitchLo+1)}
				sdir := filepath.Join(dir, set, g, spk)
				for _, t := range speakerTranscripts(o.Strings, rng) {
					name, err := TIDIGITSName(t.words, t.take)
					if err != nil {
						return 0, err
					}
					tv := v
					if t.take == 'b' { // a second take is never said alike
						tv.Speed = max(80, v.Speed+rng.IntN(21)-10)
					}
					jobs = append(jobs, tidigitsJob{filepath.Join(sdir, name), t.words, t.take, n, tv, n%2 == 1, rng.Uint64()})
				}
				if err := os.MkdirAll(sdir, 0o755); err != nil {
					return 0, err
				}
				n++
			}
		}
	}
	note := "Written by rfstream (datasets.WriteTIDIGITSShaped): espeak-ng voices laid out as TIDIGITS is; not the LDC corpus.\n"
	if err := os.WriteFile(filepath.Join(dir, SyntheticTIDIGITSNote), []byte(note), 0o644); err != nil {
		return 0, err
	}
	say := func(j tidigitsJob) (*frontend.Audio, error) { return Espeak(spokenText(j.words), j.voice, o.Rate) }
	if o.Joined {
		var err error
		if say, err = joinedSpeech(jobs, o.Rate); err != nil {
			return 0, err
		}
	}
	err := parallel.ForErr(len(jobs), func(i int) error { return writeTIDIGITSFile(jobs[i], o.Rate, say) })
	return len(jobs), err
}

// joinedSpeech synthesises every speaker's words once (their takes a: the
// isolated files of take a) and returns a sayer that builds any file of
// theirs from them.
func joinedSpeech(jobs []tidigitsJob, rate int) (func(tidigitsJob) (*frontend.Audio, error), error) {
	type key struct {
		speaker int
		word    string
	}
	var firsts []tidigitsJob
	for _, j := range jobs {
		if len(j.words) == 1 && j.take == 'a' {
			firsts = append(firsts, j)
		}
	}
	audio := make([][]float32, len(firsts))
	err := parallel.ForErr(len(firsts), func(i int) error {
		a, err := Espeak(spokenText(firsts[i].words), firsts[i].voice, rate)
		if err == nil {
			audio[i] = trimSilence(a.Samples)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	words := map[key][]float32{}
	for i, j := range firsts {
		words[key{j.speaker, j.words[0]}] = audio[i]
	}
	return func(j tidigitsJob) (*frontend.Audio, error) {
		rng := rand.New(rand.NewPCG(j.seed, 0x6a6f696e))
		var x []float32
		for i, w := range j.words {
			if i > 0 {
				x = append(x, make([]float32, int((0.05+0.15*rng.Float64())*float64(rate)))...)
			}
			x = append(x, words[key{j.speaker, w}]...)
		}
		a := &frontend.Audio{Rate: rate, Samples: x}
		if j.take == 'b' {
			return frontend.Resample(&frontend.Audio{Rate: rate * 104 / 100, Samples: x}, rate)
		}
		return a, nil
	}, nil
}

// trimSilence cuts espeak-ng's digital silence off both ends.
func trimSilence(x []float32) []float32 {
	const floor = 1e-3
	a, b := 0, len(x)
	for a < b && x[a] < floor && x[a] > -floor {
		a++
	}
	for b > a && x[b-1] < floor && x[b-1] > -floor {
		b--
	}
	return x[a:b]
}

type transcript struct {
	words []string
	take  byte
}

// speakerTranscripts are one speaker's files: each word alone twice
// (takes a and b), then strings of 2–7 words, a repeated string taking
// take b, never three of one.
func speakerTranscripts(n int, rng *rand.Rand) []transcript {
	var out []transcript
	for _, w := range TIDIGITSWords {
		out = append(out, transcript{[]string{w}, 'a'}, transcript{[]string{w}, 'b'})
	}
	lengths := []int{2, 3, 4, 5, 7}
	seen := map[string]int{}
	for len(out) < 22+n {
		words := make([]string, lengths[rng.IntN(len(lengths))])
		for i := range words {
			words[i] = TIDIGITSWords[rng.IntN(len(TIDIGITSWords))]
		}
		key := fmt.Sprint(words)
		if seen[key] == 2 {
			continue
		}
		seen[key]++
		out = append(out, transcript{words, byte('a' + seen[key] - 1)})
	}
	return out
}

// spokenText is what espeak-ng is asked to say: the words' names, "oh"
// as "oh".
func spokenText(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w == OhWord {
			out[i] = "oh"
			continue
		}
		out[i] = DigitWords[w[0]-'0']
	}
	return strings.Join(out, " ")
}

// writeTIDIGITSFile synthesises one file, sets it in a faint background
// with a quarter to half a second of it on either side (as a recording
// booth's files have), and writes it as SPHERE.
func writeTIDIGITSFile(j tidigitsJob, rate int, say func(tidigitsJob) (*frontend.Audio, error)) error {
	a, err := say(j)
	if err != nil {
		return fmt.Errorf("%s: %w", j.voice, err)
	}
	if len(a.Samples) == 0 {
		return fmt.Errorf("datasets: espeak-ng voice %s said nothing for %q", j.voice, spokenText(j.words))
	}
	rng := rand.New(rand.NewPCG(j.seed, 0x62677264))
	level := 3e-4 * (0.5 + rng.Float64())
	lead := int((0.25 + 0.25*rng.Float64()) * float64(rate))
	trail := int((0.25 + 0.25*rng.Float64()) * float64(rate))
	x := append(append(Silence(lead, level, rng), a.Samples...), Silence(trail, level, rng)...)
	for i := lead; i < lead+len(a.Samples); i++ {
		x[i] += float32(level * rng.NormFloat64())
	}
	normalisePeak(x)
	var b bytes.Buffer
	if err := frontend.EncodeSphere16(&b, &frontend.Audio{Rate: rate, Samples: x}, j.big); err != nil {
		return err
	}
	return os.WriteFile(j.path, b.Bytes(), 0o644)
}
