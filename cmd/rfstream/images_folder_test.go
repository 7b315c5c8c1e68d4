package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/internal/fixtures"
	"github.com/rfstream/rfstream/streaming"
)

// tagJSON runs tag --json on dir and returns its replies.
func tagJSON(t *testing.T, model, dir string) []streaming.TagsMessage {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"tag", "--model", model, "--json", dir}, &out, &errb); code != 0 {
		t.Fatalf("tag %s: exit %d: %s", dir, code, errb.String())
	}
	var replies []streaming.TagsMessage
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var r streaming.TagsMessage
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		replies = append(replies, r)
	}
	return replies
}

// A folder of three classes of shapes in mixed formats, sizes and
// polarities trains a model that tags the held-apart test shapes right and
// marks pictures of no class (noise, gratings, blobs) out of domain.
func TestTrainImagesFolderTagsAndMarksOutOfDomain(t *testing.T) {
	dir := t.TempDir()
	classes := []string{"circle", "cross", "square"}
	for _, s := range []struct {
		sub   string
		kinds []string
		n     int
		seed  uint64
	}{{"train", classes, 30, 1}, {"test", classes, 8, 2}, {"other", []string{"noise", "grating", "blobs"}, 6, 3}} {
		if err := fixtures.WriteShapeFolder(filepath.Join(dir, s.sub), s.kinds, s.n, s.seed); err != nil {
			t.Fatal(err)
		}
	}
	model := filepath.Join(dir, "shapes.rfm")
	var out, errb bytes.Buffer
	code := run([]string{"train", "images", "--dir", filepath.Join(dir, "train"), "--test-dir", filepath.Join(dir, "test"),
		"--m", "300", "--out", model, "--json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("train images: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var rep struct {
		TestN       int     `json:"test_n"`
		TestError   float64 `json:"test_error"`
		OutOfDomain *struct {
			Components int `json:"components"`
		} `json:"out_of_domain"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.TestN != 24 || rep.TestError > 0.1 || rep.OutOfDomain == nil {
		t.Fatalf("report %+v (%s)", rep, out.String())
	}
	inDomain, outside := 0, 0
	for _, c := range classes {
		for _, r := range tagJSON(t, model, filepath.Join(dir, "test", c)) {
			if r.Tags[0].Label != c {
				t.Errorf("a %s tagged %+v", c, r.Tags)
			}
			if !r.OutOfDomain {
				inDomain++
			}
		}
	}
	for _, k := range []string{"noise", "grating", "blobs"} {
		for _, r := range tagJSON(t, model, filepath.Join(dir, "other", k)) {
			if r.OutOfDomain {
				outside++
			}
		}
	}
	if inDomain < 22 || outside < 15 {
		t.Fatalf("%d of 24 test shapes in domain, %d of 18 other pictures out of domain", inDomain, outside)
	}
	var txt bytes.Buffer
	run([]string{"tag", "--model", model, filepath.Join(dir, "other", "noise")}, &txt, &errb)
	if !strings.Contains(txt.String(), "out of domain (familiarity") || !regexp.MustCompile(`; [1-6] out of domain\n$`).MatchString(txt.String()) {
		t.Fatalf("tag's text output does not say out of domain:\n%s", txt.String())
	}
}

// train images refuses a folder it cannot use, naming the file or folder
// and the reason, with exit status 1 (2 for a missing flag).
func TestTrainImagesRefusesBadFolders(t *testing.T) {
	dir := t.TempDir()
	if err := fixtures.WriteShapeFolder(filepath.Join(dir, "good"), []string{"circle", "square"}, 4, 1); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "good", "square", "zz-broken.jpg")
	if err := os.WriteFile(broken, []byte("\xff\xd8\xffnot a jpeg"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "one", "circle"), 0o755)
	os.WriteFile(filepath.Join(dir, "one", "circle", "a.pgm"), []byte("P2 1 1 255 9"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--dir", filepath.Join(dir, "good")}, 1, "zz-broken.jpg"},
		{[]string{"--dir", filepath.Join(dir, "one")}, 1, "at least two"},
		{[]string{"--dir", filepath.Join(dir, "missing")}, 1, "no such file"},
		{nil, 2, "usage"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"train", "images", "--m", "50", "--out", filepath.Join(dir, "m.rfm")}, c.args...)
		if code := run(args, &out, &errb); code != c.code || !strings.Contains(strings.ToLower(errb.String()), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errb.String(), c.code, c.want)
		}
	}
}
