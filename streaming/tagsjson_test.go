package streaming

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/rfstream/rfstream/engine"
)

var tagsCases = []TagsMessage{
	{Seq: 0},
	{Seq: -3, Error: "image without a valid Rfs-Seq header"},
	{Seq: 7, Tags: []engine.Tag{{Label: "7", Score: 0.9123456789}, {Label: "1", Score: -0.03}, {Label: "9", Score: 0}}},
	{Seq: 1 << 40, Tags: []engine.Tag{{Label: "tiny", Score: 1.5e-7}, {Label: "huge", Score: -2e21}, {Label: "edge", Score: 1e-6}}},
	{Seq: 2, Tags: []engine.Tag{{Label: "neg zero", Score: math.Copysign(0, -1)}, {Label: "e-300", Score: 3e-300}}},
	{Seq: 3, Tags: []engine.Tag{{Label: `quote " and \ slash`, Score: 1}, {Label: "<b>&</b>", Score: 2}, {Label: "ünï\u2028\x01", Score: 3}}},
	{Seq: 4, Tags: []engine.Tag{{Label: "", Score: 0.5}}, Error: "tab\there"},
	{Seq: 5, Tags: []engine.Tag{{Label: "circle", Score: 0.3}}, Familiarity: 0.41, OutOfDomain: true},
	{Seq: 6, Tags: []engine.Tag{{Label: "square", Score: 0.8}}, Familiarity: 0.97},
}

// The tagger's encoder writes what encoding/json writes, and the client's
// reader reads it back as encoding/json does.
func TestTagsJSONIsEncodingJSON(t *testing.T) {
	for _, m := range tagsCases {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendTagsJSON(nil, m)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("appendTagsJSON(%+v) = %s, %v; json.Marshal gives %s", m, got, err, want)
		}
		var fromJSON, fromUs TagsMessage
		if err := json.Unmarshal(want, &fromJSON); err != nil {
			t.Fatal(err)
		}
		if err := decodeTags(want, &fromUs); err != nil || !reflect.DeepEqual(fromUs, fromJSON) {
			t.Fatalf("decodeTags(%s) = %+v, %v; json.Unmarshal gives %+v", want, fromUs, err, fromJSON)
		}
	}
	// The plain messages the stage sends take the fast path.
	var m TagsMessage
	if !parseTagsFast([]byte(`{"seq":7,"tags":[{"label":"7","score":0.9},{"label":"1","score":-3e-7}]}`), &m) ||
		m.Seq != 7 || len(m.Tags) != 2 || m.Tags[1].Score != -3e-7 {
		t.Fatalf("a plain message missed the fast path: %+v", m)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := appendTagsJSON(nil, TagsMessage{Tags: []engine.Tag{{Label: "x", Score: f}}}); err == nil {
			t.Fatalf("score %v encoded", f)
		}
	}
	// Shapes outside the fast path are still read as encoding/json reads
	// them, errors included.
	for _, in := range []string{
		`{"seq":1,"tags":[]}`, ` {"seq":1}`, `{"tags":[{"score":1,"label":"a"}],"seq":2}`, `{"SEQ":3}`,
		`{"seq":01}`, `{"seq":1.0}`, `{"seq":1e400}`, `{"seq":1,"tags":[{"label":"a","score":1e400}]}`,
		`{"seq":1,"tags":[{"label":"a","score":.5}]}`, `{"seq":1,"tags":[{"label":"\u0041","score":1}]}`,
		`{"seq":1} `, `{"seq":1,"error":"x"`, `{"seq":99999999999999999999}`, `not json`, ``,
	} {
		var a, b TagsMessage
		errA := json.Unmarshal([]byte(in), &a)
		errB := decodeTags([]byte(in), &b)
		if (errA == nil) != (errB == nil) || !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: decodeTags %+v, %v; json.Unmarshal %+v, %v", in, b, errB, a, errA)
		}
	}
}

func FuzzTagsJSON(f *testing.F) {
	f.Add(7, "seven", 0.25, "", 2)
	f.Add(-1, `a"b\c<>&`, 1e-9, "no Rfs-Seq", 0)
	f.Add(1<<40, "ü\u2028", -3e21, "", 1)
	f.Fuzz(func(t *testing.T, seq int, label string, score float64, errText string, n int) {
		m := TagsMessage{Seq: seq, Error: errText, Familiarity: score / 3, OutOfDomain: n%3 == 1}
		for i := range n % 4 {
			m.Tags = append(m.Tags, engine.Tag{Label: label + strconv.Itoa(i), Score: score * float64(i+1)})
		}
		want, errWant := json.Marshal(m)
		got, errGot := appendTagsJSON(nil, m)
		if (errWant == nil) != (errGot == nil) || !bytes.Equal(got, want) {
			t.Fatalf("appendTagsJSON = %s, %v; json.Marshal = %s, %v", got, errGot, want, errWant)
		}
		if errWant != nil {
			return
		}
		var a, b TagsMessage
		errA := json.Unmarshal(want, &a)
		errB := decodeTags(want, &b)
		if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: decodeTags %+v, %v; json.Unmarshal %+v, %v", want, b, errB, a, errA)
		}
	})
}

func FuzzDecodeTags(f *testing.F) {
	for _, m := range tagsCases {
		b, _ := json.Marshal(m)
		f.Add(b)
	}
	f.Add([]byte(`{"seq":1,"tags":[{"label":"a","score":-0.0e+1}],"error":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var a, b TagsMessage
		errA := json.Unmarshal(data, &a)
		errB := decodeTags(data, &b)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%q: decodeTags error %v, json.Unmarshal error %v", data, errB, errA)
		}
		if errA == nil && !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: decodeTags %+v, json.Unmarshal %+v", data, b, a)
		}
	})
}
