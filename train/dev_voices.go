package train

import (
	"fmt"
	"slices"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
)

// FSDDDevGroup is the DevUtterance.Group of the tuning strings joined from
// FSDD's held-out takes; a synthesiser's dev strings are grouped by its
// name.
const FSDDDevGroup = "fsdd"

// devVoiceSet is the voice set the tuning strings of DevVoiceSpeakers come
// from: the training set's options (the default when unset) with another
// seed, so its speakers' pitches and tempos are not the trained speakers',
// no digit said alone, and DevVoiceSpeakers speakers of 10 strings.
func (o DigitStringOptions) devVoiceSet() datasets.VoiceSetOptions {
	set := o.Voices.Engines.Set
	if set == (datasets.VoiceSetOptions{}) {
		set = datasets.DefaultVoiceSetOptions()
	}
	set.Seed++
	set.Speakers, set.Takes, set.Strings = o.DevVoiceSpeakers, 0, 10
	return set
}

// devVoiceStrings are the whole spoken strings of DevVoiceSpeakers new
// speakers of each engine the recipe trains on (o.Voices.Engines), padded
// as the training strings are, grouped by engine: tuning on them tells the
// decoder about fluent speech of voices it never heard. None when the
// recipe trains on no engine or DevVoiceSpeakers is 0.
func (o DigitStringOptions) devVoiceStrings(rate int) ([]DevUtterance, error) {
	if o.DevVoiceSpeakers <= 0 || len(o.Voices.Engines.Engines) == 0 {
		return nil, nil
	}
	ev := o.Voices.Engines
	if ev.Dir == "" {
		return nil, fmt.Errorf("train: tuning on engine voices needs their folder (ConnectedVoices.Engines.Dir)")
	}
	ev.Set = o.devVoiceSet()
	if ev.Log == nil {
		ev.Log = o.Log
	}
	sets, err := BuildEngineVoices(ev, ev.SkipMissing, ev.Log)
	if err != nil {
		return nil, err
	}
	var dev []DevUtterance
	for _, s := range sets {
		// A different seed draws different pitches and tempos; refuse
		// a speaker the training set has too, should the draws agree.
		trained, err := trainedSpeakers(o.Voices.Engines.Set, s.Engine)
		if err != nil {
			return nil, err
		}
		utts, err := engineStrings([]datasets.VoiceSet{s}, rate, o.PadMin, o.PadMax, o.Map.Seed^0x646576)
		if err != nil {
			return nil, err
		}
		for i, u := range utts {
			if slices.Contains(trained, s.Strings[i].Speaker) {
				return nil, fmt.Errorf("train: dev voice %s is also a training speaker", s.Strings[i].Speaker)
			}
			dev = append(dev, DevUtterance{Audio: &frontend.Audio{Rate: rate, Samples: u.Samples}, Words: u.Words, Group: s.Engine})
		}
	}
	return dev, nil
}

// trainedSpeakers names the speakers of engine's training voice set.
func trainedSpeakers(set datasets.VoiceSetOptions, engine string) ([]string, error) {
	if set == (datasets.VoiceSetOptions{}) {
		set = datasets.DefaultVoiceSetOptions()
	}
	e, err := datasets.EngineByName(engine)
	if err != nil {
		return nil, err
	}
	table, err := datasets.SpeakerTable(e, set)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(table))
	for i, sp := range table {
		names[i] = sp.Name()
	}
	return names, nil
}
