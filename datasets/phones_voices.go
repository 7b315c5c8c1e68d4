package datasets

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/rfstream/rfstream/frontend"
)

// PhoneEngine is a synthesiser that also says which phones it spoke and
// when: flite (-psdur) and festival (the Segment relation). espeak-ng
// prints phonemes without times; its corpus is BuildPhoneCorpus.
type PhoneEngine interface {
	Engine
	// SayPhones renders the jobs like Say and returns, per job, its
	// phones (of Phones) with their times in the written file.
	SayPhones(jobs []SayJob) ([][]TimedPhone, error)
}

// EnginePhoneOptions shape BuildEnginePhoneCorpus: o.Speakers speakers
// of the engine (SpeakerTable: its voices in turn, each at a seeded base
// pitch and tempo), each saying PerSpeaker fresh sentences, every one
// jittered by up to ±50 cents and ±5 % tempo around its speaker's base.
type EnginePhoneOptions struct {
	Speakers   int
	PerSpeaker int
	Cents      float64
	MaxTempo   float64
	Seed       uint64
	Rate       int
}

// DefaultEnginePhones: 12 speakers of 20 sentences (240 utterances, about
// 12 minutes of speech) per engine at ±200 cents and 0.8–1.25× tempo.
func DefaultEnginePhones() EnginePhoneOptions {
	return EnginePhoneOptions{Speakers: 12, PerSpeaker: 20, Cents: 200, MaxTempo: 1.25, Seed: 1, Rate: 8000}
}

func (o EnginePhoneOptions) check() error {
	if o.PerSpeaker < 1 || o.PerSpeaker > 10000 {
		return fmt.Errorf("datasets: %d sentences per speaker (1 to 10000)", o.PerSpeaker)
	}
	return VoiceSetOptions{Speakers: o.Speakers, Cents: o.Cents, MaxTempo: o.MaxTempo, Takes: 1, Rate: o.Rate}.check()
}

// EnginePhoneCorpus is one engine's phone corpus: its speakers and its
// manifest (path, phones, speaker name), with a .PHN file of phone times
// (in samples) beside every WAV.
type EnginePhoneCorpus struct {
	Engine   string
	Speakers []Speaker
	Manifest string
}

// engineSentenceSeed gives each engine its own sentences (and none of the
// espeak-ng corpus's, whose stream is the seed itself).
func engineSentenceSeed(engine string, seed uint64) uint64 {
	h := fnv.New64a()
	h.Write([]byte(engine))
	return seed ^ h.Sum64()
}

// BuildEnginePhoneCorpus writes engine e's phone corpus under dir (one
// folder per engine and option set, reused when complete). Every draw
// comes from o.Seed in a fixed order and the engines are deterministic, so
// a seed gives the same files byte for byte. progress, when not nil, is
// called with the number of files written at each step.
func BuildEnginePhoneCorpus(dir string, e PhoneEngine, o EnginePhoneOptions, progress func(files int)) (EnginePhoneCorpus, error) {
	if err := o.check(); err != nil {
		return EnginePhoneCorpus{}, err
	}
	speakers, err := SpeakerTable(e, VoiceSetOptions{Speakers: o.Speakers, Cents: o.Cents, MaxTempo: o.MaxTempo, Takes: 1, Seed: o.Seed, Rate: o.Rate})
	if err != nil {
		return EnginePhoneCorpus{}, err
	}
	out := filepath.Join(dir, fmt.Sprintf("%s-n%d-p%d-c%g-x%g-s%d-r%d", e.Name(), o.Speakers, o.PerSpeaker, o.Cents, o.MaxTempo, o.Seed, o.Rate))
	c := EnginePhoneCorpus{Engine: e.Name(), Speakers: speakers, Manifest: filepath.Join(out, "manifest.tsv")}
	return c, buildOnce(out, fmt.Sprintf("v1 %s %+v\n", e.Name(), o), nil, func() error {
		if err := e.Available(); err != nil {
			return err
		}
		return writeEnginePhoneCorpus(out, c.Manifest, e, speakers, o, progress)
	})
}

// writeEnginePhoneCorpus speaks BuildEnginePhoneCorpus's sentences into out
// and writes their phone transcripts to manifest.
func writeEnginePhoneCorpus(out, manifest string, e PhoneEngine, speakers []Speaker, o EnginePhoneOptions, progress func(files int)) error {
	sentences := Sentences(len(speakers)*o.PerSpeaker, engineSentenceSeed(e.Name(), o.Seed))
	rng := rand.New(rand.NewPCG(o.Seed, 0x70686a62))
	jobs := make([]SayJob, 0, len(sentences))
	var us []Utterance
	for si, s := range speakers {
		for k := 0; k < o.PerSpeaker; k++ {
			path := filepath.Join(out, fmt.Sprintf("s%03d_%03d.wav", si, k))
			jobs = append(jobs, SayJob{Text: sentences[len(jobs)], Voice: s.Voice, Rate: o.Rate, Path: path,
				Cents: roundTo(s.Cents+100*rng.Float64()-50, 1), Tempo: roundTo(s.Tempo*(0.95+0.1*rng.Float64()), 0.01)})
			us = append(us, Utterance{Path: path, Speaker: s.Name()})
		}
	}
	edges := make([]uint64, len(jobs))
	for i := range edges {
		edges[i] = rng.Uint64()
	}
	const batch = 40
	for at := 0; at < len(jobs); at += batch {
		part := jobs[at:min(at+batch, len(jobs))]
		timed, err := e.SayPhones(part)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name(), err)
		}
		for i, j := range part {
			if us[at+i].Words, err = finishPhoneTake(j, timed[i], o.Rate, edges[at+i]); err != nil {
				return err
			}
		}
		if progress != nil {
			progress(len(part))
		}
	}
	return WriteTranscripts(manifest, us)
}

// finishPhoneTake gives a written take its background edges (as
// BuildPhoneCorpus does: 0.1–0.4 s of noise at a fixed level on each side,
// the level also under the speech, peak-normalised), writes its phone
// times in samples as a .PHN file beside it and returns its phones.
func finishPhoneTake(j SayJob, timed []TimedPhone, rate int, seed uint64) ([]string, error) {
	if len(timed) == 0 {
		return nil, fmt.Errorf("datasets: %s said no phones for %q", j.Voice, j.Text)
	}
	a, err := frontend.ReadAudio(j.Path, rate)
	if err != nil {
		return nil, err
	}
	if len(a.Samples) == 0 {
		return nil, fmt.Errorf("datasets: %s: the synthesiser said nothing", j.Path)
	}
	noise := rand.New(rand.NewPCG(seed, 0x65646765))
	const level = 3e-4
	lead, trail := int((0.1+0.3*noise.Float64())*float64(rate)), int((0.1+0.3*noise.Float64())*float64(rate))
	speech := len(a.Samples)
	a.Samples = append(append(Silence(lead, level, noise), a.Samples...), Silence(trail, level, noise)...)
	for i := range a.Samples {
		a.Samples[i] += float32(level * noise.NormFloat64())
	}
	normalisePeak(a.Samples)
	if err := writeWAV(j.Path, a); err != nil {
		return nil, err
	}
	var phn strings.Builder
	words := make([]string, 0, len(timed))
	last := lead
	for _, p := range timed {
		s := min(max(lead+int(p.Start*float64(rate)+0.5), last), lead+speech)
		t := min(lead+int(p.End*float64(rate)+0.5), lead+speech)
		if t <= s { // shorter than a sample, or past the audio's end
			t = min(s+1, len(a.Samples))
		}
		fmt.Fprintf(&phn, "%d %d %s\n", s, t, p.Phone)
		words = append(words, p.Phone)
		last = t
	}
	return words, os.WriteFile(strings.TrimSuffix(j.Path, filepath.Ext(j.Path))+".PHN", []byte(phn.String()), 0o644)
}

// ReadEnginePhoneCorpus reads a built corpus: every utterance with its
// phone times from the .PHN beside it, checked against its transcript.
func ReadEnginePhoneCorpus(c EnginePhoneCorpus) ([]Utterance, [][]PhoneSpan, error) {
	us, err := ReadTranscripts(c.Manifest)
	if err != nil {
		return nil, nil, err
	}
	spans := make([][]PhoneSpan, len(us))
	for i, u := range us {
		phn := strings.TrimSuffix(u.Path, filepath.Ext(u.Path)) + ".PHN"
		if spans[i], err = ReadPHN(phn); err != nil {
			return nil, nil, err
		}
		if len(spans[i]) != len(u.Words) {
			return nil, nil, fmt.Errorf("%s: %d phones, the manifest lists %d", phn, len(spans[i]), len(u.Words))
		}
		for k, s := range spans[i] {
			if s.Phone != u.Words[k] {
				return nil, nil, fmt.Errorf("%s: phone %d is %q, the manifest says %q", phn, k+1, s.Phone, u.Words[k])
			}
		}
	}
	return us, spans, nil
}
