package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every fold's choice is the candidate with the best inner score, and the
// nested accuracy is that candidate's outer accuracy on the fold.
func TestEvalDigitsNested(t *testing.T) {
	fsdd := toyFSDD3(t)
	var out, errb bytes.Buffer
	code := run([]string{"eval", "digits-nested", "--fsdd", fsdd, "--json",
		"--candidate", "tiny: --m 1 --lambda 100",
		"--candidate", "wide: --m 40 --lambda 1e-3",
		"--", "--frames", "16"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var res struct {
		Accuracy float64
		Folds    []struct {
			Speaker, Chosen string
			Inner           map[string]float64
			Outer           float64
		}
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Folds) != 3 {
		t.Fatalf("%d folds, want 3", len(res.Folds))
	}
	var sum float64
	for _, f := range res.Folds {
		best := "tiny"
		if f.Inner["wide"] > f.Inner["tiny"] {
			best = "wide"
		}
		if f.Chosen != best {
			t.Errorf("%s: chose %s with inner scores %v", f.Speaker, f.Chosen, f.Inner)
		}
		sum += f.Outer
	}
	if d := sum/3 - res.Accuracy; d > 1e-9 || d < -1e-9 {
		t.Errorf("nested accuracy %v, mean of the folds %v", res.Accuracy, sum/3)
	}
	// Each inner run left its outer speaker out entirely.
	for _, s := range []string{"ann", "bob", "cy"} {
		if !strings.Contains(errb.String(), "--exclude-speakers "+s) {
			t.Errorf("no inner run without %s", s)
		}
	}
}

func TestEvalDigitsNestedRefusesBadCandidates(t *testing.T) {
	fsdd := toyFSDD(t)
	for _, bad := range [][]string{
		{},
		{"--candidate", "no colon"},
		{"--candidate", ": --m 3"},
		{"--candidate", "a: --m 3", "--candidate", "a: --m 4"},
		{"--candidate", "a: --split official"},
		{"--candidate", "a: --exclude-speakers=ann"},
		{"--candidate", "a: --m 3"}, // two speakers only
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"eval", "digits-nested", "--fsdd", fsdd}, bad...), &out, &errb); code == 0 {
			t.Errorf("%v: exit 0", bad)
		}
	}
}

// A flag given both by a candidate and after -- for every run is refused
// before anything runs: the later value would silently win.
func TestEvalDigitsNestedRefusesAFlagSetTwice(t *testing.T) {
	fsdd := toyFSDD3(t)
	for _, shared := range [][]string{{"--m", "4"}, {"--m=4"}, {"-m", "4"}} {
		var out, errb bytes.Buffer
		args := append([]string{"eval", "digits-nested", "--fsdd", fsdd,
			"--candidate", "a: --frames 16", "--candidate", "b: --frames 16 --m 3", "--"}, shared...)
		if code := run(args, &out, &errb); code == 0 {
			t.Fatalf("%v: exit 0", shared)
		}
		if !strings.Contains(errb.String(), "candidate b sets --m") {
			t.Errorf("%v: the error does not name the candidate and the flag: %s", shared, errb.String())
		}
		if strings.Contains(errb.String(), "eval digits --") {
			t.Errorf("%v: ran before refusing: %s", shared, errb.String())
		}
	}
}

func TestFlagName(t *testing.T) {
	for a, want := range map[string]string{"--m": "m", "-m": "m", "--m=3000": "m", "--floor-share": "floor-share",
		"-1": "", "-0.5": "", "--": "", "3000": "", "0.1,0.2": "", "-": ""} {
		got, ok := flagName(a)
		if got != want || ok != (want != "") {
			t.Errorf("flagName(%q) = %q, %v; want %q", a, got, ok, want)
		}
	}
}

// --results records every run and a second selection reuses them: the
// same table without running eval digits again; with part of the file, it
// runs only what is missing and still gives the same table.
func TestEvalDigitsNestedResumesFromResults(t *testing.T) {
	fsdd := toyFSDD3(t)
	results := filepath.Join(t.TempDir(), "runs.jsonl")
	nested := func() (string, string) {
		var out, errb bytes.Buffer
		code := run([]string{"eval", "digits-nested", "--fsdd", fsdd, "--results", results,
			"--candidate", "tiny: --m 1 --lambda 100",
			"--candidate", "wide: --m 40 --lambda 1e-3",
			"--", "--frames", "16"}, &out, &errb)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		return out.String(), errb.String()
	}
	ran := func(log string) int {
		n := 0
		for _, l := range strings.Split(log, "\n") {
			if strings.HasPrefix(l, "eval digits ") {
				n++
			}
		}
		return n
	}
	first, log := nested()
	// 2 candidates × (1 outer + 3 inner) runs.
	if n := ran(log); n != 8 {
		t.Fatalf("first selection ran eval digits %d times, want 8", n)
	}
	b, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 8 {
		t.Fatalf("%d lines in --results, want 8", len(lines))
	}
	again, log := nested()
	if n := ran(log); n != 0 || strings.Count(log, "reused from") != 8 {
		t.Errorf("second selection ran %d times and reused %d, want 0 and 8:\n%s", n, strings.Count(log, "reused from"), log)
	}
	if again != first {
		t.Errorf("reused runs changed the table:\n%s\nwant\n%s", again, first)
	}
	if err := os.WriteFile(results, []byte(strings.Join(lines[:3], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	resumed, log := nested()
	if n := ran(log); n != 5 {
		t.Errorf("with 3 runs recorded the selection ran %d, want 5", n)
	}
	if resumed != first {
		t.Errorf("resumed selection changed the table:\n%s\nwant\n%s", resumed, first)
	}
	if err := os.WriteFile(results, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "digits-nested", "--fsdd", fsdd, "--results", results, "--candidate", "tiny: --m 1"}, &out, &errb); code == 0 {
		t.Error("a --results file that is not JSON lines was accepted")
	}
}

// Runs recorded with the recordings' digest are reused when the same files
// lie under another folder, and not when a file differs; runs recorded
// before digests (no "dataset") are reused only under their own path.
// --reuse-only builds the same table from the file alone, or fails naming
// the missing run.
func TestEvalDigitsNestedResultsFollowTheRecordings(t *testing.T) {
	fsdd := toyFSDD3(t)
	// Test binaries carry no VCS stamp, so the linked-in revision is used.
	defer func(r string) { revision = r }(revision)
	revision = "abc1234"
	results := filepath.Join(t.TempDir(), "runs.jsonl")
	nested := func(dir, resultsFile string, extra ...string) (string, string, int) {
		var out, errb bytes.Buffer
		args := append([]string{"eval", "digits-nested", "--fsdd", dir, "--results", resultsFile}, extra...)
		args = append(args, "--candidate", "tiny: --m 1 --lambda 100", "--candidate", "wide: --m 40 --lambda 1e-3", "--", "--frames", "16")
		code := run(args, &out, &errb)
		return out.String(), errb.String(), code
	}
	first, log, code := nested(fsdd, results)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, log)
	}
	b, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	var rec nestedRun
	if err := json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rec.Dataset, "36 recordings, sha256:") || rec.Revision != "abc1234" {
		t.Fatalf("recorded dataset %q, revision %q: want the digest of the 36 toy recordings and abc1234", rec.Dataset, rec.Revision)
	}

	moved := t.TempDir()
	copyDir(t, fsdd, moved)
	again, log, code := nested(moved, results, "--reuse-only")
	if code != 0 || strings.Count(log, "reused from") != 8 {
		t.Fatalf("same recordings in another folder: exit %d, %d runs reused, want 0 and 8:\n%s", code, strings.Count(log, "reused from"), log)
	}
	if again != first {
		t.Errorf("table from the records differs:\n%s\nwant\n%s", again, first)
	}

	writeWAV(t, filepath.Join(moved, "0_ann_0.wav"), downWord(7))
	if _, log, code := nested(moved, results, "--reuse-only"); code == 0 || !strings.Contains(log, "is not in") {
		t.Errorf("a changed recording still matched the records: exit %d\n%s", code, log)
	}

	// The same records without digests, as files written before them.
	var old []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r nestedRun
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		r.Dataset = ""
		o, _ := json.Marshal(r)
		old = append(old, string(o))
	}
	oldResults := filepath.Join(t.TempDir(), "old.jsonl")
	if err := os.WriteFile(oldResults, []byte(strings.Join(old, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, log, code := nested(fsdd, oldResults, "--reuse-only"); code != 0 || out != first {
		t.Errorf("records without digests under their own path: exit %d\n%s", code, log)
	}
	other := t.TempDir()
	copyDir(t, fsdd, other)
	if _, _, code := nested(other, oldResults, "--reuse-only"); code == 0 {
		t.Error("records without digests matched another folder's path")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "digits-nested", "--fsdd", fsdd, "--reuse-only", "--candidate", "tiny: --m 1"}, &out, &errb); code == 0 {
		t.Error("--reuse-only without --results accepted")
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
