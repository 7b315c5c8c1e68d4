package streaming

import (
	"fmt"
	"sync"

	"github.com/rfstream/rfstream/engine"
)

// voiceWriter writes voice files on goroutines of its own, one per voice
// with writes pending, so the frontend stage, which serves every stream
// under one lock, holds it only to copy a session (VoiceSession.Clone)
// and not for the encoding and the write (6 ms for a voice of 500
// recordings: docs/streaming.md, "Voice files").
//
// Writes of one voice are made one at a time, in the order they were
// asked for; a copy that arrives while an older one waits replaces it
// (the newer copy holds every recording the older one does), and what was
// to follow the older write follows the newer. Every write is asked for
// under the stage's lock, and the writer never takes that lock, so a
// caller holding it may wait for a voice's writes (wait).
type voiceWriter struct {
	mu     sync.Mutex
	voices map[string]*voiceWrites
	wg     sync.WaitGroup
}

// voiceWrites is one voice's writes: the copy waiting to be written, the
// calls to make once it is, and a channel closed when nothing of the voice
// is waiting or being written.
type voiceWrites struct {
	path string
	next *engine.VoiceSession
	then []func(error)
	idle chan struct{}
}

// write asks for session (a copy no one else changes) to be written to
// path, then then (when not nil) to be called, on the writer's goroutine,
// with the outcome.
func (w *voiceWriter) write(name, path string, session *engine.VoiceSession, then func(error)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.voices == nil {
		w.voices = map[string]*voiceWrites{}
	}
	q := w.voices[name]
	if q == nil {
		q = &voiceWrites{idle: make(chan struct{})}
		w.voices[name] = q
		w.wg.Add(1)
		go w.run(name, q)
	}
	q.path, q.next = path, session
	if then != nil {
		q.then = append(q.then, then)
	}
}

// busy reports whether a write of the voice waits or runs.
func (w *voiceWriter) busy(name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.voices[name] != nil
}

func (w *voiceWriter) run(name string, q *voiceWrites) {
	defer w.wg.Done()
	for {
		w.mu.Lock()
		session, path, then := q.next, q.path, q.then
		q.next, q.then = nil, nil
		if session == nil {
			delete(w.voices, name)
			close(q.idle)
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		err := saveVoiceFile(path, session)
		if err != nil {
			err = fmt.Errorf("voice %q: %w", name, err)
		}
		for _, f := range then {
			f(err)
		}
	}
}

// wait returns once nothing of the voice is waiting or being written.
func (w *voiceWriter) wait(name string) {
	w.mu.Lock()
	q := w.voices[name]
	w.mu.Unlock()
	if q != nil {
		<-q.idle
	}
}

// saveVoiceFile is VoiceSession.Save (tests replace it).
var saveVoiceFile = func(path string, s *engine.VoiceSession) error { return s.Save(path) }

// waitAll returns once no voice's file is waiting or being written.
func (w *voiceWriter) waitAll() { w.wg.Wait() }
