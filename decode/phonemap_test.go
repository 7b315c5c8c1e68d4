package decode

import (
	"strings"
	"testing"
)

// PER with a map, counted by hand: folding turns some substitutions into
// hits, and dropped phones vanish from both sides before alignment.
func TestPERWithPhoneMap(t *testing.T) {
	m, err := ParsePhoneMap(strings.NewReader("ao aa aa\nix ih ih\nq\nh#\nem m m\n"))
	if err != nil {
		t.Fatal(err)
	}
	type utt struct{ ref, hyp string }
	utts := []utt{
		// ao/aa fold together: a hit, not a substitution; q is dropped
		// from the reference (not a deletion).
		{"h# b ao q t h#", "b aa t"},
		// ix→ih on both sides; em→m: hit. "s"→"z" stays a substitution,
		// the extra "d" an insertion.
		{"ix em s", "ih m z d"},
		// Deletion of "k".
		{"k ae t", "ae t"},
	}
	var raw, folded ErrorCounts
	for _, u := range utts {
		ref, hyp := strings.Fields(u.ref), strings.Fields(u.hyp)
		raw.Add(ref, hyp)
		folded.Add(m.Fold(ref), m.Fold(hyp))
	}
	// Folded references: "b aa t" (3), "ih m s" (3), "k ae t" (3) = 9
	// phones; errors: 1 sub (s→z), 1 ins (d), 1 del (k) → PER 3/9.
	if folded.Ref != 9 || folded.Sub != 1 || folded.Ins != 1 || folded.Del != 1 {
		t.Fatalf("folded counts %+v", folded)
	}
	if got := folded.ErrorRate(); got != 3.0/9 {
		t.Fatalf("folded PER %v, want 1/3", got)
	}
	if got := folded.SER(); got != 2.0/3 {
		t.Fatalf("folded SER %v, want 2/3", got)
	}
	// Unfolded, the same strings score worse: 12 reference phones; utt 1:
	// h#, q, h# deleted and ao→aa substituted (4); utt 2: 3 subs + 1 ins
	// (4); utt 3: 1 del → 9/12.
	if e := raw.Sub + raw.Ins + raw.Del; raw.Ref != 12 || e != 9 {
		t.Fatalf("raw counts %+v (errors %d)", raw, e)
	}
}
