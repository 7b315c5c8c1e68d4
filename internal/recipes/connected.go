package recipes

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/train"
)

// ConnectedOptions are the shipped connected model's training options
// (its recipe, trainSpeech) with this machine's data folders, no log: one
// definition for the shipped model and for the laboratory's models that
// are that recipe less some voices (HeldOutConnected).
func ConnectedOptions() train.DigitStringOptions {
	o := ConnectedTraining(train.WithRealVoices(train.DefaultDigitStringOptions(), defaults.RealVoicesDir()))
	o.FSDD, o.Filler.SynthDir = defaults.FSDDDir(), defaults.SynthDigitsDir()
	if len(o.Voices.Engines.Engines) > 0 && o.Voices.Engines.Dir == "" {
		o.Voices.Engines.Dir = defaults.VoicesDir()
	}
	return o
}

// WithoutRealVoices is recipe o with nothing of the real recorded voices
// (../shared/voices): neither their digits nor their non-digit words for
// the filler. The fluent strings stay: they are joined from whatever
// recordings remain.
func WithoutRealVoices(o train.DigitStringOptions) train.DigitStringOptions {
	o.Voices.Real = train.RealVoiceTraining{}
	o.Filler.RealWords = ""
	return o
}

// WithoutEngineVoices is recipe o with no synthesiser's voice set
// (rfstream data voices): neither their digits nor their strings, nor the
// next seed's speakers its decoder would be tuned on. The filler's
// espeak-ng speakers (train.FillerOptions) are another draw and stay.
func WithoutEngineVoices(o train.DigitStringOptions) train.DigitStringOptions {
	o.Voices.Engines = train.EngineVoices{}
	o.Voices.EngineStrings = false
	o.DevVoiceSpeakers = 0
	return o
}

// ConnectedFingerprint is a short hash of a connected recipe's options,
// its data folders and logs left out (where the data lives is not the
// recipe; a folder the recipe uses counts as used): equal recipes have
// equal fingerprints. It covers options, not code.
func ConnectedFingerprint(o train.DigitStringOptions) (string, error) {
	o.FSDD, o.Log, o.Filler.SynthDir, o.Voices.Engines.Dir, o.Voices.Engines.Log = "", nil, "", "", nil
	for _, dir := range []*string{&o.Voices.Real.Dir, &o.Filler.RealWords, &o.Filler.Phrases} {
		if *dir != "" {
			*dir = "used"
		}
	}
	b, err := json.Marshal(o)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

// HeldOutConnectedPath is where HeldOutConnected keeps the model of a
// recipe with the given fingerprint in the data cache.
func HeldOutConnectedPath(fingerprint string) string {
	return filepath.Join(defaults.DataDir(), "models", "connected-recipe-"+fingerprint+".rfm")
}

// HeldOutConnected is a connected model trained with recipe o, a shipped
// recipe less the voices an evaluation holds out: the shipped model itself
// when o is the shipped recipe (it never heard those voices), else the
// data cache's model of o's fingerprint, trained first when missing (a
// connected training: minutes). It also says which it is.
func HeldOutConnected(o train.DigitStringOptions, log io.Writer) (*engine.Model, string, error) {
	fp, err := ConnectedFingerprint(o)
	if err != nil {
		return nil, "", err
	}
	shipped, err := ConnectedFingerprint(ConnectedOptions())
	if err != nil {
		return nil, "", err
	}
	if fp == shipped {
		m, err := defaults.Speech(log)
		return m, "the shipped model (recipe " + fp + ")", err
	}
	path := HeldOutConnectedPath(fp)
	m, err := LoadOrTrain(path, log, func() (*engine.Model, error) {
		o.Log = log
		m, _, err := train.DigitStrings(o)
		return m, err
	})
	return m, "recipe " + fp + " (" + path + ")", err
}

// HeldOutConnectedWithout is HeldOutConnected's model of recipe o trained
// without the FSDD speaker (its training takes out of the classifier's
// training and of the decoder's tuning), kept in the data cache under o's
// fingerprint and the speaker's name, trained first when missing.
func HeldOutConnectedWithout(o train.DigitStringOptions, speaker string, log io.Writer) (*engine.Model, string, error) {
	fp, err := ConnectedFingerprint(o)
	if err != nil {
		return nil, "", err
	}
	path := HeldOutConnectedPath(fp + "-without-" + speaker)
	m, err := LoadOrTrain(path, log, func() (*engine.Model, error) {
		recs, err := datasets.FSDD(o.FSDD)
		if err != nil {
			return nil, err
		}
		trainRecs, _ := datasets.OfficialSplit(recs)
		trainRecs, own := datasets.SpeakerSplit(trainRecs, speaker)
		if len(own) == 0 {
			return nil, fmt.Errorf("recipes: FSDD has no speaker %q", speaker)
		}
		o.Log = log
		m, rep, err := train.DigitStringsOn(o, trainRecs, train.HeldOutTake)
		if err == nil && o.Tune {
			rep.Tuning, err = train.TuneDigitStrings(o, m, trainRecs)
		}
		return m, err
	})
	return m, "recipe " + fp + " without " + speaker + " (" + path + ")", err
}
