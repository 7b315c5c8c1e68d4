package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/train"
)

// TestMain builds the laboratory into a temporary folder on PATH, so that
// rfstream eval, which runs it as a child process, works in the tests as
// after make build.
func TestMain(m *testing.M) {
	// The tests choose their NATS servers themselves; a developer's
	// $NATS_URL or credentials must not redirect them.
	for _, v := range natsEnv {
		os.Unsetenv(v)
	}
	os.Exit(withLab(func() int { return holdNATSEvents(m.Run) }))
}

func withLab(run func() int) int {
	dir, err := os.MkdirTemp("", "rfstream-lab-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	goTool, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintf(os.Stderr, "the go tool, to build the laboratory for rfstream eval: %v\n", err)
		return 1
	}
	build := exec.Command(goTool, "build", "-o", filepath.Join(dir, labBinary), "github.com/rfstream/rfstream/experiments/cmd/rfstream-lab")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building the laboratory for rfstream eval: %v\n", err)
		return 1
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return run()
}

// rfstream eval is the laboratory's eval: its usage and its exit codes
// (2 for a usage error, 1 for an error, 0) pass through, and without the
// laboratory the error says how to build it.
func TestEvalRunsTheLaboratory(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"eval"}, 2, "usage: rfstream eval TASK [flags]"},
		{[]string{"eval", "nope"}, 2, `rfstream eval: unknown task "nope"`},
		{[]string{"eval", "digits", "--fsdd", t.TempDir()}, 1, "rfstream eval:"},
		{[]string{"eval", "figure1", "-h"}, 0, "usage: rfstream eval figure1"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errb.String(), c.code, c.want)
		}
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	// A binary built alone, inside the checkout, with the go tool on PATH
	// but not the laboratory: the laboratory is built from the checkout.
	t.Setenv("PATH", filepath.Dir(goTool))
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "figure1", "-h"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "building it from the checkout") || !strings.Contains(errb.String(), "usage: rfstream eval figure1") {
		t.Errorf("inside the checkout without the laboratory: exit %d, stderr %q", code, errb.String())
	}
	// Outside any checkout, or without the go tool: make build is named.
	for _, c := range []struct {
		name, path, dir string
	}{
		{"outside the checkout", filepath.Dir(goTool), t.TempDir()},
		{"without the go tool", t.TempDir(), "."},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("PATH", c.path)
			t.Chdir(c.dir)
			var out, errb bytes.Buffer
			if code := run([]string{"eval", "digits"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "make build") {
				t.Errorf("exit %d, stderr %q", code, errb.String())
			}
		})
	}
}

// toyFSDD3 is the toy word set spoken by three voices, enough for a
// leave-one-speaker-out inside leave-one-speaker-out.
func toyFSDD3(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := toymodels.WriteFSDD(dir, []string{"ann", "bob", "cy"}, 6); err != nil {
		t.Fatal(err)
	}
	return dir
}

// prediction is one recording's row of an eval digits --predictions file.
type prediction struct {
	Label, Predicted string
	Margin           float64
}

// readPredictions reads the laboratory's --predictions file (a header,
// then split, path, speaker, label, predicted, margin per line) by path.
func readPredictions(path string) (map[string]prediction, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	out := map[string]prediction{}
	for _, line := range lines[1:] {
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			return nil, fmt.Errorf("%s: %q is not a predictions row", path, line)
		}
		m, err := strconv.ParseFloat(f[5], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, line, err)
		}
		out[f[1]] = prediction{Label: f[3], Predicted: f[4], Margin: m}
	}
	return out, nil
}

// excludeSpeakers is train's, under the name the recognize tests use.
var excludeSpeakers = train.ExcludeSpeakers

// lastLine is the last line of s, trimmed.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// The product does not link the laboratory: nothing it builds from
// imports experiments/.
func TestProductDoesNotImportTheLaboratory(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/rfstream/rfstream/cmd/rfstream").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/rfstream/rfstream/experiments") {
			t.Errorf("rfstream imports %s", p)
		}
	}
}
