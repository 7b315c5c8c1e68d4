package rfstream

import (
	"os"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/defaults"
)

// The tasks a model is trained for (Model.Task).
const (
	// TaskConnected decodes a string of words (the default digit model).
	TaskConnected = engine.TaskConnected
	// TaskWords classifies a recording as one word.
	TaskWords = engine.TaskWords
	// TaskPhones decodes a string of phones.
	TaskPhones = engine.TaskPhones
	// TaskImages tags pictures.
	TaskImages = engine.TaskImages
)

// Errors a caller may test for with errors.Is.
var (
	// ErrCorrupt: a model file failed its checksum or does not parse.
	ErrCorrupt = engine.ErrCorrupt
	// ErrCorruptVoice: a voice file failed its checksum or does not parse.
	ErrCorruptVoice = engine.ErrCorruptVoice
	// ErrOtherModel: a voice file was learnt by another model.
	ErrOtherModel = engine.ErrOtherModel
)

// Model is a trained model: the recipe of its random feature map, its
// read-out, its labels (Labels) and its task (Task), as a versioned,
// checksummed file keeps them.
type Model = engine.Model

// Load reads and verifies the model file at path.
func Load(path string) (*Model, error) { return engine.LoadModel(path) }

// DefaultModel returns the model the rfstream command uses for task when it
// is given no --model: for TaskConnected the connected digit model that
// `rfstream recognize`, `stream`, `serve` and the web page hear speech
// with; for TaskWords the adaptable digit model (`recognize --session`);
// for TaskImages the MNIST tagger; for TaskPhones the phone model `rfstream
// train phones` wrote. A user's model in the data cache ($RFSTREAM_DATA,
// else rfstream in the user's cache folder) is used; a missing digit or
// image model is trained there first, which takes minutes and reports its
// progress on standard error.
func DefaultModel(task string) (*Model, error) { return defaults.Model(task, os.Stderr) }
