package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/frontend"
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
	res := sizesJSON(t, stdout.String())
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

// --lambda-by loo reaches the fit: the table says how λ was chosen, every
// row's trials are the half-decade grid with the lowest error chosen (ties to
// the larger λ) and used as it is, where the held-out split tries decades and
// scales the winner for the refit; an unknown method is refused.
func TestMNISTSizesLambdaBy(t *testing.T) {
	dir := t.TempDir()
	trI, trL := writeIDX(t, dir, "train", 200)
	teI, teL := writeIDX(t, dir, "test", 40)
	for _, by := range []string{"holdout", "loo"} {
		args := []string{"eval", "mnist-sizes", "--sizes", "5,20", "--maps", "invariant,identity", "--lambda-by", by,
			"--m", "10", "--g", "5", "--shift", "1", "--degrees", "10", "--train-images", trI, "--train-labels", trL,
			"--test-images", teI, "--test-labels", teL, "--out", filepath.Join(dir, by), "--json"}
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("--lambda-by %s: exit %d: %s", by, code, stderr.String())
		}
		want := map[string]string{"holdout": "λ from 10 % of the training rows", "loo": "λ by leave-one-out over all training rows"}[by]
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("--lambda-by %s: the table does not say %q:\n%s", by, want, stdout.String())
		}
		res := sizesJSON(t, stdout.String())
		if len(res.Rows) != 4 {
			t.Fatalf("--lambda-by %s: %d rows, want 4", by, len(res.Rows))
		}
		for _, r := range res.Rows {
			trials := r.LambdaTrials
			wantTrials, step := 6, 1.0
			if by == "loo" {
				wantTrials, step = 15, 0.5
			}
			if len(trials) != wantTrials {
				t.Fatalf("--lambda-by %s, %s, %d per class: %d λ trials, want %d", by, r.Map, r.PerClass, len(trials), wantTrials)
			}
			best := 0
			for i, tr := range trials {
				if i > 0 {
					if d := math.Log10(tr.Relative / trials[i-1].Relative); math.Abs(d-step) > 1e-9 {
						t.Errorf("--lambda-by %s: trials %d and %d are %.3g decades apart, want %g", by, i-1, i, d, step)
					}
				}
				if tr.HeldOutError <= trials[best].HeldOutError {
					best = i
				}
			}
			chosen := trials[best].Lambda
			if by == "holdout" {
				chosen *= 10.0 / 9 // the refit on all rows scales λ by N over the 90 % it was chosen on
			}
			if math.Abs(r.Lambda-chosen) > 1e-9*chosen {
				t.Errorf("--lambda-by %s, %s, %d per class: fitted with λ = %g, the trials choose %g", by, r.Map, r.PerClass, r.Lambda, chosen)
			}
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"eval", "mnist-sizes", "--lambda-by", "cv"}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "--lambda-by") {
		t.Errorf("--lambda-by cv: exit %d, stderr %q", code, stderr.String())
	}
}

// --table (the default; three draws of two sizes make it pay) maps every
// image once and fits the draws from those features; the rows are the ones
// mapping each draw gives, λ, its trials and the accuracy alike.
func TestMNISTSizesTableGivesTheSameRows(t *testing.T) {
	dir := t.TempDir()
	trI, trL := writeIDX(t, dir, "train", 200)
	teI, teL := writeIDX(t, dir, "test", 40)
	rowsWith := func(table string) []sizesRow {
		args := []string{"eval", "mnist-sizes", "--sizes", "5,20", "--draws", "3", "--maps", "invariant", "--table=" + table,
			"--m", "10", "--g", "5", "--shift", "1", "--degrees", "10", "--train-images", trI, "--train-labels", trL,
			"--test-images", teI, "--test-labels", teL, "--out", filepath.Join(dir, "sizes-"+table), "--json"}
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("--table=%s: exit %d: %s", table, code, stderr.String())
		}
		if mapped := strings.Contains(stderr.String(), "mapped 200 training and 40 test images once"); mapped != (table == "true") {
			t.Errorf("--table=%s: report of the one mapping present %v:\n%s", table, mapped, stderr.String())
		}
		res := sizesJSON(t, stdout.String())
		return res.Rows
	}
	with, without := rowsWith("true"), rowsWith("false")
	if len(with) != 6 || len(without) != 6 {
		t.Fatalf("%d rows with the table, %d without; want 6", len(with), len(without))
	}
	for i := range with {
		a, b := with[i], without[i]
		a.TrainSecs, b.TrainSecs = 0, 0
		if ja, jb := fmt.Sprint(a), fmt.Sprint(b); ja != jb {
			t.Errorf("row %d with the table:\n%s\nwithout:\n%s", i, ja, jb)
		}
	}
}

// The table is built only when it maps fewer images than the fits would:
// the paper's 100 draws as one process, not one process per draw.
func TestTablePaysForManyDrawsOnly(t *testing.T) {
	labels := make([]int, 60000)
	for i := range labels {
		labels[i] = i % 10
	}
	mnist := &frontend.LabelledImages{Images: &frontend.Images{N: 60000}, Labels: labels}
	for _, c := range []struct {
		sizes []int
		draws int
		want  bool
	}{
		{[]int{1000}, 1, false},  // 20 000 images against 70 000
		{[]int{1000}, 3, false},  // 60 000
		{[]int{1000}, 4, true},   // 80 000
		{[]int{1000}, 100, true}, // 2 000 000
		{[]int{10, 50, 100, 500, 1000}, 1, false},
		{[]int{10, 50, 100, 500, 1000}, 2, true},
	} {
		var pending []int
		for _, n := range c.sizes {
			for d := 0; d < c.draws; d++ {
				pending = append(pending, n)
			}
		}
		if got := tablePays(mnist, 10000, pending); got != c.want {
			t.Errorf("sizes %v, %d draws: table pays %v, want %v", c.sizes, c.draws, got, c.want)
		}
	}
}

// --resume continues a run from its journal: fits already there are not
// made again and keep their rows, the rest run, and the rows are the ones
// an uninterrupted run gives. A journal made with other fit settings is
// refused, a last line cut short by an interruption is made again, and a
// damaged line before it is an error. A journal written before a flag
// existed resumes with that flag at its default and is refused with
// another value.
func TestMNISTSizesResume(t *testing.T) {
	dir := t.TempDir()
	trI, trL := writeIDX(t, dir, "train", 200)
	teI, teL := writeIDX(t, dir, "test", 40)
	sizes := func(out string, extra ...string) ([]sizesRow, string, error) {
		args := append([]string{"eval", "mnist-sizes", "--sizes", "5,20", "--maps", "invariant,maxout",
			"--m", "10", "--g", "5", "--shift", "1", "--degrees", "10", "--train-images", trI, "--train-labels", trL,
			"--test-images", teI, "--test-labels", teL, "--out", out, "--json"}, extra...)
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			return nil, stderr.String(), fmt.Errorf("exit %d: %s", code, stderr.String())
		}
		res := sizesJSON(t, stdout.String())
		for i := range res.Rows {
			res.Rows[i].TrainSecs = 0
		}
		return res.Rows, stderr.String(), nil
	}
	whole, _, err := sizes(filepath.Join(dir, "whole"), "--draws", "3")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "resumed")
	if _, _, err := sizes(out, "--draws", "2"); err != nil {
		t.Fatal(err)
	}
	got, log, err := sizes(out, "--draws", "3", "--resume")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log, "(from the journal)"); n != 8 {
		t.Errorf("%d fits taken from the journal, want 8 (2 maps × 2 sizes × 2 draws):\n%s", n, log)
	}
	same := func(what string, a, b []sizesRow) {
		t.Helper()
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%s:\n%v\nuninterrupted:\n%v", what, a, b)
		}
	}
	same("resumed", got, whole)

	journal := out + ".rows.jsonl"
	b, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(journal, b[:len(b)-20], 0o644); err != nil {
		t.Fatal(err)
	}
	got, log, err = sizes(out, "--draws", "3", "--resume")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log, "(from the journal)"); n != 11 {
		t.Errorf("after a cut-short last line, %d fits from the journal, want 11", n)
	}
	same("resumed after a cut-short line", got, whole)

	if _, log, err := sizes(out, "--draws", "3", "--resume", "--m", "12"); err == nil || !strings.Contains(log, `--m was "10", now "12"`) {
		t.Errorf("resuming with another --m: %v", err)
	}
	// The same journal as if written before --lambda-grid existed.
	b, err = os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	older := strings.Replace(string(b), `"lambda-grid":"",`, "", 1)
	if older == string(b) {
		t.Fatalf("no --lambda-grid in the journal's flags: %.300s", b)
	}
	for _, grid := range []string{"", "1e-3"} {
		if err := os.WriteFile(journal, []byte(older), 0o644); err != nil {
			t.Fatal(err)
		}
		_, log, err := sizes(out, "--draws", "3", "--resume", "--lambda-grid", grid)
		if grid == "" && (err != nil || strings.Count(log, "(from the journal)") != 12) {
			t.Errorf("a journal older than --lambda-grid, resumed at its default: %v\n%s", err, log)
		}
		if grid != "" && (err == nil || !strings.Contains(log, "predates the flag")) {
			t.Errorf("a journal older than --lambda-grid, resumed with --lambda-grid %s: %v", grid, err)
		}
	}
	// Without --resume the earlier journal is kept aside, not overwritten.
	if _, log, err := sizes(out, "--draws", "1", "--sizes", "5"); err != nil || !strings.Contains(log, "kept the fits of the earlier run") {
		t.Fatalf("a fresh run over a journal: %v\n%s", err, log)
	}
	if old, err := os.ReadFile(journal + ".old"); err != nil || strings.Count(string(old), "\n") != 13 {
		t.Fatalf("the earlier journal kept as .old: %d lines, %v; want the flags and 12 fits", strings.Count(string(old), "\n"), err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[3] = "{damaged\n"
	if err := os.WriteFile(journal, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, log, err := sizes(out, "--draws", "3", "--resume"); err == nil || !strings.Contains(log, "line 4") {
		t.Errorf("resuming a journal damaged in line 4: %v", err)
	}
}

// sizesJSON decodes the JSON object eval mnist-sizes --json ends with.
func sizesJSON(t *testing.T, stdout string) (res struct {
	Rows []sizesRow `json:"rows"`
}) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// --lambda-path scores the test set at every λ of the path and changes
// nothing else: the rows' λ, trials and accuracy are those of a run without
// it, the path holds every value asked in order, its point at the chosen λ
// scores the row's accuracy, and its point at a value x is what the
// one-value grid --lambda-grid x gives. Values that are not distinct
// positive numbers are refused.
func TestMNISTSizesLambdaPath(t *testing.T) {
	dir := t.TempDir()
	trI, trL := writeIDX(t, dir, "train", 200)
	teI, teL := writeIDX(t, dir, "test", 40)
	path := []float64{1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1}
	rowsWith := func(extra ...string) ([]sizesRow, string) {
		args := append([]string{"eval", "mnist-sizes", "--sizes", "5,20", "--draws", "2", "--maps", "invariant,maxout",
			"--m", "10", "--g", "5", "--shift", "1", "--degrees", "10", "--train-images", trI, "--train-labels", trL,
			"--test-images", teI, "--test-labels", teL, "--out", filepath.Join(dir, fmt.Sprint("sizes", len(extra))), "--json"}, extra...)
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr.String())
		}
		return sizesJSON(t, stdout.String()).Rows, stderr.String()
	}
	plain, _ := rowsWith()
	list := strings.Trim(strings.ReplaceAll(fmt.Sprint(path), " ", ","), "[]")
	with, log := rowsWith("--lambda-path", list)
	if len(plain) != 8 || len(with) != 8 {
		t.Fatalf("%d rows without the path, %d with; want 8", len(plain), len(with))
	}
	for i, r := range with {
		if len(r.LambdaPath) != len(path) {
			t.Fatalf("row %d: path %+v, want %d points", i, r.LambdaPath, len(path))
		}
		atChosen := -1
		for j, p := range r.LambdaPath {
			if p.Relative != path[j] || !(p.Lambda > 0) || p.Accuracy < 0 || p.Accuracy > 1 {
				t.Fatalf("row %d, point %d: %+v (asked %g)", i, j, p, path[j])
			}
			if p.Lambda == r.Lambda {
				atChosen = j
			}
		}
		if atChosen < 0 || r.LambdaPath[atChosen].Accuracy != r.Accuracy {
			t.Errorf("row %d (λ %g, accuracy %g): path %+v has no point scoring the chosen model", i, r.Lambda, r.Accuracy, r.LambdaPath)
		}
		a, b := r, plain[i]
		a.TrainSecs, b.TrainSecs, a.LambdaPath = 0, 0, nil
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("row %d with the path:\n%v\nwithout:\n%v", i, a, b)
		}
	}
	fixed, _ := rowsWith("--lambda-grid", "1e-4")
	for i, r := range fixed {
		p := with[i].LambdaPath[3]
		if p.Relative != 1e-4 || r.Lambda != p.Lambda || r.Accuracy != p.Accuracy {
			t.Errorf("row %d: --lambda-grid 1e-4 gives λ %g, accuracy %g; the path there %+v", i, r.Lambda, r.Accuracy, p)
		}
	}
	if !strings.Contains(log, "path: λ") {
		t.Errorf("the log does not list the path:\n%s", log)
	}
	for _, bad := range []string{"0", "-1e-3", "x", "1e-3,inf", "1e-3,1e-3"} {
		for _, flag := range []string{"--lambda-path", "--lambda-grid"} {
			var stdout, stderr bytes.Buffer
			if code := run([]string{"eval", "mnist-sizes", flag, bad}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), flag) {
				t.Errorf("%s %q: exit %d, stderr %q", flag, bad, code, stderr.String())
			}
		}
	}
}
