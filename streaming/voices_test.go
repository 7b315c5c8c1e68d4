package streaming

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// voiceSpotting runs in-process spotters over one two-word recording of
// the adaptable toy model: spot(nil) is a stream of its own voice,
// spot(session) a stream of the voice whose session that is.
func voiceSpotting(t *testing.T) (*engine.WordClassifier, *frontend.Audio, func(*engine.VoiceSession) ([]engine.Result, *engine.VoiceSession)) {
	t.Helper()
	words, err := toymodels.AdaptableWords()
	if err != nil {
		t.Fatal(err)
	}
	a := &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}
	spot := func(session *engine.VoiceSession) ([]engine.Result, *engine.VoiceSession) {
		sp, err := engine.NewWordSpotter(words, engine.DefaultSpotterConfig(), a.Rate)
		if err != nil {
			t.Fatal(err)
		}
		if session != nil {
			sp.SetSession(session)
		}
		return append(sp.Push(a.Samples), sp.Flush()...), sp.Session()
	}
	return words, a, spot
}

// Streams that name one voice share its session: eight two-word streams
// of one voice, one after another, are recognised through NATS as eight
// in-process spotters sharing a session. The session carries over (from
// the second stream on the words differ from a stream of its own) and
// self-trains across the streams (its first checkpoint, on 10 words, scores
// the 15th and 16th, in the eighth stream); another voice starts afresh.
func TestNamedVoiceSpansStreams(t *testing.T) {
	words, a, spot := voiceSpotting(t)
	nc, _ := pipelineWith(t, Pipeline{Words: words})
	alone, _ := spot(nil)
	var session *engine.VoiceSession
	for i := range 8 {
		var want []engine.Result
		want, session = spot(session)
		got := streamAll(t, nc, "alice"+strconv.Itoa(i), a, StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: "alice"})
		if !sameResults(got, want) {
			t.Fatalf("stream %d of the voice: NATS results\n%+v\nin-process\n%+v", i+1, got, want)
		}
		if first := i == 0; sameResults(withoutVoice(got), withoutVoice(alone)) != first {
			t.Fatalf("stream %d of the voice: same words as a stream of its own %v, want %v\n%+v", i+1, !first, first, got)
		}
		if p := got[len(got)-1].Voice; p == nil || p.Recordings != 2*(i+1) {
			t.Fatalf("stream %d of the voice: end-of-stream progress %+v, want %d recordings", i+1, p, 2*(i+1))
		}
	}
	if session.Recordings() != 16 || session.AdaptedOn() != 10 {
		t.Fatalf("in-process session: %d words, read-out self-trained on %d; want 16 and 10", session.Recordings(), session.AdaptedOn())
	}
	if got := streamAll(t, nc, "bob0", a, StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: "bob"}); !sameResults(got, alone) {
		t.Fatalf("a new voice's first stream:\n%+v\nwant a stream of its own:\n%+v", got, alone)
	}
}

// withoutVoice is rs without their voice progress: the words alone.
func withoutVoice(rs []engine.Result) []engine.Result {
	out := slices.Clone(rs)
	for i := range out {
		out[i].Voice = nil
	}
	return out
}

func voiceNames(st *Stages) []string {
	st.front.mu.Lock()
	defer st.front.mu.Unlock()
	var names []string
	for n := range st.front.voices.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// The frontend keeps at most MaxVoices sessions, forgetting the voice heard
// least recently; a forgotten voice starts afresh. When every session is in
// use by a live stream, a new voice's stream is served with a session of
// its own and told so.
func TestVoicesAreBounded(t *testing.T) {
	words, a, spot := voiceSpotting(t)
	nc, st := pipelineWith(t, Pipeline{Words: words, MaxVoices: 2})
	alone, _ := spot(nil)
	_, session := spot(nil)
	second, _ := spot(session)
	o := StreamOptions{ChunkMs: 100, Encoding: EncF32}
	for i, voice := range []string{"a", "b", "a", "c"} {
		o.Voice = voice
		streamAll(t, nc, "bound"+strconv.Itoa(i), a, o)
	}
	if got := voiceNames(st); strings.Join(got, " ") != "a c" {
		t.Fatalf("voices kept: %v, want a and c (b heard least recently)", got)
	}
	o.Voice = "b"
	if got := streamAll(t, nc, "bound-b", a, o); !sameResults(got, alone) {
		t.Fatalf("a forgotten voice:\n%+v\nwant a fresh session's\n%+v", got, alone)
	}
	o.Voice = "b" // b replaced a, the least recent now
	if got := streamAll(t, nc, "bound-b2", a, o); !sameResults(got, second) {
		t.Fatalf("the voice's second stream:\n%+v\nwant\n%+v", got, second)
	}

	// Two live streams (no end-of-stream yet) hold both sessions.
	for _, v := range []string{"x", "y"} {
		b, _ := EncodePCM(make([]float32, 800), EncF32)
		publish(t, nc, "open-"+v, 0, b, map[string]string{HdrRate: "8000", HdrEncoding: EncF32, HdrVoice: v})
	}
	deadline := time.Now().Add(5 * time.Second)
	for strings.Join(voiceNames(st), " ") != "x y" {
		if time.Now().After(deadline) {
			t.Fatalf("voices kept: %v, want the live streams' x and y", voiceNames(st))
		}
		time.Sleep(10 * time.Millisecond)
	}
	o.Voice = "z"
	got := streamAll(t, nc, "crowded", a, o)
	var rest []engine.Result
	refused := 0
	for _, r := range got {
		if strings.Contains(r.Error, "in use by live streams") {
			refused++
		} else {
			rest = append(rest, r)
		}
	}
	if refused != 1 || !sameResults(rest, alone) {
		t.Fatalf("a voice beyond MaxVoices while all are live:\n%+v\nwant one error and a stream of its own:\n%+v", got, alone)
	}
	if got := voiceNames(st); strings.Join(got, " ") != "x y" {
		t.Fatalf("voices kept: %v, want x and y", got)
	}
}

// A voice no stream has used for VoiceIdle is forgotten.
func TestIdleVoicesAreForgotten(t *testing.T) {
	words, a, spot := voiceSpotting(t)
	nc, st := pipelineWith(t, Pipeline{Words: words, IdleTimeout: 200 * time.Millisecond, VoiceIdle: 100 * time.Millisecond})
	alone, _ := spot(nil)
	o := StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: "idle"}
	streamAll(t, nc, "idle0", a, o)
	deadline := time.Now().Add(5 * time.Second)
	for len(voiceNames(st)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("voices kept after VoiceIdle: %v", voiceNames(st))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := streamAll(t, nc, "idle1", a, o); !sameResults(got, alone) {
		t.Fatalf("a forgotten voice:\n%+v\nwant a fresh session's\n%+v", got, alone)
	}
}

// A malformed voice name, or a voice that changes within a stream, is
// refused like a changed sample rate: an error result, the message dropped.
func TestBadVoiceHeaders(t *testing.T) {
	nc, _ := pipelineWith(t, Pipeline{})
	b, _ := EncodePCM(make([]float32, 800), EncF32)
	ch := resultsOf(t, nc, "badvoice")
	publish(t, nc, "badvoice", 0, b, map[string]string{HdrRate: "8000", HdrEncoding: EncF32, HdrVoice: "two words"})
	publish(t, nc, "badvoice", 1, b, map[string]string{HdrRate: "8000", HdrEncoding: EncF32, HdrVoice: "a"})
	publish(t, nc, "badvoice", 2, b, map[string]string{HdrEncoding: EncF32, HdrVoice: "b"})
	publish(t, nc, "badvoice", 3, b, map[string]string{HdrEncoding: EncF32, HdrEOS: "1"})
	expectResults(t, collect(t, ch, 5*time.Second), "voice name", `voice changed from "a" to "b"`, "")
	if _, err := StreamAudio(t.Context(), nc, "toy", "v", &frontend.Audio{Rate: 8000, Samples: make([]float32, 80)},
		StreamOptions{Voice: strings.Repeat("v", 129)}, nil); err == nil || !strings.Contains(err.Error(), "voice name") {
		t.Fatalf("StreamAudio with a 129-character voice: %v", err)
	}
}

// With VoiceDir a voice outlives the stages: six two-word streams of a
// voice, the stages closed, new stages on the same directory, ten more
// streams: every stream's results are those of sixteen in-process spotters
// sharing one session. The first checkpoint (10 words) is still pending at
// the restart, so the new stages train it again from the file; it scores
// words 15–29 and the second (20 words) the last three. A voice file that
// cannot be read is set aside and reported, and its voice starts afresh.
func TestVoicesOutliveTheStages(t *testing.T) {
	words, a, spot := voiceSpotting(t)
	dir := t.TempDir()
	var want [][]engine.Result
	var session *engine.VoiceSession
	for range 16 {
		var r []engine.Result
		r, session = spot(session)
		want = append(want, r)
	}
	alone, _ := spot(nil)
	o := StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: "carol"}
	model, err := words.Fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, model[:16], "carol.rfv")
	for _, run := range [][2]int{{0, 6}, {6, 16}} {
		nc, st := pipelineWith(t, Pipeline{Words: words, VoiceDir: dir})
		for k := run[0]; k < run[1]; k++ {
			if got := streamAll(t, nc, "carol"+strconv.Itoa(k), a, o); !sameResults(got, want[k]) {
				t.Fatalf("stream %d of the voice (%d before the restart): NATS results\n%+v\nin-process\n%+v", k+1, run[0], got, want[k])
			}
		}
		// Each stream's end wrote the file (a crash now would lose nothing).
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := words.ReadVoiceSession(b); err != nil || v.Recordings() != 2*run[1] {
			t.Fatalf("after %d streams the voice file holds %v recordings (%v), want %d", run[1], v.Recordings(), err, 2*run[1])
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if session.AdaptedOn() != 20 {
		t.Fatalf("the in-process session was self-trained on %d recordings, want 20", session.AdaptedOn())
	}

	// Another model serving the same directory has voices of its own: its
	// carol is new, and the first model's file is left as it was.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := toymodels.VoiceWords()
	if err != nil {
		t.Fatal(err)
	}
	onc, ost := pipelineWith(t, Pipeline{Words: other, VoiceDir: dir})
	sp, err := engine.NewWordSpotter(other, engine.DefaultSpotterConfig(), a.Rate)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := streamAll(t, onc, "carol-other", a, o), append(sp.Push(a.Samples), sp.Flush()...); !sameResults(got, want) {
		t.Fatalf("another model's carol:\n%+v\nwant a fresh session's\n%+v", got, want)
	}
	ost.Close()
	if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, b) {
		t.Fatalf("another model's stages changed the first model's voice file (%v)", err)
	}

	b[len(b)/2] ^= 1
	os.WriteFile(path, b, 0o600)
	nc, _ := pipelineWith(t, Pipeline{Words: words, VoiceDir: dir})
	got := streamAll(t, nc, "carol-damaged", a, o)
	var rest []engine.Result
	reported := 0
	for _, r := range got {
		if strings.Contains(r.Error, "corrupted voice file") && strings.Contains(r.Error, "carol.rfv.bad") {
			reported++
		} else {
			rest = append(rest, r)
		}
	}
	if reported != 1 || !sameResults(rest, alone) {
		t.Fatalf("a damaged voice file:\n%+v\nwant one error and a fresh session's results\n%+v", got, alone)
	}
	if kept, err := os.ReadFile(path + ".bad"); err != nil || !bytes.Equal(kept, b) {
		t.Fatalf("the damaged file was not kept aside unchanged (%v)", err)
	}
	// A second damaged file does not overwrite the first.
	os.WriteFile(path, []byte("not a voice"), 0o600)
	nc2, _ := pipelineWith(t, Pipeline{Words: words, VoiceDir: dir})
	streamAll(t, nc2, "carol-damaged-again", a, o)
	if kept, err := os.ReadFile(path + ".bad.2"); err != nil || string(kept) != "not a voice" {
		t.Fatalf("the second damaged file was not kept as .bad.2 (%v)", err)
	}
	if kept, _ := os.ReadFile(path + ".bad"); !bytes.Equal(kept, b) {
		t.Fatal("the second damaged file overwrote the first")
	}
}

// Every name a stream may give makes a file name the file system takes:
// one of 128 characters that each escape to three keeps its voice too.
func TestLongVoiceNamesAreKept(t *testing.T) {
	words, a, spot := voiceSpotting(t)
	dir := t.TempDir()
	_, session := spot(nil)
	want, _ := spot(session)
	o := StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: strings.Repeat("%", 128)}
	for i := range 2 {
		nc, st := pipelineWith(t, Pipeline{Words: words, VoiceDir: dir})
		got := streamAll(t, nc, "long"+strconv.Itoa(i), a, o)
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if i == 1 && !sameResults(got, want) {
			t.Fatalf("the long-named voice after a restart:\n%+v\nwant its second recording's\n%+v", got, want)
		}
	}
	a1, err1 := words.VoicePath(dir, "george")
	b1, err2 := words.VoicePath(dir, strings.Repeat("%", 128))
	if err1 != nil || err2 != nil || filepath.Base(a1) != "george.rfv" || len(filepath.Base(b1)) > 200 {
		t.Fatalf("voice paths %q and %q (%v, %v)", a1, b1, err1, err2)
	}
}

// A voice folder that cannot be made stops the stages from starting, with
// an error that says so, rather than failing at every stream's end.
func TestUnusableVoiceDirIsRefusedAtStart(t *testing.T) {
	words, _, _ := voiceSpotting(t)
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, nil, 0o600)
	srv, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	nc, err := srv.Connect("stages")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if st, err := Start(nc, Pipeline{Name: "toy", Words: words, VoiceDir: filepath.Join(file, "voices")}); err == nil || !strings.Contains(err.Error(), "voice folder") {
		if st != nil {
			st.Close()
		}
		t.Fatalf("stages over a voice folder under a file: %v", err)
	}
}

// ForgetVoice drops a named voice from memory and deletes its file (and
// the copies set aside as unreadable), so its next stream starts afresh; it says whether there was anything to forget,
// and refuses while a live stream names the voice.
func TestForgetVoice(t *testing.T) {
	words, a, spot := voiceSpotting(t)
	dir := t.TempDir()
	nc, st := pipelineWith(t, Pipeline{Words: words, VoiceDir: dir})
	alone, _ := spot(nil)
	o := StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: "gina"}
	streamAll(t, nc, "gina0", a, o)
	path, err := words.VoicePath(dir, "gina")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	forget := func(voice string) (bool, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return ForgetVoice(ctx, nc, "toy", voice)
	}
	// Copies set aside as unreadable hold the voice too; other voices'
	// files, however alike their names, are kept.
	others := []string{path + ".bad.x", filepath.Join(filepath.Dir(path), "gina2.rfv"), filepath.Join(filepath.Dir(path), "gina.rfv.rfv")}
	for _, f := range append([]string{path + ".bad", path + ".bad.2"}, others...) {
		os.WriteFile(f, []byte("x"), 0o600)
	}
	if ok, err := forget("gina"); !ok || err != nil {
		t.Fatalf("forgetting gina: %v, %v", ok, err)
	}
	for _, f := range []string{path, path + ".bad", path + ".bad.2"} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("after forgetting, %s: %v", f, err)
		}
	}
	for _, f := range others {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("forgetting gina removed %s: %v", f, err)
		}
	}
	if len(voiceNames(st)) != 0 {
		t.Fatalf("after forgetting: voices in memory %v", voiceNames(st))
	}
	if got := streamAll(t, nc, "gina1", a, o); !sameResults(got, alone) {
		t.Fatalf("a forgotten voice's next stream:\n%+v\nwant a fresh session's\n%+v", got, alone)
	}
	if ok, err := forget("nobody"); ok || err != nil {
		t.Fatalf("forgetting an unknown voice: %v, %v", ok, err)
	}
	b, _ := EncodePCM(make([]float32, 800), EncF32)
	publish(t, nc, "open-gina", 0, b, map[string]string{HdrRate: "8000", HdrEncoding: EncF32, HdrVoice: "gina"})
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := forget("gina")
		if err != nil && strings.Contains(err.Error(), "live stream") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("forgetting a voice a live stream names: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := forget("two words"); err == nil {
		t.Fatal("a malformed voice name was accepted")
	}
}

// blockVoiceWrites makes every voice file write wait, after saying which
// file it is about to write on started, until release is called once for
// it or the test has ended (so a failed test does not hang closing its
// stages).
func blockVoiceWrites(t *testing.T) (started chan string, release func()) {
	started, gate := make(chan string, 16), make(chan struct{})
	saveVoiceFile = func(path string, v *engine.VoiceSession) error {
		started <- path
		select {
		case <-gate:
		case <-t.Context().Done():
		}
		return v.Save(path)
	}
	t.Cleanup(func() { saveVoiceFile = func(path string, s *engine.VoiceSession) error { return s.Save(path) } })
	return started, func() { gate <- struct{}{} }
}

// streamLater streams a in the background; the outcome comes on the
// channel returned.
func streamLater(nc *nats.Conn, stream string, a *frontend.Audio, o StreamOptions) chan streamOutcome {
	out := make(chan streamOutcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var r streamOutcome
		_, r.err = StreamAudio(ctx, nc, "toy", stream, a, o, func(res engine.Result) { r.results = append(r.results, res) })
		out <- r
	}()
	return out
}

type streamOutcome struct {
	results []engine.Result
	err     error
}

// A voice file is written off the frontend stage's lock: while it is being
// written, another stream is served to its end, and the stream whose end
// asked for the file gets its end-of-stream result only once the file is
// there. Forgetting the voice meanwhile waits for the write, so the file
// does not come back after it.
func TestVoiceFilesAreWrittenOffTheStage(t *testing.T) {
	words, a, spot := voiceSpotting(t)
	alone, session := spot(nil)
	second, _ := spot(session)
	started, release := blockVoiceWrites(t)
	dir := t.TempDir()
	nc, _ := pipelineWith(t, Pipeline{Words: words, VoiceDir: dir})
	path, err := words.VoicePath(dir, "hana")
	if err != nil {
		t.Fatal(err)
	}
	o := StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: "hana"}

	first := streamLater(nc, "hana0", a, o)
	<-started // hana0's words have joined the voice; its file is being written
	if got := streamAll(t, nc, "ivan", a, StreamOptions{ChunkMs: 100, Encoding: EncF32}); !sameResults(got, alone) {
		t.Fatalf("a stream served while a voice file was being written:\n%+v\nwant\n%+v", got, alone)
	}
	select {
	case r := <-first:
		t.Fatalf("hana0 ended before its voice file was written: %+v", r)
	default:
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the voice file exists before its write was let go (%v)", err)
	}
	release()
	if r := <-first; r.err != nil || !sameResults(r.results, alone) {
		t.Fatalf("hana0: %v\n%+v\nwant\n%+v", r.err, r.results, alone)
	}
	if b, err := os.ReadFile(path); err != nil {
		t.Fatalf("hana0 ended without its voice file: %v", err)
	} else if v, err := words.ReadVoiceSession(b); err != nil || v.Recordings() != 2 {
		t.Fatalf("the voice file after hana0: %v", err)
	}

	next := streamLater(nc, "hana1", a, o)
	<-started
	forgot := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		ok, err := ForgetVoice(ctx, nc, "toy", "hana")
		if err == nil && !ok {
			err = errors.New("nothing to forget")
		}
		forgot <- err
	}()
	time.Sleep(100 * time.Millisecond) // let the forget reach the stage
	release()
	if err := <-forgot; err != nil {
		t.Fatal(err)
	}
	if r := <-next; r.err != nil || !sameResults(r.results, second) {
		t.Fatalf("hana1: %v\n%+v\nwant\n%+v", r.err, r.results, second)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the forgotten voice's file came back (%v)", err)
	}
	if len(started) != 0 {
		t.Fatalf("%d more voice file writes than the two streams' ends", len(started))
	}
}

// A voice dropped from memory for another (MaxVoices) has its file written
// off the stage's lock too: the other voice's stream is served to its end
// while the first voice's write is held. Naming the first voice again
// waits for that write and goes on from the file.
func TestEvictedVoiceIsWrittenOffTheStage(t *testing.T) {
	words, a, spot := voiceSpotting(t)
	alone, session := spot(nil)
	second, _ := spot(session)
	started, release := blockVoiceWrites(t)
	dir := t.TempDir()
	nc, _ := pipelineWith(t, Pipeline{Words: words, VoiceDir: dir, MaxVoices: 1})
	o := StreamOptions{ChunkMs: 100, Encoding: EncF32}
	wrote := func(voice string) {
		t.Helper()
		path, err := words.VoicePath(dir, voice)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case p := <-started:
			if p != path {
				t.Fatalf("wrote %s, want voice %q's file", p, voice)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("voice %q's file was never written: the stage is stuck", voice)
		}
	}
	o.Voice = "ada"
	ada0 := streamLater(nc, "ada0", a, o)
	wrote("ada") // held
	o.Voice = "bo"
	bo := streamLater(nc, "bo0", a, o) // drops ada from memory
	wrote("bo")                        // so bo0 was served while ada's write was held
	o.Voice = "ada"
	ada1 := streamLater(nc, "ada1", a, o) // drops bo; must read ada's file once written
	time.Sleep(100 * time.Millisecond)    // let ada1 reach the stage
	release()
	release()
	wrote("ada") // ada1's end
	release()
	for _, c := range []struct {
		name string
		out  chan streamOutcome
		want []engine.Result
	}{{"ada0", ada0, alone}, {"bo0", bo, alone}, {"ada1", ada1, second}} {
		if r := <-c.out; r.err != nil || !sameResults(r.results, c.want) {
			t.Fatalf("%s: %v\n%+v\nwant\n%+v", c.name, r.err, r.results, c.want)
		}
	}
	if len(started) != 0 {
		t.Fatalf("%d more voice file writes than the three streams' ends", len(started))
	}
}

// A voice's writes are made one at a time and in order; copies asked for
// while one is being written are merged into the newest, and everything
// that was to follow each of them follows it.
func TestVoiceWritesMergeWhileOneRuns(t *testing.T) {
	words, _, spot := voiceSpotting(t)
	started, release := blockVoiceWrites(t)
	path := filepath.Join(t.TempDir(), "v.rfv")
	var sessions []*engine.VoiceSession
	var s *engine.VoiceSession
	for range 3 {
		_, s = spot(s)
		sessions = append(sessions, s.Clone())
	}
	var w voiceWriter
	var mu sync.Mutex
	var done []int
	for i, v := range sessions {
		w.write("v", path, v, func(err error) {
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			done = append(done, i)
			mu.Unlock()
		})
		if i == 0 {
			<-started // the first is being written while the others arrive
		}
	}
	release()
	<-started
	release()
	w.wait("v")
	if !slices.Equal(done, []int{0, 1, 2}) || len(started) != 0 {
		t.Fatalf("calls after the writes %v, %d writes more than two", done, len(started))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := words.ReadVoiceSession(b); err != nil || v.Recordings() != sessions[2].Recordings() {
		t.Fatalf("the file is not the newest copy, of %d recordings (%v)", sessions[2].Recordings(), err)
	}
}

// A voice gone idle whose file cannot be written stays in memory, and the
// failure, which has no stream to go to, is counted with its reason in
// Stats; once the storage works again the next sweep writes the file,
// every recording in it, and only then drops the voice. Before, the voice
// was dropped at once and its recordings since the last write were lost.
func TestIdleVoiceStaysWhileItsFileCannotBeWritten(t *testing.T) {
	words, a, _ := voiceSpotting(t)
	dir := t.TempDir()
	var failing atomic.Bool
	failing.Store(true)
	saveVoiceFile = func(path string, v *engine.VoiceSession) error {
		if failing.Load() {
			return errors.New("no space left on device (the test's)")
		}
		return v.Save(path)
	}
	t.Cleanup(func() { saveVoiceFile = func(path string, s *engine.VoiceSession) error { return s.Save(path) } })
	nc, st := pipelineWith(t, Pipeline{Words: words, VoiceDir: dir, IdleTimeout: 200 * time.Millisecond, VoiceIdle: 100 * time.Millisecond})
	got := streamAll(t, nc, "ivy0", a, StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: "ivy"})
	if !slices.ContainsFunc(got, func(r engine.Result) bool { return strings.Contains(r.Error, "no space left") }) {
		t.Fatalf("the stream's failed write was not reported to it: %+v", got)
	}
	time.Sleep(time.Second) // ten times VoiceIdle, several sweeps
	if names := voiceNames(st); len(names) != 1 {
		t.Fatalf("a voice whose file could not be written was dropped: %v", names)
	}
	if s := st.Stats(); s.StorageErrors < 2 || !strings.Contains(s.StorageError, "no space left") {
		t.Fatalf("stats %+v: want the failed writes counted with their reason", s)
	}
	failing.Store(false)
	deadline := time.Now().Add(5 * time.Second)
	for len(voiceNames(st)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the voice stayed once its file could be written: %v", voiceNames(st))
		}
		time.Sleep(20 * time.Millisecond)
	}
	model, err := words.Fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, model[:16], "ivy.rfv"))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := words.ReadVoiceSession(b); err != nil || v.Recordings() != 2 {
		t.Fatalf("the voice's file: %v recordings, %v; want the stream's 2", v.Recordings(), err)
	}
}
