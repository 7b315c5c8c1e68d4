package streaming

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/rfstream/rfstream/engine"
)

// The tagger answers every image with a TagsMessage, and a client reads
// each one, so at MNIST's size encoding/json's reflection was a tenth of
// the NATS path's cost (bench-stream, toy model). These two functions do
// the same for the shape the stage writes, byte for byte and value for
// value, and hand anything else to encoding/json.

// appendTagsJSON appends m exactly as json.Marshal encodes it. It fails,
// as json.Marshal does, on a score that is not finite.
func appendTagsJSON(b []byte, m TagsMessage) ([]byte, error) {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, int64(m.Seq), 10)
	if len(m.Tags) > 0 {
		b = append(b, `,"tags":[`...)
		for i, t := range m.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"label":`...)
			b = appendJSONString(b, t.Label)
			b = append(b, `,"score":`...)
			var err error
			if b, err = appendJSONFloat(b, t.Score); err != nil {
				return nil, err
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if m.Familiarity != 0 {
		b = append(b, `,"familiarity":`...)
		var err error
		if b, err = appendJSONFloat(b, m.Familiarity); err != nil {
			return nil, err
		}
	}
	if m.OutOfDomain {
		b = append(b, `,"out_of_domain":true`...)
	}
	if m.Error != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, m.Error)
	}
	return append(b, '}'), nil
}

// plainJSON reports whether s is written inside JSON quotes unchanged by
// encoding/json: printable ASCII without the characters it escapes.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

func appendJSONString(b []byte, s string) []byte {
	if plainJSON(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

// appendJSONFloat writes f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form only below 1e-6 and from
// 1e21 on, with a two-digit negative exponent shortened to one.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errors.New("streaming: a tag's score or familiarity is not finite")
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// decodeTags reads a tags payload into m as json.Unmarshal would.
func decodeTags(data []byte, m *TagsMessage) error {
	var fast TagsMessage
	if parseTagsFast(data, &fast) {
		*m = fast
		return nil
	}
	*m = TagsMessage{}
	return json.Unmarshal(data, m)
}

// parseTagsFast parses the shape appendTagsJSON writes when its strings are
// plain: {"seq":N[,"tags":[{"label":"…","score":X},…]][,"familiarity":X]
// [,"out_of_domain":true][,"error":"…"]}. It
// reports false, leaving the rest to encoding/json, on anything else,
// including whitespace, other key orders, escapes, and numbers outside
// JSON's grammar or the types' range.
func parseTagsFast(data []byte, m *TagsMessage) bool {
	p := tagsParser{data: data}
	if !p.lit(`{"seq":`) {
		return false
	}
	seq, ok := p.integer()
	if !ok {
		return false
	}
	m.Seq = seq
	if p.lit(`,"tags":[`) {
		m.Tags = []engine.Tag{}
		for {
			var t engine.Tag
			if !p.lit(`{"label":`) {
				return false
			}
			if t.Label, ok = p.str(); !ok || !p.lit(`,"score":`) {
				return false
			}
			if t.Score, ok = p.float(); !ok || !p.lit("}") {
				return false
			}
			m.Tags = append(m.Tags, t)
			if p.lit("]") {
				break
			}
			if !p.lit(",") {
				return false
			}
		}
	}
	if p.lit(`,"familiarity":`) {
		if m.Familiarity, ok = p.float(); !ok {
			return false
		}
	}
	m.OutOfDomain = p.lit(`,"out_of_domain":true`)
	if p.lit(`,"error":`) {
		if m.Error, ok = p.str(); !ok {
			return false
		}
	}
	return p.lit("}") && p.i == len(p.data)
}

type tagsParser struct {
	data []byte
	i    int
}

// lit consumes s if the input goes on with it.
func (p *tagsParser) lit(s string) bool {
	if len(p.data)-p.i < len(s) || string(p.data[p.i:p.i+len(s)]) != s {
		return false
	}
	p.i += len(s)
	return true
}

// str consumes a quoted string of plain characters.
func (p *tagsParser) str() (string, bool) {
	if !p.lit(`"`) {
		return "", false
	}
	start := p.i
	for p.i < len(p.data) && p.data[p.i] != '"' {
		p.i++
	}
	if p.i == len(p.data) {
		return "", false
	}
	s := string(p.data[start:p.i])
	p.i++
	return s, plainJSON(s)
}

// number consumes a number in JSON's grammar and returns its text; frac
// reports a fraction or an exponent.
func (p *tagsParser) number() (text []byte, frac, ok bool) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.data) && p.data[p.i] == '-' {
		p.i++
	}
	lead := p.i
	if n := digits(); n == 0 || (n > 1 && p.data[lead] == '0') {
		return nil, false, false
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, false, false
		}
		frac = true
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, false, false
		}
		frac = true
	}
	return p.data[start:p.i], frac, true
}

func (p *tagsParser) integer() (int, bool) {
	text, frac, ok := p.number()
	if !ok || frac {
		return 0, false
	}
	v, err := strconv.ParseInt(string(text), 10, strconv.IntSize)
	return int(v), err == nil
}

func (p *tagsParser) float() (float64, bool) {
	text, _, ok := p.number()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(text), 64)
	return v, err == nil
}
