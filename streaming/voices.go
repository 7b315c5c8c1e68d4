package streaming

// Named voices in the frontend stage: the streams that name one voice
// (HdrVoice) share its engine.VoiceSession, kept in memory within
// Pipeline.MaxVoices and VoiceIdle, and in voice files under
// Pipeline.VoiceDir when it is set (written off the stage's lock by
// voicewriter.go). stage_frontend.go is the caller: it claims a stream's
// session here (streamVoice, newVoiceSession) and saves it at the
// stream's end (saveVoice).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/rfstream/rfstream/engine"
)

// voiceSessions are the frontend's named voices: their sessions in memory
// and the writer of their files, under the frontend's lock.
type voiceSessions struct {
	*core
	byName map[string]*namedVoice
	files  voiceWriter // writes voices' files off the frontend's lock
	// live lists the voices named by the frontend's streams that have not
	// ended, which stay in memory.
	live func() map[string]bool
}

// namedVoice is a voice's session in the frontend stage, shared by every
// stream that names the voice (HdrVoice).
type namedVoice struct {
	session *engine.VoiceSession
	last    time.Time // when a stream of the voice last finished a word
	saved   int       // recordings the session had when its file was last written (or asked to be) or read
	failed  atomic.Bool
	// openChanged: a stream's count has left session.Open since the file
	// was last written, so the next save writes even without new
	// recordings (a count left in the file would be taken for a later
	// stream of the same name).
	openChanged bool
}

// closeOpen forgets stream's count of committed recordings, with the
// frontend's lock held: the stream has ended, or started afresh.
func (v *namedVoice) closeOpen(stream string) {
	if _, ok := v.session.Open[stream]; ok {
		delete(v.session.Open, stream)
		v.openChanged = true
	}
}

// rejoinVoice settles a stream that has just claimed its named voice's
// session, with the frontend's lock held. The session's count for the
// stream (Open) is what the frontend before this one had committed of it,
// saved with the voice when it stopped: a stream taken up again from its first stored
// message (takenUp) skips committing that many final words, which the
// session already holds, and counts on from there; any other stream of
// that name is a new one, whose count starts at 0.
func (s *voiceSessions) rejoinVoice(stream string, st *frontStream) {
	v := s.byName[st.voiceName]
	if v == nil || v.session != st.voice {
		return // a session for this stream only
	}
	if st.takenUp {
		st.rejoined = v.session.Open[stream]
		return
	}
	v.closeOpen(stream)
}

// streamVoice returns the session of the voice a stream names, with the
// frontend's lock held: from memory, else from its voice file (VoiceDir),
// else new.
func (s *voiceSessions) streamVoice(stream, name string) *engine.VoiceSession {
	if v := s.byName[name]; v != nil {
		return v.session
	}
	if len(s.byName) < s.p.MaxVoices || s.evictVoice(stream) {
		v := &namedVoice{last: time.Now()}
		if v.session = s.readVoice(stream, name); v.session != nil {
			v.saved = v.session.Recordings()
		} else {
			v.session = s.newVoiceSession()
		}
		s.byName[name] = v
		return v.session
	}
	s.errorResult(stream, "all %d voice sessions are in use by live streams: voice %q gets a session for this stream only", s.p.MaxVoices, name)
	return s.newVoiceSession()
}

// voiceFile is where VoiceDir keeps a voice (rfstream's VoicePath).
func (s *voiceSessions) voiceFile(name string) (string, error) {
	return s.p.Words.VoicePath(s.p.VoiceDir, name)
}

// readVoice reads a voice's file, or returns nil when there is none (or no
// VoiceDir). A file that cannot be read is renamed aside and reported.
func (s *voiceSessions) readVoice(stream, name string) *engine.VoiceSession {
	if s.p.VoiceDir == "" {
		return nil
	}
	// The voice may have just left memory (evictVoice, the idle sweep)
	// with its file still being written. Waiting holds the stage's lock,
	// but only for a voice named again within that write's milliseconds.
	s.files.wait(name)
	path, err := s.voiceFile(name)
	var v *engine.VoiceSession
	if err == nil {
		v, err = s.p.Words.LoadVoiceSession(path)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err == nil:
		v.SelfTrain = v.SelfTrain && !s.p.NoSelfTrain
		return v
	}
	msg := fmt.Sprintf("voice %q: %v; the voice starts afresh", name, err)
	if aside, e := setAside(path); e == nil {
		msg += " (the file is kept as " + aside + ")"
	}
	s.stats.storageFault(errors.New(msg))
	s.errorResult(stream, "%s", msg)
	return nil
}

// setAside renames a file that cannot be read to path.bad (path.bad.2, …
// when that is taken, so no earlier one is overwritten) and returns the
// new name.
func setAside(path string) (string, error) {
	aside := path + ".bad"
	for i := 2; ; i++ {
		if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
			break
		} else if i > 100 {
			return "", fmt.Errorf("no free name beside %s", path)
		}
		aside = fmt.Sprintf("%s.bad.%d", path, i)
	}
	return aside, os.Rename(path, aside)
}

// saveVoice asks for a named voice's file to be written (by s.files, from
// a copy of the session) when VoiceDir is set and the session has
// committed recordings since it was last written or read, or the last
// write failed, with the frontend's lock held. It reports whether a write
// was asked for; then, when not nil, is called with the write's outcome on
// the writer's goroutine. An error before any write is returned.
func (s *voiceSessions) saveVoice(name string, v *namedVoice, then func(error)) (bool, error) {
	if s.p.VoiceDir == "" || (v.session.Recordings() == v.saved && !v.failed.Load() && !v.openChanged) {
		return false, nil
	}
	path, err := s.voiceFile(name)
	if err != nil {
		err = fmt.Errorf("voice %q: %w", name, err)
		s.stats.storageFault(err)
		return false, err
	}
	v.saved, v.openChanged = v.session.Recordings(), false
	v.failed.Store(false)
	s.files.write(name, path, v.session.Clone(), func(err error) {
		if err != nil {
			v.failed.Store(true) // the next save writes again
			s.stats.storageFault(err)
		}
		if then != nil {
			then(err)
		}
	})
	return true, nil
}

func (s *voiceSessions) newVoiceSession() *engine.VoiceSession {
	v := s.p.Words.NewVoiceSession()
	v.SelfTrain = v.SelfTrain && !s.p.NoSelfTrain
	return v
}

// evictVoice drops the named voice heard least recently that no live
// stream names from memory (asking for its file to be written), with the
// frontend's lock held, and reports whether there was one.
func (s *voiceSessions) evictVoice(stream string) bool {
	live := s.live()
	oldest := ""
	for name, v := range s.byName {
		if !live[name] && (oldest == "" || v.last.Before(s.byName[oldest].last)) {
			oldest = name
		}
	}
	if oldest == "" {
		return false
	}
	// The file is written off the lock, as at a stream's end: the stage
	// goes on serving meanwhile, and a stream that names the voice again
	// waits for the write before reading the file (readVoice).
	report := func(err error) {
		if err != nil {
			s.errorResult(stream, "saving voice %q before dropping it from memory: %v", oldest, err)
		}
	}
	_, err := s.saveVoice(oldest, s.byName[oldest], report)
	report(err)
	delete(s.byName, oldest)
	return true
}

// expire forgets the voices that no live stream names and that have had
// no word for VoiceIdle, with the frontend's lock held (its sweep's),
// asking for their files to be written.
func (s *voiceSessions) expire(now time.Time) {
	if len(s.byName) == 0 {
		return
	}
	live := s.live()
	for name, v := range s.byName {
		if !live[name] && now.Sub(v.last) > s.p.VoiceIdle {
			// Written off the lock (streamVoice waits for it before
			// reading the file again), and dropped from memory only at a
			// sweep that finds its file written: when the write fails
			// (a full disk, a directory gone) the voice stays, its
			// recordings with it, and the next sweep writes again; the
			// failure, which has no stream to go to, is counted in Stats
			// with its text. Before, the voice was dropped at once and
			// a failed write lost every recording since the last one.
			if asked, err := s.saveVoice(name, v, nil); asked || err != nil || v.failed.Load() || s.files.busy(name) {
				continue
			}
			delete(s.byName, name)
		}
	}
}

// saveAll asks for every voice's file to be written (saveVoice), with the
// frontend's lock held, as the stages close; keep is given each error.
func (s *voiceSessions) saveAll(keep func(error)) {
	for name, v := range s.byName {
		_, err := s.saveVoice(name, v, keep)
		keep(err)
	}
}

// ForgetAnswer is the frontend stage's answer to ForgetVoice.
type ForgetAnswer struct {
	Voice string `json:"voice"`
	// Forgotten: the voice was known (in memory or in its file) and is
	// no more.
	Forgotten bool   `json:"forgotten"`
	Error     string `json:"error,omitempty"`
}

// forget drops a named voice from memory and deletes its file (and any
// copies of it set aside as unreadable), with the frontend's lock held,
// and reports whether there was anything to forget.
func (s *voiceSessions) forget(name string) (bool, error) {
	if s.live()[name] {
		return false, fmt.Errorf("voice %q is in use by a live stream; forget it once its streams have ended", name)
	}
	_, known := s.byName[name]
	delete(s.byName, name)
	if s.p.VoiceDir == "" || s.p.Words == nil {
		return known, nil
	}
	s.files.wait(name) // a write of an ended stream's voice would bring the file back
	path, err := s.voiceFile(name)
	if err != nil {
		return known, err
	}
	removed, err := engine.RemoveVoiceFiles(filepath.Dir(path), name)
	return known || removed > 0, err
}
