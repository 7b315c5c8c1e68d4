package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/internal/linalg"
)

// eval table1 fits every cell of its q × m grid, small m with several
// seeds, one CSV row a fit; it takes --blas-threads, and the BLAS's thread
// count is the same after the grid as before, whatever each fit chose.
func TestTable1GridAndThreads(t *testing.T) {
	dir := t.TempDir()
	trI, trL := writeIDX(t, dir, "train", 120)
	teI, teL := writeIDX(t, dir, "test", 30)
	before := linalg.Threads()
	for _, threads := range []string{"0", "1"} {
		out := filepath.Join(dir, "t"+threads)
		args := []string{"eval", "table1", "--q", "2,4", "--m", "20,2000", "--seeds", "2", "--rff", "0", "--blas-threads", threads,
			"--train-images", trI, "--train-labels", trL, "--test-images", teI, "--test-labels", teL, "--out", out}
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("--blas-threads %s: exit %d: %s", threads, code, stderr.String())
		}
		if got := linalg.Threads(); got != before {
			t.Errorf("--blas-threads %s: %d BLAS threads after the grid, %d before", threads, got, before)
		}
		b, err := os.ReadFile(out + ".csv")
		if err != nil {
			t.Fatal(err)
		}
		rows := strings.Split(strings.TrimSpace(string(b)), "\n")[1:]
		// m = 20 (≤ 1000) with 2 seeds, m = 2000 with one, for each q.
		if len(rows) != 2*(2+1) {
			t.Fatalf("--blas-threads %s: %d fits in the CSV, want 6:\n%s", threads, len(rows), b)
		}
		for _, r := range rows {
			if !strings.HasPrefix(r, "maxout,") {
				t.Errorf("row %q: not a maxout fit", r)
			}
		}
	}
}
