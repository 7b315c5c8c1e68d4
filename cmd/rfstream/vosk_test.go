package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/testproc"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// voskLine is one line or message of Vosk's JSON, as the Vosk server's
// documentation shows it (written from that, not from internal/vosk).
type voskLine struct {
	Partial *string `json:"partial"`
	Result  *[]struct {
		Conf, Start, End float64
		Word             string
	} `json:"result"`
	Text *string `json:"text"`
}

// voskText joins the texts of the result lines, skipping empty ones.
func voskText(t *testing.T, lines []string) (string, int) {
	t.Helper()
	var texts []string
	results := 0
	for _, l := range lines {
		var v voskLine
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if v.Text == nil {
			continue
		}
		results++
		if *v.Text != "" {
			texts = append(texts, *v.Text)
		}
	}
	return strings.Join(texts, " "), results
}

func runLines(t *testing.T, args ...string) []string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}

// plainText is what `recognize FILE` prints as the text.
func plainText(t *testing.T, wav string) string {
	t.Helper()
	text, _, _ := strings.Cut(runLines(t, "recognize", wav)[0], "\t")
	return text
}

// twoUtteranceWAV writes "up down", a pause longer than the endpointer's
// 700 ms, then "up".
func twoUtteranceWAV(t *testing.T) string {
	x := append(upWord(11), downWord(12)...)
	x = append(append(append(x, toymodels.Noise(8000, 5)...), upWord(13)...), toymodels.Noise(4000, 6)...)
	p := filepath.Join(t.TempDir(), "two.wav")
	writeWAV(t, p, x)
	return p
}

// With the default speech model, recognize --format vosk prints one Vosk
// result per utterance the endpointer cut, whose texts joined are what
// recognize prints, and stream --format vosk prints the same lines; a
// recording without speech prints one empty result; a word model's one
// word spans its recording. --json and --format vosk together are refused.
func TestFormatVoskPrintsUtterances(t *testing.T) {
	toyDefaultSpeechModel(t)
	wav := twoUtteranceWAV(t)
	want := plainText(t, wav)
	if want != "up down up" {
		t.Fatalf("recognize hears %q: the test needs the toy model right", want)
	}
	lines := runLines(t, "recognize", "--format", "vosk", wav)
	if got, n := voskText(t, lines); got != want || n != 2 || len(lines) != 2 {
		t.Fatalf("recognize --format vosk: %q in %d results (%d lines), want %q in 2: %s", got, n, len(lines), want, lines)
	}
	var first voskLine
	json.Unmarshal([]byte(lines[0]), &first)
	if *first.Text != "up down" || len(*first.Result) != 2 || (*first.Result)[1].Word != "down" || !((*first.Result)[0].End < (*first.Result)[1].Start) {
		t.Fatalf("first utterance %s", lines[0])
	}
	streamed := runLines(t, "stream", "--fast", "--format", "vosk", wav)
	if strings.Join(streamed, "\n") != strings.Join(lines, "\n") {
		t.Fatalf("stream --format vosk printed\n%s\nrecognize\n%s", streamed, lines)
	}
	silence := filepath.Join(t.TempDir(), "silence.wav")
	writeWAV(t, silence, make([]float32, 12000))
	if got := runLines(t, "recognize", "--format", "vosk", silence); len(got) != 1 || got[0] != `{"result":[],"text":""}` {
		t.Fatalf("silence: %q", got)
	}
	_, model := toyWordModelFile(t)
	upWAV := filepath.Join(t.TempDir(), "up.wav")
	writeWAV(t, upWAV, upWord(77))
	var one voskLine
	if got := runLines(t, "recognize", "--format", "vosk", "--model", model, upWAV); len(got) != 1 || json.Unmarshal([]byte(got[0]), &one) != nil ||
		*one.Text != "up" || len(*one.Result) != 1 || (*one.Result)[0].Start != 0 || (*one.Result)[0].End != float64(len(upWord(77)))/8000 {
		t.Fatalf("word model: %q", got)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"recognize", "--json", "--format", "vosk", wav}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "give one") {
		t.Fatalf("--json --format vosk: exit %d, %q", code, errb.String())
	}
}

// A Vosk client talks to `serve --http` at /vosk as to a Vosk server and
// hears what `recognize` prints for the same WAV: with the toy default
// model, and with the real one (when `make demo` has cached it) on three
// FSDD digits joined, two of them one utterance. The clients: a Go one
// here and a Node one with the ws package (testdata/voskclient), both
// written from Vosk's documented protocol; the Node one also sends the
// file as Vosk's Node example does, header and all.
func TestServeSpeaksVoskToVoskClients(t *testing.T) {
	t.Run("toy default model", func(t *testing.T) {
		toyDefaultSpeechModel(t)
		checkVoskClients(t, twoUtteranceWAV(t))
	})
	t.Run("real default model, FSDD digits", func(t *testing.T) {
		wav := fsddString(t)
		checkVoskClients(t, wav)
	})
}

// fsddString writes FSDD's 7, 3 and 1 of one speaker with pauses, the
// last longer than the endpointer's, or skips without the cached default
// model or FSDD.
func fsddString(t *testing.T) string {
	m, err := engine.LoadModel(defaults.ConnectedModel())
	if err != nil {
		t.Skipf("SKIP: no default speech model in the data cache (%v); make demo trains it", err)
	}
	if m.Meta[engine.PausesMeta] != datasets.PauseRendering {
		t.Skipf("SKIP: the cached %s predates the current pause rendering; make demo trains it again", defaults.ConnectedModel())
	}
	fsdd := defaults.FSDDDir()
	if !filepath.IsAbs(fsdd) {
		fsdd = filepath.Join("..", "..", fsdd)
	}
	rng := rand.New(rand.NewPCG(7, 31))
	var x []float32
	for i, name := range []string{"7_jackson_40.wav", "3_jackson_40.wav", "1_jackson_40.wav"} {
		a, err := readAudio(filepath.Join(fsdd, name), 0, nil)
		if err != nil {
			t.Skipf("SKIP: no FSDD recording (%v)", err)
		}
		pause := []int{2400, 1600, 9600}[i] // 0.3, 0.2 and 1.2 s
		x = append(append(x, datasets.Silence(pause, 1e-3, rng)...), a.Samples...)
	}
	x = append(x, datasets.Silence(3200, 1e-3, rng)...)
	p := filepath.Join(t.TempDir(), "731.wav")
	writeWAV(t, p, x)
	return p
}

// checkVoskClients serves the default model and checks both clients hear
// recognize's text for wav.
func checkVoskClients(t *testing.T, wav string) {
	want := plainText(t, wav)
	if want == "" {
		t.Fatalf("recognize hears nothing in %s: the test needs words", wav)
	}
	var log bytes.Buffer
	sv, err := startServe([]string{"--port", "0", "--http", "127.0.0.1:0", "--stages", "frontend,features,decoder"}, &log, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer sv.Close(&log)
	a, err := readAudio(wav, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	pcm := make([]byte, 2*len(a.Samples))
	for i, s := range a.Samples {
		v := int16(max(-32768, min(32767, s*32768)))
		pcm[2*i], pcm[2*i+1] = byte(v), byte(uint16(v)>>8)
	}
	if got, _ := voskText(t, goVoskClient(t, sv.page.VoskURL, a.Rate, pcm)); got != want {
		t.Errorf("the Go Vosk client hears %q; recognize prints %q", got, want)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Logf("SKIP the Node Vosk client: no node on PATH (apt-get install nodejs npm, then make vosk-client)")
		return
	}
	dir, _ := filepath.Abs("testdata/voskclient")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "ws")); err != nil {
		t.Fatalf("the Node Vosk client needs the ws package: make vosk-client (npm ci --prefix %s) (%v)", dir, err)
	}
	// As Vosk's test.py does it, and as its Node example does (the file
	// as read, header and all, no configuration).
	for _, mode := range [][]string{nil, {"--as-read"}} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var out, errb bytes.Buffer
		args := append(append([]string{filepath.Join(dir, "client.mjs")}, mode...), sv.page.VoskURL, wav)
		cmd := testproc.CommandContext(ctx, node, args...)
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("node client %v: %v: %s", mode, err, errb.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if got, _ := voskText(t, lines); got != want {
			t.Errorf("the Node Vosk client %v hears %q; recognize prints %q", mode, got, want)
		}
	}
}

// goVoskClient does what Vosk's documented client does: the sample rate
// in a config message, 0.2 s chunks each followed by reading one reply,
// {"eof" : 1}, the final reply, then the server's normal close.
func goVoskClient(t *testing.T, url string, rate int, pcm []byte) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	var replies []string
	send := func(typ websocket.MessageType, msg []byte) {
		if err := c.Write(ctx, typ, msg); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() {
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("after %d replies: %v", len(replies), err)
		}
		replies = append(replies, string(data))
	}
	send(websocket.MessageText, []byte(`{ "config" : { "sample_rate" : `+strconv.Itoa(rate)+` } }`))
	chunk := rate / 5 * 2
	for off := 0; off < len(pcm); off += chunk {
		send(websocket.MessageBinary, pcm[off:min(off+chunk, len(pcm))])
		recv()
	}
	send(websocket.MessageText, []byte(`{"eof" : 1}`))
	recv()
	_, _, err = c.Read(ctx)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusNormalClosure {
		t.Fatalf("after the final result: %v, want a normal close", err)
	}
	return replies
}
