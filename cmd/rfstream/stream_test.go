package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
)

// TestStreamCommandJSON runs `rfstream stream` alone (its own embedded
// server), plain and with --durable (JetStream in a temporary store),
// and checks the --json lines: partials first, the last one final with
// the words and their times.
func TestStreamCommandJSON(t *testing.T) {
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	model, wav := toyFiles(t, words.Model)
	for _, extra := range [][]string{nil, {"--durable"}} {
		var out, errb bytes.Buffer
		args := append([]string{"stream", "--fast", "--json", "--model", model, wav}, extra...)
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errb.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		var last engine.Result
		for i, l := range lines {
			var r engine.Result
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%v line %d %q: %v", extra, i, l, err)
			}
			if r.EOS != (i == len(lines)-1) {
				t.Fatalf("%v: eos on line %d of %d", extra, i, len(lines))
			}
			last = r
		}
		if !last.Final || last.Text != "up down" || len(last.Words) != 2 || last.Words[0].Word != "up" ||
			!(last.Words[0].Start < last.Words[0].End && last.Words[0].End < last.Words[1].Start) || last.Words[1].Conf <= 0 {
			t.Fatalf("%v: last result %+v", extra, last)
		}
	}
}

// TestStreamCommandConnectedModel: given a connected-word model, `stream`
// runs the frames → log-likelihoods → Viterbi stages and prints the word
// string with times, a partial before the final result.
func TestStreamCommandConnectedModel(t *testing.T) {
	c, err := toymodels.Connected()
	if err != nil {
		t.Fatal(err)
	}
	model, wav := toyFiles(t, c.Model)
	var out, errb bytes.Buffer
	if code := run([]string{"stream", "--fast", "--json", "--model", model, wav}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var first, last engine.Result
	for i, l := range lines {
		var r engine.Result
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %d %q: %v", i, l, err)
		}
		if i == 0 {
			first = r
		}
		last = r
	}
	if first.Final || !last.EOS || last.Text != "up down" || len(last.Words) != 2 ||
		!(last.Words[0].End < last.Words[1].Start) || !(last.Words[1].Conf > 0) {
		t.Fatalf("first result %+v, last %+v; want a partial first and \"up down\" last", first, last)
	}
}

// TestStreamCommandVoice: `stream --voice` names the voice to a pipeline
// that outlives the command (--nats), so an adaptable model's session
// carries from one run to the next: the second run's confidences are the
// in-process spotter's that continues the first's session, not a fresh
// one's. A malformed name is refused before anything is sent.
func TestStreamCommandVoice(t *testing.T) {
	words, err := toymodels.AdaptableWords()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := streaming.StartEmbedded(streaming.EmbeddedOptions{Listen: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	nc, err := srv.Connect("stages")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	st, err := streaming.Start(nc, streaming.Pipeline{Name: "rfs", Words: words}, streaming.StageFrontend, streaming.StageFeatures, streaming.StageDecoder)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}
	wav := filepath.Join(t.TempDir(), "updown.wav")
	var b bytes.Buffer
	if err := frontend.EncodeWAVFloat32(&b, a); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(wav, b.Bytes(), 0o644)
	// In process: two spotters sharing a session, and a fresh one.
	spot := func(s *engine.VoiceSession) (engine.Result, *engine.VoiceSession) {
		sp, err := engine.NewWordSpotter(words, engine.DefaultSpotterConfig(), a.Rate)
		if err != nil {
			t.Fatal(err)
		}
		if s != nil {
			sp.SetSession(s)
		}
		r := append(sp.Push(a.Samples), sp.Flush()...)
		return r[len(r)-1], sp.Session()
	}
	fresh, session := spot(nil)
	second, _ := spot(session)
	last := func(args ...string) engine.Result {
		var out, errb bytes.Buffer
		if code := run(append([]string{"stream", "--fast", "--json", "--nats", srv.ClientURL()}, append(args, wav)...), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		var r engine.Result
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	confs := func(r engine.Result) string {
		var c []string
		for _, w := range r.Words {
			c = append(c, w.Word+strconv.FormatFloat(w.Conf, 'f', 5, 64))
		}
		return strings.Join(c, " ")
	}
	for i, want := range []engine.Result{fresh, second} {
		if got := last("--voice", "cli-voice"); confs(got) != confs(want) {
			t.Fatalf("run %d with --voice: %s, want %s", i+1, confs(got), confs(want))
		}
	}
	if confs(second) == confs(fresh) {
		t.Fatal("the toy model's second recording of a voice scores as the first: the test cannot tell sessions apart")
	}
	if got := last(); confs(got) != confs(fresh) {
		t.Fatalf("without --voice: %s, want a fresh session's %s", confs(got), confs(fresh))
	}
	var out, errb bytes.Buffer
	if code := run([]string{"stream", "--fast", "--nats", srv.ClientURL(), "--voice", "a b", wav}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "voice name") {
		t.Fatalf("--voice 'a b': exit %d, %s", code, errb.String())
	}
}

// TestServeKeepsVoices: `serve --voices DIR` keeps a named voice across
// restarts: a recording streamed with --voice to one serve, then to a new
// serve on the same directory, is scored as the voice's second recording.
func TestServeKeepsVoices(t *testing.T) {
	words, err := toymodels.AdaptableWords()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	model, wav, voices := filepath.Join(dir, "toy.rfm"), filepath.Join(dir, "updown.wav"), filepath.Join(dir, "voices")
	if err := engine.SaveModel(model, words.Model); err != nil {
		t.Fatal(err)
	}
	a := &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}
	var b bytes.Buffer
	if err := frontend.EncodeWAVFloat32(&b, a); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(wav, b.Bytes(), 0o644)
	// In process, on the 16-bit samples `stream` sends.
	pcm, _ := streaming.EncodePCM(a.Samples, streaming.EncS16)
	samples, _ := streaming.DecodePCM(pcm, streaming.EncS16)
	sp, err := engine.NewWordSpotter(words, engine.DefaultSpotterConfig(), a.Rate)
	if err != nil {
		t.Fatal(err)
	}
	first := append(sp.Push(samples), sp.Flush()...)
	second, err := engine.NewWordSpotter(words, engine.DefaultSpotterConfig(), a.Rate)
	if err != nil {
		t.Fatal(err)
	}
	second.SetSession(sp.Session())
	r := append(second.Push(samples), second.Flush()...)
	want := r[len(r)-1]
	// Each way of running twice must end with the voice's second recording.
	// serveArgs, when given, start a serve for each run (closed after it),
	// which the stream reaches with --nats.
	twice := func(what string, args, serveArgs []string) {
		t.Helper()
		var got engine.Result
		for range 2 {
			args := slices.Clone(args)
			var sv *serving
			if serveArgs != nil {
				var log bytes.Buffer
				var err error
				if sv, err = startServe(serveArgs, &log, &log); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--nats", sv.sess.embedded.ClientURL())
			}
			var out, errb bytes.Buffer
			code := run(append(args, wav), &out, &errb)
			if sv != nil {
				sv.Close(io.Discard)
			}
			if code != 0 {
				t.Fatalf("%s: stream: exit %d: %s", what, code, errb.String())
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
				t.Fatal(err)
			}
		}
		if len(got.Words) != len(want.Words) || got.Text != want.Text {
			t.Fatalf("%s: %+v, want the voice's second recording %+v", what, got, want)
		}
		for i := range got.Words {
			if d := got.Words[i].Conf - want.Words[i].Conf; d > 1e-6 || d < -1e-6 {
				t.Fatalf("%s, word %d: confidence %v, the voice's second recording %v", what, i, got.Words[i].Conf, want.Words[i].Conf)
			}
		}
	}
	stream := []string{"stream", "--fast", "--json", "--voice", "dora"}
	twice("serve restarted", stream, []string{"--port", "0", "--stages", "frontend,features,decoder", "--model", model, "--voices", voices})
	twice("stream run twice", append(slices.Clone(stream), "--model", model, "--voices", filepath.Join(dir, "v2")), nil)
	// --adaptable: the data cache's adaptable model (here the toy one).
	t.Setenv("RFSTREAM_DATA", filepath.Join(dir, "cache"))
	if err := engine.SaveModel(defaults.AdaptableModelPath(), words.Model); err != nil {
		t.Fatal(err)
	}
	twice("stream --adaptable run twice", append(slices.Clone(stream), "--adaptable", "--voices", filepath.Join(dir, "v3")), nil)
	for _, bad := range [][]string{{"--adaptable", "--model", model}, {"--voices", voices, "--nats", "nats://127.0.0.1:1"}} {
		var out, errb bytes.Buffer
		if code := run(append(append([]string{"stream", "--fast"}, bad...), wav), &out, &errb); code == 0 || !strings.Contains(errb.String(), bad[0]) {
			t.Errorf("stream %v: exit %d, %q", bad, code, errb.String())
		}
	}
	if d := first[len(first)-1].Words[0].Conf - want.Words[0].Conf; d < 1e-6 && d > -1e-6 {
		t.Fatal("the toy model scores a voice's second recording as its first: the test cannot tell sessions apart")
	}
	fp, err := words.Fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(voices, fp[:16], "dora.rfv")); err != nil {
		t.Fatal(err)
	}
}

// toyFiles saves m as DIR/toy.rfm and the toy up-down recording as
// DIR/updown.wav (32-bit float) in a new temporary DIR, and returns the
// two paths.
func toyFiles(t *testing.T, m *engine.Model) (model, wav string) {
	t.Helper()
	dir := t.TempDir()
	model, wav = filepath.Join(dir, "toy.rfm"), filepath.Join(dir, "updown.wav")
	if err := engine.SaveModel(model, m); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := frontend.EncodeWAVFloat32(&b, &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wav, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return model, wav
}

// TestServeShards: two `serve --shard K/2` on one server, and one `serve
// --frontends 2`, share the streams: every stream, whichever shard takes
// it, ends with the closed words a single serve gives, once each, and both
// shards take some. Malformed shares are refused before anything starts.
func TestServeShards(t *testing.T) {
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	model, wav := toyFiles(t, words.Model)
	var out, errb bytes.Buffer
	if code := run([]string{"stream", "--fast", "--json", "--model", model, wav}, &out, &errb); code != 0 {
		t.Fatalf("stream alone: exit %d: %s", code, errb.String())
	}
	// Partial results depend on how the features stage batches them (it
	// sheds stale partials); closed words do not. Confidences may differ
	// in the last bits: a GEMM rounds differently with the batch's height.
	finals := func(out string) []engine.Result {
		var keep []engine.Result
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var r engine.Result
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			if r.Final {
				keep = append(keep, r)
			}
		}
		return keep
	}
	same := func(a, b []engine.Result) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			x, y := a[i], b[i]
			if x.Text != y.Text || x.EOS != y.EOS || x.Error != y.Error || len(x.Words) != len(y.Words) {
				return false
			}
			for j, w := range x.Words {
				v := y.Words[j]
				if w.Word != v.Word || w.Start != v.Start || w.End != v.End || math.Abs(w.Conf-v.Conf) > 1e-6 {
					return false
				}
			}
		}
		return true
	}
	want := finals(out.String())
	alone := want[len(want)-1]
	check := func(what, url string, shards []*streaming.Stages) {
		t.Helper()
		for i := range 8 {
			out.Reset()
			if code := run([]string{"stream", "--fast", "--json", "--nats", url, wav}, &out, &errb); code != 0 {
				t.Fatalf("%s, stream %d: exit %d: %s", what, i, code, errb.String())
			}
			if got := finals(out.String()); !same(got, want) {
				t.Fatalf("%s, stream %d:\n%+v\nalone:\n%+v", what, i, got, want)
			}
		}
		// A named voice's streams go to the voice's shard: one voice on
		// each makes sure both shards serve.
		for k := range 2 {
			voice := "v0"
			for i := 1; streaming.ShardOf(voice, 2) != k; i++ {
				voice = "v" + strconv.Itoa(i)
			}
			out.Reset()
			if code := run([]string{"stream", "--fast", "--json", "--nats", url, "--voice", voice, wav}, &out, &errb); code != 0 {
				t.Fatalf("%s, voice %s: exit %d: %s", what, voice, code, errb.String())
			}
			var got engine.Result
			if err := json.Unmarshal([]byte(lastLine(out.String())), &got); err != nil || got.Text != alone.Text || got.Error != "" {
				t.Fatalf("%s, voice %s: %s (%v), alone: %+v", what, voice, lastLine(out.String()), err, alone)
			}
		}
		for k, st := range shards {
			if st.Stats().Messages == 0 {
				t.Errorf("%s: shard %d/2 took no message", what, k)
			}
		}
	}

	var log bytes.Buffer
	first, err := startServe([]string{"--port", "0", "--model", model, "--stages", "frontend,features,decoder", "--shard", "0/2"}, &log, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close(io.Discard)
	url := first.sess.embedded.ClientURL()
	second, err := startServe([]string{"--nats", url, "--model", model, "--stages", "frontend,decoder", "--shard", "1/2"}, &log, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close(io.Discard)
	check("two serve --shard K/2", url, append(first.stage(streaming.StageFrontend), second.stage(streaming.StageFrontend)...))

	both, err := startServe([]string{"--port", "0", "--model", model, "--stages", "frontend,features,decoder", "--frontends", "2"}, &log, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer both.Close(io.Discard)
	if n, m := len(both.stage(streaming.StageFrontend)), len(both.stage(streaming.StageDecoder)); n != 2 || m != 2 {
		t.Fatalf("serve --frontends 2 runs %d frontend and %d decoder shards, want 2 and 2", n, m)
	}
	check("serve --frontends 2", both.sess.embedded.ClientURL(), both.stage(streaming.StageFrontend))

	for _, bad := range [][]string{
		{"--shard", "2/2"}, {"--shard", "-1/2"}, {"--shard", "0/0"}, {"--shard", "1"}, {"--shard", "a/b"},
		{"--frontends", "0"}, {"--frontends", "2", "--shard", "0/2"}, {"--blas-threads", "-1"},
	} {
		if _, err := startServe(append([]string{"--port", "0", "--model", model, "--stages", "frontend"}, bad...), &log, &log); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("serve %v: %v, want a refusal", bad, err)
		}
	}
}
