package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The mismatch table runs every map with the same number of features and
// reports, per condition, the clean accuracy minus the distorted one.
func TestDigitsMismatchTable(t *testing.T) {
	fsdd := toyFSDD(t)
	var out, errb bytes.Buffer
	code := run([]string{"eval", "digits-mismatch", "--features", "110", "--seeds", "2", "--json", "--", "--fsdd", fsdd, "--frames", "16", "--g", "8"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var res []digitsResult
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
	wantM := map[string]int{"invariant": 110, "maxout": 110, "fourier": 110, "identity": 16 * 40}
	if len(res) != len(wantM) {
		t.Fatalf("%d results, want one per map", len(res))
	}
	for _, r := range res {
		if r.M != wantM[r.Map] || r.Seeds != 2 {
			t.Errorf("%s: %d features over %d seeds, want %d over 2", r.Map, r.M, r.Seeds, wantM[r.Map])
		}
		if len(r.Drops) != len(mismatchConditions) {
			t.Fatalf("%s: drops %v", r.Map, r.Drops)
		}
		for _, c := range mismatchConditions {
			if d := r.Conditions["clean"] - r.Conditions[c.Name]; math.Abs(d-r.Drops[c.Name]) > 1e-9 {
				t.Errorf("%s %s: drop %v, clean − distorted is %v", r.Map, c.Name, r.Drops[c.Name], d)
			}
		}
		if !strings.Contains(out.String(), r.Map) {
			t.Errorf("table does not list %s", r.Map)
		}
	}
	// Rising and falling glides stay apart under a tempo change.
	for _, r := range res {
		if r.Conditions["tempo 1.4x"] < 0.9 {
			t.Errorf("%s: %.2f accuracy on tempo-warped glides", r.Map, r.Conditions["tempo 1.4x"])
		}
	}
}
