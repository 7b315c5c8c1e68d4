package vosk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// MaxControlBytes bounds a text message: a configuration is a few dozen
// bytes; Vosk's phrase_list (a grammar, which rfstream does not use) can
// be longer, but not this long.
const MaxControlBytes = 64 << 10

// Control is one text message from a Vosk client: a configuration, the
// end of the stream ({"eof" : 1}) or a reset ({"reset" : 1}).
type Control struct {
	Config *Config
	EOF    bool
	Reset  bool
}

// Config is what a client may configure. Vosk's other keys (phrase_list,
// max_alternatives, ...) are read and ignored: rfstream's vocabulary is
// its model's and it gives one hypothesis.
type Config struct {
	// SampleRate is the rate of the PCM that follows, in Hz; 0 when the
	// configuration does not give one.
	SampleRate int
	// Words is false when the client asked for no word list.
	Words bool
	// Voice names the voice speaking (rfstream's own key, "voice"): a
	// voice taught to the model (`rfstream enroll`) is heard with what it
	// was taught, as `stream --voice` hears it. "" when not given.
	Voice string
}

// ParseControl reads one text message. Anything but a JSON object holding
// config, eof or reset is refused with an error that says what was wrong.
func ParseControl(msg []byte) (Control, error) {
	if len(msg) > MaxControlBytes {
		return Control{}, fmt.Errorf("text message of %d bytes: a control message has at most %d", len(msg), MaxControlBytes)
	}
	var raw struct {
		Config *struct {
			SampleRate json.RawMessage `json:"sample_rate"`
			Words      *bool           `json:"words"`
			Voice      *string         `json:"voice"`
		} `json:"config"`
		EOF   json.RawMessage `json:"eof"`
		Reset json.RawMessage `json:"reset"`
	}
	if err := json.Unmarshal(msg, &raw); err != nil {
		return Control{}, fmt.Errorf(`text message: %v (want {"config": {...}}, {"eof" : 1} or {"reset" : 1})`, err)
	}
	var c Control
	var err error
	if c.EOF, err = flag("eof", raw.EOF); err != nil {
		return Control{}, err
	}
	if c.Reset, err = flag("reset", raw.Reset); err != nil {
		return Control{}, err
	}
	if raw.Config != nil {
		c.Config = &Config{Words: raw.Config.Words == nil || *raw.Config.Words}
		if raw.Config.Voice != nil {
			c.Config.Voice = *raw.Config.Voice
		}
		if c.Config.SampleRate, err = sampleRate(raw.Config.SampleRate); err != nil {
			return Control{}, err
		}
	}
	if c.Config == nil && !c.EOF && !c.Reset {
		return Control{}, errors.New(`text message holds none of config, eof (set to 1) or reset (set to 1)`)
	}
	return c, nil
}

// flag reads eof or reset: 1 or true sets it; 0, false or absence does not.
func flag(name string, v json.RawMessage) (bool, error) {
	switch s := string(bytes.TrimSpace(v)); s {
	case "", "0", "false", "null":
		return false, nil
	case "1", "true":
		return true, nil
	default:
		return false, fmt.Errorf("%q: %.20s is not 1 or 0", name, s)
	}
}

// sampleRate reads sample_rate: a number, or a string holding one (Vosk's
// server takes either), of whole hertz.
func sampleRate(v json.RawMessage) (int, error) {
	if len(v) == 0 || string(v) == "null" {
		return 0, nil
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		s = string(v)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f > 1e7 || f != math.Trunc(f) {
		return 0, fmt.Errorf("sample_rate %.20s: want a whole number of hertz, e.g. 16000", s)
	}
	return int(f), nil
}
