package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
)

// With --onset-trim-ms only the training rows grow: the table's test
// count and the predictions file list each test recording once, and the
// training count is one row per recording and trim more.
func TestOnsetTrimLeavesTestRowsAlone(t *testing.T) {
	fsdd := toyFSDD(t)
	recs, err := datasets.FSDD(fsdd)
	if err != nil {
		t.Fatal(err)
	}
	train, test := datasets.OfficialSplit(recs)
	dir := t.TempDir()
	counts := func(extra ...string) (string, [][]string) {
		pred := filepath.Join(dir, "pred.tsv")
		var out, errb bytes.Buffer
		args := append([]string{"eval", "digits", "--fsdd", fsdd, "--m", "40", "--frames", "16", "--predictions", pred}, extra...)
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errb.String())
		}
		f, err := os.Open(pred)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r := csv.NewReader(f)
		r.Comma = '\t'
		lines, err := r.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, "official") {
				return strings.Join(strings.Fields(line)[1:3], " "), lines[1:]
			}
		}
		t.Fatalf("no official row in %q", out.String())
		return "", nil
	}
	plainCounts, plainPreds := counts()
	trimCounts, trimPreds := counts("--onset-trim-ms", "50,100")
	want := func(trainRows int) string {
		return strings.Join([]string{strconv.Itoa(trainRows), strconv.Itoa(len(test))}, " ")
	}
	if plainCounts != want(len(train)) || trimCounts != want(3*len(train)) {
		t.Fatalf("train/test counts %q and with two trims %q; want %q and %q", plainCounts, trimCounts, want(len(train)), want(3*len(train)))
	}
	if len(plainPreds) != len(test) || len(trimPreds) != len(test) {
		t.Fatalf("%d and %d predictions, want one per test recording (%d)", len(plainPreds), len(trimPreds), len(test))
	}
	for i := range trimPreds {
		if trimPreds[i][1] != plainPreds[i][1] {
			t.Fatalf("prediction %d is for %s, without trims for %s", i, trimPreds[i][1], plainPreds[i][1])
		}
	}
}
