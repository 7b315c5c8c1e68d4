package streaming

import (
	"os"
	"sync"
	"time"

	"github.com/rfstream/rfstream/engine"
)

// taughtVoices are the voices a connected pipeline's model was taught
// (`rfstream enroll`), read from Pipeline.VoiceDir for the features stage:
// a segment whose stream names a voice (HdrVoice, set by the frontend) is
// scored with that voice's read-out when the voice folder holds one for
// the model, else with the model's. A voice file is read again when it
// changes (a new enrolment), so a running serve hears what was taught
// since it started. One that cannot be read is passed over: the model
// hears the voice as it hears any other.
type taughtVoices struct {
	mu     sync.Mutex
	byName map[string]taughtVoice
}

type taughtVoice struct {
	mod  time.Time
	size int64
	c    *engine.Connected
}

// maxTaughtVoices bounds the voices kept read; beyond it the cache starts
// afresh (each costs the model's read-out, 730 KB for the default model).
const maxTaughtVoices = 256

// recognizer is the connected recogniser for a segment of the voice named
// name (the model's when name is "" or the voice was not taught to it).
func (t *taughtVoices) recognizer(p *Pipeline, name string) *engine.Connected {
	c := p.Connected
	if name == "" || p.VoiceDir == "" {
		return c
	}
	path, err := c.VoicePath(p.VoiceDir, name)
	if err != nil {
		return c
	}
	fi, err := os.Stat(path)
	if err != nil {
		return c
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if v, ok := t.byName[name]; ok && v.mod.Equal(fi.ModTime()) && v.size == fi.Size() {
		return v.c
	}
	v, err := c.LoadVoice(path)
	if err != nil {
		return c
	}
	if t.byName == nil || len(t.byName) >= maxTaughtVoices {
		t.byName = map[string]taughtVoice{}
	}
	t.byName[name] = taughtVoice{mod: fi.ModTime(), size: fi.Size(), c: v.Connected()}
	return v.Connected()
}
