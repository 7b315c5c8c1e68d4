package engine

import (
	"encoding/json"
	"testing"

	"github.com/rfstream/rfstream/decode"
)

// TestAdjacentFillersAreOneRejection: filler units decoded back to back
// are one rejected stretch, its confidence the frame-weighted mean.
func TestAdjacentFillersAreOneRejection(t *testing.T) {
	ws := []decode.Word{
		{Label: "lo", StartTime: 0, EndTime: 0.2, Confidence: 0.9},
		{Label: FillerLabel, StartTime: 0.3, EndTime: 0.5, Confidence: 0.8},
		{Label: FillerLabel, StartTime: 0.5, EndTime: 1.1, Confidence: 0.4},
		{Label: "lo", StartTime: 1.2, EndTime: 1.4, Confidence: 0.7},
	}
	r := resultOf(ws, true)
	if r.Text != "lo lo" || len(r.Words) != 3 {
		t.Fatalf("%+v", r)
	}
	w := r.Words[1]
	if !w.Rejected || w.Word != RejectedWord || w.Start != 0.3 || w.End != 1.1 || (w.Conf-0.5) > 1e-12 || (0.5-w.Conf) > 1e-12 {
		t.Fatalf("merged rejection %+v, want 0.3-1.1 with conf 0.5", w)
	}
	w.Conf = 0.5
	b, err := json.Marshal(w)
	if err != nil || string(b) != `{"word":"?","start":0.3,"end":1.1,"conf":0.5,"rejected":true}` {
		t.Fatalf("JSON %s (%v)", b, err)
	}
}
