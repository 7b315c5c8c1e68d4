package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rfstream/rfstream/frontend"
)

// Sexes of a speaker table.
const (
	Male   = "male"
	Female = "female"
)

// EngineVoice is one voice a synthesiser ships, with the sex of the
// speaker it was built from (or, for a rule-based voice, the sex it is
// meant to sound).
type EngineVoice struct {
	Name string
	Sex  string
}

// SayJob is one file for an engine to speak: Text in Voice, its pitch moved
// by Cents and its tempo multiplied by Tempo (through the engine's own
// controls where it has them, sox otherwise), written to Path as 16-bit WAV
// at Rate.
type SayJob struct {
	Text  string
	Voice string
	Cents float64
	Tempo float64
	Rate  int
	Path  string
}

// Engine is a speech synthesiser used as a corpus source.
type Engine interface {
	Name() string
	// Available says why the engine cannot run here (nil: it can).
	Available() error
	Voices() []EngineVoice
	// Say renders the jobs; an engine may batch them into one process.
	Say(jobs []SayJob) error
}

// Engines are the synthesisers rfstream knows, in a fixed order; whether
// each runs here is Available's answer. MBROLA voices (espeak-ng's
// mb-us1…) are not among them: Debian's archive has no mbrola package.
func Engines() []Engine {
	return []Engine{EspeakEngine{}, FliteEngine{}, FestivalEngine{}}
}

// EngineByName finds one of Engines.
func EngineByName(name string) (Engine, error) {
	var names []string
	for _, e := range Engines() {
		if e.Name() == name {
			return e, nil
		}
		names = append(names, e.Name())
	}
	return nil, fmt.Errorf("datasets: unknown synthesiser %q (%s)", name, strings.Join(names, ", "))
}

// Speaker is one row of a speaker table: an engine's voice at a base pitch
// shift and tempo, so one engine voice gives several speakers.
type Speaker struct {
	Engine string
	Voice  string
	Sex    string
	Cents  float64 // base pitch shift
	Tempo  float64 // base tempo factor (above 1: faster)
}

// Name is the speaker label of its recordings: engine, voice, pitch and
// tempo, apart from every FSDD speaker's name.
func (s Speaker) Name() string {
	return fmt.Sprintf("%s:%s/c%+.0f/t%.2f", s.Engine, s.Voice, s.Cents, s.Tempo)
}

// VoiceSetOptions shape BuildVoiceSet for one engine.
type VoiceSetOptions struct {
	// Speakers is how many speakers to draw: engine voices in turn, each
	// at a base pitch within ±Cents and tempo within [1/MaxTempo, MaxTempo].
	Speakers int
	Cents    float64
	MaxTempo float64
	// Takes of each digit alone per speaker, each jittered by up to
	// ±50 cents and ±5 % tempo around the speaker's base.
	Takes int
	// Strings of 2–7 digits per speaker.
	Strings int
	Seed    uint64
	Rate    int
	// BalanceSexes draws male and female voices alternately (where the
	// engine has both) instead of every voice in turn.
	BalanceSexes bool
}

// DefaultVoiceSetOptions: twelve speakers per engine, ±200 cents (a male
// voice moved further starts to sound like a woman, which a gender split
// must not be given) and 0.8–1.25× tempo, four takes of each digit and ten
// strings each, at FSDD's 8000 Hz.
func DefaultVoiceSetOptions() VoiceSetOptions {
	return VoiceSetOptions{Speakers: 12, Cents: 200, MaxTempo: 1.25, Takes: 4, Strings: 10, Seed: 1, Rate: 8000}
}

func (o VoiceSetOptions) check() error {
	switch {
	case o.Speakers < 1 || o.Speakers > 1000:
		return fmt.Errorf("datasets: %d speakers per engine (1 to 1000)", o.Speakers)
	case o.Takes < 0 || o.Takes > 100 || o.Strings < 0 || o.Strings > 1000 || o.Takes+o.Strings == 0:
		return fmt.Errorf("datasets: %d takes and %d strings per speaker (0–100, 0–1000, not both 0)", o.Takes, o.Strings)
	case o.Cents < 0 || o.Cents > 1200 || o.MaxTempo < 1 || o.MaxTempo > 2:
		return fmt.Errorf("datasets: pitch range ±%g cents (0–1200), tempo up to %g× (1–2)", o.Cents, o.MaxTempo)
	case o.Rate < 4000 || o.Rate > 48000:
		return fmt.Errorf("datasets: voices at %d Hz (4000–48000)", o.Rate)
	}
	return nil
}

// SpeakerTable draws o.Speakers speakers of engine e from o.Seed: the
// engine's voices in turn (so every voice, hence both sexes where the engine
// has them, appears), each at a seeded base pitch and tempo.
func SpeakerTable(e Engine, o VoiceSetOptions) ([]Speaker, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	voices := e.Voices()
	if len(voices) == 0 {
		return nil, fmt.Errorf("datasets: %s has no voices", e.Name())
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x73706b72))
	order := rng.Perm(len(voices))
	pick := func(i int) EngineVoice { return voices[order[i%len(voices)]] }
	if o.BalanceSexes {
		pick = balancedPick(voices, order)
	}
	out := make([]Speaker, o.Speakers)
	for i := range out {
		v := pick(i)
		out[i] = Speaker{Engine: e.Name(), Voice: v.Name, Sex: v.Sex,
			Cents: roundTo(o.Cents*(2*rng.Float64()-1), 1), Tempo: roundTo(logUniform(rng, o.MaxTempo), 0.01)}
	}
	return out, nil
}

// balancedPick alternates the sexes (where the engine has both), each
// sex's voices in turn in order.
func balancedPick(voices []EngineVoice, order []int) func(int) EngineVoice {
	bySex := map[string][]EngineVoice{}
	for _, k := range order {
		bySex[voices[k].Sex] = append(bySex[voices[k].Sex], voices[k])
	}
	if len(bySex[Male]) == 0 || len(bySex[Female]) == 0 {
		return func(i int) EngineVoice { return voices[order[i%len(voices)]] }
	}
	return func(i int) EngineVoice {
		sex := []string{Male, Female}[i%2]
		return bySex[sex][(i/2)%len(bySex[sex])]
	}
}

// VoiceSet is one engine's corpus: its speaker table, the digits said
// alone (labels "0"–"9") and the digit strings.
type VoiceSet struct {
	Engine   string
	Speakers []Speaker
	Digits   []Recording
	Strings  []Utterance
}

// Sexes counts the speakers of each sex.
func (v VoiceSet) Sexes() map[string]int {
	n := map[string]int{}
	for _, s := range v.Speakers {
		n[s.Sex]++
	}
	return n
}

// SpeakerSex maps speaker names to their sex.
func (v VoiceSet) SpeakerSex() map[string]string {
	m := make(map[string]string, len(v.Speakers))
	for _, s := range v.Speakers {
		m[s.Name()] = s.Sex
	}
	return m
}

// BuildVoiceSet writes engine e's corpus under dir (one folder per engine
// and option set, reused when complete) and returns it. Every draw comes
// from o.Seed in a fixed order and the engines are deterministic, so a seed
// gives the same files byte for byte. progress, when not nil, is called
// with the number of files written at each step.
func BuildVoiceSet(dir string, e Engine, o VoiceSetOptions, progress func(files int)) (VoiceSet, error) {
	speakers, err := SpeakerTable(e, o)
	if err != nil {
		return VoiceSet{}, err
	}
	if err := e.Available(); err != nil {
		return VoiceSet{}, err
	}
	set := VoiceSet{Engine: e.Name(), Speakers: speakers}
	name := fmt.Sprintf("%s-n%d-c%g-x%g-t%d-k%d-s%d-r%d", e.Name(), o.Speakers, o.Cents, o.MaxTempo, o.Takes, o.Strings, o.Seed, o.Rate)
	if o.BalanceSexes {
		name += "-balanced"
	}
	out := filepath.Join(dir, name)
	stamp := fmt.Sprintf("v1 %s %+v\n", e.Name(), o)
	digits, strs := filepath.Join(out, "digits.tsv"), filepath.Join(out, "strings.tsv")
	read := func() error {
		set.Digits, set.Strings, err = readVoiceSet(digits, strs, o)
		return err
	}
	err = buildOnce(out, stamp, func() bool { return read() == nil }, func() error {
		jobs, recs, utts, err := planVoiceSet(speakers, o, out)
		if err != nil {
			return err
		}
		if err := sayInBatches(e, jobs, o, progress); err != nil {
			return err
		}
		if err := writeManifest(digits, recs); err != nil {
			return err
		}
		if err := WriteTranscripts(strs, utts); err != nil {
			return err
		}
		if err := writeSpeakerTable(filepath.Join(out, "speakers.tsv"), speakers); err != nil {
			return err
		}
		return read()
	})
	return set, err
}

// planVoiceSet lists every file to speak (with its seeded jitter), the
// digit recordings and the string utterances, in a fixed order.
func planVoiceSet(speakers []Speaker, o VoiceSetOptions, out string) ([]SayJob, []Recording, []Utterance, error) {
	rng := rand.New(rand.NewPCG(o.Seed, 0x7361796a))
	var jobs []SayJob
	var recs []Recording
	var utts []Utterance
	job := func(s Speaker, text, path string) {
		jobs = append(jobs, SayJob{Text: text, Voice: s.Voice, Rate: o.Rate, Path: path,
			Cents: roundTo(s.Cents+100*rng.Float64()-50, 1), Tempo: roundTo(s.Tempo*(0.95+0.1*rng.Float64()), 0.01)})
	}
	for si, s := range speakers {
		for d := range DigitWords {
			for t := 0; t < o.Takes; t++ {
				path := filepath.Join(out, fmt.Sprintf("%d_s%03d_%d.wav", d, si, t))
				job(s, DigitWords[d], path)
				recs = append(recs, Recording{Path: path, Label: strconv.Itoa(d), Speaker: s.Name(), Take: -1})
			}
		}
		for k := 0; k < o.Strings; k++ {
			words := make([]string, 2+rng.IntN(6))
			for i := range words {
				words[i] = strconv.Itoa(rng.IntN(10))
			}
			text, err := DigitText(words)
			if err != nil {
				return nil, nil, nil, err
			}
			path := filepath.Join(out, fmt.Sprintf("str_s%03d_%03d.wav", si, k))
			job(s, text, path)
			utts = append(utts, Utterance{Path: path, Words: words, Speaker: s.Name()})
		}
	}
	return jobs, recs, utts, nil
}

// sayInBatches hands the engine the jobs a batch at a time, so progress
// moves and a batching engine still starts few processes; every file then
// gets the same seeded room edges as the espeak-ng digits.
func sayInBatches(e Engine, jobs []SayJob, o VoiceSetOptions, progress func(int)) error {
	const batch = 40
	rng := rand.New(rand.NewPCG(o.Seed, 0x726f6f6d))
	seeds := make([]uint64, len(jobs))
	for i := range seeds {
		seeds[i] = rng.Uint64()
	}
	for at := 0; at < len(jobs); at += batch {
		part := jobs[at:min(at+batch, len(jobs))]
		if err := e.Say(part); err != nil {
			return fmt.Errorf("%s: %w", e.Name(), err)
		}
		for i, j := range part {
			if err := roomEdgesFile(j.Path, o.Rate, seeds[at+i]); err != nil {
				return err
			}
		}
		if progress != nil {
			progress(len(part))
		}
	}
	return nil
}

// SayInRoom renders jobs (all at one rate) with engine e, every file then
// given the room of the corpus' takes (background before and after, noise
// floor, level) drawn from seed: new texts heard as BuildVoiceSet's are.
func SayInRoom(e Engine, jobs []SayJob, seed uint64) error {
	if len(jobs) == 0 {
		return nil
	}
	return sayInBatches(e, jobs, VoiceSetOptions{Seed: seed, Rate: jobs[0].Rate}, nil)
}

func readVoiceSet(digits, strs string, o VoiceSetOptions) ([]Recording, []Utterance, error) {
	var recs []Recording
	var utts []Utterance
	var err error
	if o.Takes > 0 {
		if recs, err = ReadManifest(digits); err != nil {
			return nil, nil, err
		}
	}
	if o.Strings > 0 {
		if utts, err = ReadTranscripts(strs); err != nil {
			return nil, nil, err
		}
	}
	if len(recs) != o.Speakers*o.Takes*10 || len(utts) != o.Speakers*o.Strings {
		return nil, nil, fmt.Errorf("datasets: %s lists %d digits and %d strings, want %d and %d", filepath.Dir(digits),
			len(recs), len(utts), o.Speakers*o.Takes*10, o.Speakers*o.Strings)
	}
	return recs, utts, nil
}

func writeManifest(path string, recs []Recording) error {
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", filepath.Base(r.Path), r.Label, r.Speaker)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// writeSpeakerTable writes the table for people to read; BuildVoiceSet
// draws it again from the seed rather than parsing it.
func writeSpeakerTable(path string, speakers []Speaker) error {
	var b strings.Builder
	b.WriteString("# speaker\tengine\tvoice\tsex\tcents\ttempo\n")
	for _, s := range speakers {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%.0f\t%.2f\n", s.Name(), s.Engine, s.Voice, s.Sex, s.Cents, s.Tempo)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// roomEdgesFile reads a written take, resamples it to rate and gives it
// roomEdges' background and level.
func roomEdgesFile(path string, rate int, seed uint64) error {
	a, err := frontend.ReadAudio(path, rate)
	if err != nil {
		return err
	}
	if len(a.Samples) == 0 {
		return fmt.Errorf("datasets: %s: the synthesiser said nothing", path)
	}
	a.Samples = roomEdges(a.Samples, rate, seed)
	return writeWAV(path, a)
}

// logUniform draws a factor between 1/most and most, uniform in its log.
func logUniform(rng *rand.Rand, most float64) float64 {
	if most <= 1 {
		return 1
	}
	return math.Pow(most, 2*rng.Float64()-1)
}

func roundTo(x, step float64) float64 { return math.Round(x/step) * step }

// SpeakersOfSex lists, sorted, the speakers of sets of one sex, for
// gender splits.
func SpeakersOfSex(sets []VoiceSet, sex string) []string {
	var out []string
	for _, v := range sets {
		for _, s := range v.Speakers {
			if s.Sex == sex {
				out = append(out, s.Name())
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
