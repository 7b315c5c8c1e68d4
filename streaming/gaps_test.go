package streaming

import (
	"strings"
	"testing"

	"github.com/rfstream/rfstream/engine"
)

// TestGapListIsBounded: however many gaps a stream has, its result lists at
// most maxGaps, and the last one listed reaches to the end of the last gap,
// so no missing stretch drops out of the report.
func TestGapListIsBounded(t *testing.T) {
	var gaps []engine.Gap
	for i := range 1000 {
		end := float64(i) + 0.5
		gaps = appendGap(gaps, engine.Gap{Start: float64(i), End: &end, Reason: "offset jumped"})
	}
	if len(gaps) != maxGaps {
		t.Fatalf("%d gaps listed, want %d", len(gaps), maxGaps)
	}
	last := gaps[len(gaps)-1]
	if last.Start != maxGaps-1 || last.End == nil || *last.End != 999.5 {
		t.Errorf("last gap %v–%v, want %d–999.5", last.Start, last.End, maxGaps-1)
	}
	if strings.Count(last.Reason, "merged") != 1 {
		t.Errorf("the merged gap's reason says so once: %q", last.Reason)
	}
	for i, g := range gaps[:maxGaps-1] {
		if g.Start != float64(i) || *g.End != float64(i)+0.5 {
			t.Fatalf("gap %d changed: %v–%v", i, g.Start, *g.End)
		}
	}
}
