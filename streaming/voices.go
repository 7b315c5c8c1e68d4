package streaming

// Named voices in the frontend stage: the streams that name one voice
// (HdrVoice) share its rfstream.VoiceSession, kept in memory within
// Pipeline.MaxVoices and VoiceIdle, and in voice files under
// Pipeline.VoiceDir when it is set.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/rfstream/rfstream"
)

// namedVoice is a voice's session in the frontend stage, shared by every
// stream that names the voice (HdrVoice).
type namedVoice struct {
	session *rfstream.VoiceSession
	last    time.Time // when a stream of the voice last finished a word
	saved   int       // recordings the session had when its file was last written or read
}

// streamVoice returns the session of the voice a stream names, with s.mu
// held: from memory, else from its voice file (VoiceDir), else new.
func (s *Stages) streamVoice(stream, name string) *rfstream.VoiceSession {
	if v := s.voices[name]; v != nil {
		return v.session
	}
	if len(s.voices) < s.p.MaxVoices || s.forgetVoice(stream) {
		v := &namedVoice{last: time.Now()}
		if v.session = s.readVoice(stream, name); v.session != nil {
			v.saved = v.session.Recordings()
		} else {
			v.session = s.newVoiceSession()
		}
		s.voices[name] = v
		return v.session
	}
	s.errorResult(stream, "all %d voice sessions are in use by live streams: voice %q gets a session for this stream only", s.p.MaxVoices, name)
	return s.newVoiceSession()
}

// voiceFile is where VoiceDir keeps a voice: under the model's
// fingerprint, so each model has voices of its own and serving another
// model neither reads nor overwrites them (names may hold '/').
func (s *Stages) voiceFile(name string) (string, error) {
	model, err := s.p.Words.Fingerprint()
	if err != nil {
		return "", err
	}
	return filepath.Join(s.p.VoiceDir, model[:16], voiceFileName(name)), nil
}

// voiceFileName is a voice's file name: the name escaped, or, when that
// would be longer than file systems allow (up to 128 characters that each
// escape to three), its SHA-256.
func voiceFileName(name string) string {
	if f := url.PathEscape(name) + ".rfv"; len(f) <= 200 {
		return f
	}
	sum := sha256.Sum256([]byte(name))
	return "sha256-" + hex.EncodeToString(sum[:]) + ".rfv"
}

// readVoice reads a voice's file, or returns nil when there is none (or no
// VoiceDir). A file that cannot be read is renamed aside and reported.
func (s *Stages) readVoice(stream, name string) *rfstream.VoiceSession {
	if s.p.VoiceDir == "" {
		return nil
	}
	path, err := s.voiceFile(name)
	var b []byte
	if err == nil {
		b, err = os.ReadFile(path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var v *rfstream.VoiceSession
	if err == nil {
		if v, err = s.p.Words.ReadVoiceSession(b); err == nil {
			v.SelfTrain = v.SelfTrain && !s.p.NoSelfTrain
			return v
		}
	}
	msg := fmt.Sprintf("voice %q: %s: %v; the voice starts afresh", name, path, err)
	if e := os.Rename(path, path+".bad"); e == nil {
		msg += " (the file is kept as " + path + ".bad)"
	}
	s.errorResult(stream, "%s", msg)
	return nil
}

// saveVoice writes a named voice's file when VoiceDir is set and the
// session has committed recordings since it was last written or read,
// with s.mu held.
func (s *Stages) saveVoice(name string, v *namedVoice) error {
	if s.p.VoiceDir == "" || v.session.Recordings() == v.saved {
		return nil
	}
	var b bytes.Buffer
	if _, err := v.session.WriteTo(&b); err != nil {
		return err
	}
	path, err := s.voiceFile(name)
	if err == nil {
		err = writeFileAtomic(path, b.Bytes())
	}
	if err != nil {
		return fmt.Errorf("voice %q: %w", name, err)
	}
	v.saved = v.session.Recordings()
	return nil
}

// writeFileAtomic writes b to path through a temporary file renamed over
// it, so a crash leaves the old file or the new one, never half of one.
func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".voice-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if e := f.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// endVoiceStream writes the voice file of a stream whose words have all
// joined its voice, before its end-of-stream marker goes out (so a client
// that has the stream's last result finds the file written), with s.mu
// held; a failure is reported to the stream.
func (s *Stages) endVoiceStream(stream string, st *frontStream) {
	if v := s.voices[st.voiceName]; st.voiceName != "" && v != nil && v.session == st.voice {
		if err := s.saveVoice(st.voiceName, v); err != nil {
			s.errorResult(stream, "saving the voice: %v", err)
		}
	}
}

func (s *Stages) newVoiceSession() *rfstream.VoiceSession {
	v := s.p.Words.NewVoiceSession()
	v.SelfTrain = v.SelfTrain && !s.p.NoSelfTrain
	return v
}

// forgetVoice drops the named voice heard least recently that no live
// stream names from memory (writing its file first), with s.mu held, and
// reports whether there was one.
func (s *Stages) forgetVoice(stream string) bool {
	live := s.liveVoices()
	oldest := ""
	for name, v := range s.voices {
		if !live[name] && (oldest == "" || v.last.Before(s.voices[oldest].last)) {
			oldest = name
		}
	}
	if oldest == "" {
		return false
	}
	if err := s.saveVoice(oldest, s.voices[oldest]); err != nil {
		s.errorResult(stream, "saving voice %q before dropping it from memory: %v", oldest, err)
	}
	delete(s.voices, oldest)
	return true
}

// liveVoices are the voices named by streams that have not ended.
func (s *Stages) liveVoices() map[string]bool {
	live := map[string]bool{}
	for _, st := range s.front {
		if st.voiceName != "" {
			live[st.voiceName] = true
		}
	}
	return live
}
