package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With --draws K every map and size is fitted on K training subsets, drawn
// with consecutive subset seeds; the JSON keeps every draw, the CSV names
// each draw's seed, and the table cell is their mean ± std.
func TestMNISTSizesDraws(t *testing.T) {
	dir := t.TempDir()
	trI, trL := writeIDX(t, dir, "train", 200)
	teI, teL := writeIDX(t, dir, "test", 40)
	out := filepath.Join(dir, "sizes")
	args := []string{"eval", "mnist-sizes", "--sizes", "5,20", "--draws", "3", "--subset-seed", "4", "--maps", "invariant,maxout",
		"--m", "10", "--g", "5", "--shift", "1", "--degrees", "10", "--train-images", trI, "--train-labels", trL,
		"--test-images", teI, "--test-labels", teL, "--out", out, "--json"}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var res struct {
		Rows []sizesRow `json:"rows"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range res.Rows {
		if r.SubsetSeed < 4 || r.SubsetSeed > 6 {
			t.Errorf("%s, %d per class: subset seed %d outside 4..6", r.Map, r.PerClass, r.SubsetSeed)
		}
		if r.TrainN != 2*r.PerClass {
			t.Errorf("%s, %d per class, seed %d: %d training rows, want %d", r.Map, r.PerClass, r.SubsetSeed, r.TrainN, 2*r.PerClass)
		}
		seen[fmt.Sprint(r.Map, r.PerClass, r.SubsetSeed)]++
	}
	if len(res.Rows) != 2*2*3 || len(seen) != 12 {
		t.Fatalf("%d rows (%d distinct map/size/seed), want 12 distinct: %+v", len(res.Rows), len(seen), res.Rows)
	}
	// Every cell is the mean ± std of its three draws.
	for _, m := range []string{"invariant", "maxout"} {
		for _, n := range []int{5, 20} {
			var acc []float64
			for _, r := range res.Rows {
				if r.Map == m && r.PerClass == n {
					acc = append(acc, 100*r.Accuracy)
				}
			}
			mean, std := meanStd(acc)
			if cell := fmt.Sprintf("%.2f ± %.2f%%", mean, std); !strings.Contains(stdout.String(), cell) {
				t.Errorf("%s, %d per class: no cell %q in the table:\n%s", m, n, cell, stdout.String())
			}
		}
	}
	csv, err := os.ReadFile(out + ".csv")
	if err != nil {
		t.Fatal(err)
	}
	if rows := strings.Split(strings.TrimSpace(string(csv)), "\n"); len(rows) != 13 || !strings.HasPrefix(rows[0], "map,per_class,subset_seed,") {
		t.Fatalf("CSV: %d lines, header %q", len(rows), rows[0])
	}
}
