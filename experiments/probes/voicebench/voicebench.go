// Package voicebench is what the voice probes (experiments/probes/
// voicestream, livesession and voicefiles) share: their flags for the model,
// the FSDD folder and the voice, and loading the model. Each benchmark
// measures one FSDD voice against a model trained without it, by default
// the demo's voice and the demo's model.
package voicebench

import (
	"flag"
	"log"

	"github.com/rfstream/rfstream/engine"
)

// Flags are the common flags, registered on the command line.
type Flags struct {
	Model, FSDD, Speaker *string
}

// Register registers --model, --fsdd and --speaker; call it before
// flag.Parse.
func Register() Flags {
	return Flags{
		Model:   flag.String("model", "data/models/digits-adaptable-without-george.rfm", "a voice-normalised word model trained without the speaker"),
		FSDD:    flag.String("fsdd", "../shared/fsdd/recordings", "FSDD recordings"),
		Speaker: flag.String("speaker", "george", "the FSDD voice to measure"),
	}
}

// Words loads the --model word model, or ends the program saying why.
func (f Flags) Words() *engine.WordClassifier {
	m, err := engine.LoadModel(*f.Model)
	if err != nil {
		log.Fatal(err)
	}
	words, err := engine.NewWordClassifier(m)
	if err != nil {
		log.Fatal(err)
	}
	return words
}
