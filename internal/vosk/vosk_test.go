package vosk

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/engine"
)

func words(ws ...string) []engine.Word {
	out := make([]engine.Word, len(ws))
	for i, w := range ws {
		out[i] = engine.Word{Word: w, Start: float64(i), End: float64(i) + 0.5, Conf: 0.9}
	}
	return out
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A stream of two utterances, "7 3" then "1", as the pipeline reports it
// (every result with all words so far) becomes Vosk's messages: partials
// with the open utterance's words only, one result per utterance with its
// words only, and at the end the words not yet given.
func TestTranscriptGivesEachWordOnce(t *testing.T) {
	var tr Transcript
	steps := []struct {
		in   engine.Result
		want string
	}{
		{engine.Result{Words: words("7")}, `{"partial":"7"}`},
		{engine.Result{Words: words("7", "3")}, `{"partial":"7 3"}`},
		{engine.Result{Final: true, Words: words("7", "3")}, `{"result":[{"conf":0.9,"end":0.5,"start":0,"word":"7"},{"conf":0.9,"end":1.5,"start":1,"word":"3"}],"text":"7 3"}`},
		{engine.Result{Final: true, Words: words("7", "3")}, `{"partial":""}`}, // an utterance of silence: nothing new
		{engine.Result{Words: words("7", "3", "1")}, `{"partial":"1"}`},
	}
	for i, s := range steps {
		tr.Add(s.in)
		if got := marshal(t, tr.Next()); got != s.want {
			t.Fatalf("step %d: %s, want %s", i, got, s.want)
		}
	}
	// The end-of-stream result closes the open utterance.
	tr.Add(engine.Result{Final: true, EOS: true, Words: words("7", "3", "1")})
	if got := marshal(t, tr.Final()); got != `{"result":[{"conf":0.9,"end":2.5,"start":2,"word":"1"}],"text":"1"}` {
		t.Fatalf("final: %s", got)
	}
	// Nothing is left: the next final result is empty, with an empty list.
	if got := marshal(t, tr.Final()); got != `{"result":[],"text":""}` {
		t.Fatalf("second final: %s", got)
	}
}

// Two utterances closed between two answers are given together, once;
// {"words": false} leaves the word list out.
func TestTranscriptMergesUtterancesBetweenAnswers(t *testing.T) {
	tr := Transcript{NoWords: true}
	tr.Add(engine.Result{Final: true, Words: words("up")})
	tr.Add(engine.Result{Words: words("up", "down")})
	tr.Add(engine.Result{Final: true, Words: words("up", "down")})
	if got := marshal(t, tr.Next()); got != `{"text":"up down"}` {
		t.Fatalf("got %s", got)
	}
	if got := marshal(t, tr.Next()); got != `{"partial":""}` {
		t.Fatalf("then %s", got)
	}
}

func TestParseControl(t *testing.T) {
	for _, c := range []struct {
		msg  string
		want Control
	}{
		{`{ "config" : { "sample_rate" : 16000 } }`, Control{Config: &Config{SampleRate: 16000, Words: true}}},
		{`{"config": {"sample_rate": 8000.0, "words": false, "phrase_list": ["a"], "max_alternatives": 0}}`, Control{Config: &Config{SampleRate: 8000}}},
		{`{"config": {"sample_rate": "44100"}}`, Control{Config: &Config{SampleRate: 44100, Words: true}}},
		{`{"config": {}}`, Control{Config: &Config{Words: true}}},
		{`{"config": {"sample_rate": 8000, "voice": "pat"}}`, Control{Config: &Config{SampleRate: 8000, Words: true, Voice: "pat"}}},
		{`{"eof" : 1}`, Control{EOF: true}},
		{`{"eof":true}`, Control{EOF: true}},
		{`{"reset" : 1}`, Control{Reset: true}},
	} {
		got, err := ParseControl([]byte(c.msg))
		if err != nil {
			t.Fatalf("%s: %v", c.msg, err)
		}
		if marshal(t, got) != marshal(t, c.want) {
			t.Fatalf("%s: %+v, want %+v", c.msg, got, c.want)
		}
	}
	for _, c := range []struct{ msg, why string }{
		{`end`, "invalid character"},
		{`{"hello": 1}`, "none of config"},
		{`{"eof": 0}`, "none of config"},
		{`{"eof": 2}`, "not 1 or 0"},
		{`{"config": {"sample_rate": -8000}}`, "whole number"},
		{`{"config": {"sample_rate": 8000.5}}`, "whole number"},
		{`{"config": {"sample_rate": "fast"}}`, "whole number"},
		{`{"config": {"sample_rate": 1e300}}`, "whole number"},
		{`{"config": 5}`, "want {"},
		{`{"config": {"voice": 7}}`, "string"},
		{`{"eof" : 1}` + strings.Repeat(" ", MaxControlBytes), "at most"},
	} {
		if _, err := ParseControl([]byte(c.msg)); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Fatalf("%.40s: error %v, want one saying %q", c.msg, err, c.why)
		}
	}
}

// FuzzParseControl: any text message is read or refused with an error,
// never a panic; a message read holds something to do, and a rate read is
// a positive whole number no larger than the bound.
func FuzzParseControl(f *testing.F) {
	for _, s := range []string{`{ "config" : { "sample_rate" : 16000 } }`, `{"eof" : 1}`, `{"reset":1}`, `{"config":{"sample_rate":"8000","words":false}}`, `[]`, `"eof"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		c, err := ParseControl(msg)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if c.Config == nil && !c.EOF && !c.Reset {
			t.Fatalf("%q read as an empty control", msg)
		}
		if c.Config != nil && (c.Config.SampleRate < 0 || c.Config.SampleRate > 1e7) {
			t.Fatalf("%q: rate %d", msg, c.Config.SampleRate)
		}
	})
}

// wavHeader is a canonical 44-byte header for n bytes of 16-bit PCM.
func wavHeader(rate, channels, bits, n int) []byte {
	h := make([]byte, 44)
	copy(h, "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+n))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1)
	binary.LittleEndian.PutUint16(h[22:], uint16(channels))
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*channels*bits/8))
	binary.LittleEndian.PutUint16(h[32:], uint16(channels*bits/8))
	binary.LittleEndian.PutUint16(h[34:], uint16(bits))
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(n))
	return h
}

func TestWAVHeader(t *testing.T) {
	pcm := []byte{1, 0, 2, 0}
	msg := append(wavHeader(16000, 1, 16, len(pcm)), pcm...)
	rate, data, ok, err := WAVHeader(msg)
	if err != nil || !ok || rate != 16000 || string(msg[data:]) != string(pcm) {
		t.Fatalf("canonical header: rate %d, data at %d, ok %v, %v", rate, data, ok, err)
	}
	// A LIST chunk (sox, ffmpeg) before the data is skipped.
	list := append([]byte("LIST\x03\x00\x00\x00abc\x00"), msg[36:]...)
	withList := append(append([]byte{}, msg[:36]...), list...)
	if rate, data, ok, err := WAVHeader(withList); err != nil || !ok || rate != 16000 || string(withList[data:]) != string(pcm) {
		t.Fatalf("header with a LIST chunk: rate %d, data at %d, %v %v", rate, data, ok, err)
	}
	if _, _, ok, err := WAVHeader(pcm); ok || err != nil {
		t.Fatalf("plain PCM taken for a header: %v %v", ok, err)
	}
	for _, c := range []struct {
		msg []byte
		why string
	}{
		{wavHeader(8000, 2, 16, 4), "2 channels"},
		{wavHeader(8000, 1, 8, 4), "8 bits"},
		{wavHeader(0, 1, 16, 4), "sample rate 0"},
		{wavHeader(8000, 1, 16, 4)[:30], "shorter than 16"},
		{wavHeader(8000, 1, 16, 4)[:38], "no data chunk"},
		{append([]byte("RIFF\x00\x00\x00\x00WAVEdata"), 0, 0, 0, 0), "before the fmt"},
		{append([]byte("RIFF\x00\x00\x00\x00WAVEJUNK"), 0xff, 0xff, 0xff, 0xff), "no data chunk"},
	} {
		if _, _, ok, err := WAVHeader(c.msg); !ok || err == nil || !strings.Contains(err.Error(), c.why) {
			t.Fatalf("%q: ok %v, error %v, want one saying %q", c.msg, ok, err, c.why)
		}
	}
}

// FuzzWAVHeader: any first message is read as a header, refused, or left
// as PCM, never a panic; a header read points inside the message and gives
// a positive rate.
func FuzzWAVHeader(f *testing.F) {
	f.Add(append(wavHeader(16000, 1, 16, 2), 0, 0))
	f.Add(wavHeader(8000, 2, 16, 0))
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVEJUNK\xff\xff\xff\xff"))
	f.Add([]byte{0, 1, 2, 3})
	f.Fuzz(func(t *testing.T, msg []byte) {
		rate, data, ok, err := WAVHeader(msg)
		if !ok && err != nil {
			t.Fatalf("an error for a message that is not a header: %v", err)
		}
		if ok && err == nil && (rate <= 0 || rate > 1e7 || data < 12 || data > len(msg)) {
			t.Fatalf("%q: rate %d, data at %d of %d", msg, rate, data, len(msg))
		}
	})
}
