package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestUnknownCommandIsAUsageError(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"frobnicate"}, &out, &errb); code != 2 {
		t.Fatalf("exit code %d, want 2", code)
	}
	if !strings.Contains(errb.String(), `unknown command "frobnicate"`) {
		t.Fatalf("stderr does not name the command: %q", errb.String())
	}
}

func TestVersionNamesBackend(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"version"}, &out, &errb); code != 0 {
		t.Fatalf("exit code %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "blas=") {
		t.Fatalf("version output %q lacks the backend", out.String())
	}
}

// The command and task lists keep every summary in one column, however
// long the longest name.
func TestListsAlignSummaries(t *testing.T) {
	for _, args := range [][]string{nil, {"eval"}, {"train"}} {
		var out, errb bytes.Buffer
		run(args, &out, &errb)
		col, rows := -1, 0
		for _, line := range strings.Split(out.String()+errb.String(), "\n") {
			if !strings.HasPrefix(line, "  ") {
				continue
			}
			name := strings.Fields(line)[0]
			at := strings.Index(line[2+len(name):], strings.Fields(line)[1]) + 2 + len(name)
			if col >= 0 && at != col {
				t.Fatalf("%v: %q starts its summary at column %d, the others at %d", args, name, at, col)
			}
			col, rows = at, rows+1
		}
		if rows < 4 {
			t.Fatalf("%v: %d listed lines in %q", args, rows, out.String()+errb.String())
		}
	}
}

// `help` alone and --help print the commands on stdout (exit 0); no
// command at all is a usage error (exit 2, on stderr); `help COMMAND`
// prints that command's flags on stdout, `help train TASK` a task's;
// --version prints what `version` does.
func TestHelpAndVersionConventions(t *testing.T) {
	call := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	code, top, _ := call("help")
	if code != 0 || !strings.Contains(top, "commands:") || !strings.Contains(top, "exit status: 0 success, 1 failure, 2 usage error") {
		t.Fatalf("help: exit %d, %q", code, top)
	}
	if code, out, _ := call("--help"); code != 0 || out != top {
		t.Fatalf("--help: exit %d, %q", code, out)
	}
	if code, out, errb := call(); code != 2 || out != "" || errb != top {
		t.Fatalf("no command: exit %d, stdout %q, stderr %q", code, out, errb)
	}
	for _, c := range []struct{ args, want []string }{
		{[]string{"help", "recognize"}, []string{"usage: rfstream recognize", "  --model string"}},
		{[]string{"help", "train", "digits"}, []string{"usage: rfstream train digits", "  --fsdd string"}},
		{[]string{"help", "train"}, []string{"usage: rfstream train TASK", "  connected"}},
	} {
		code, out, errb := call(c.args...)
		if code != 0 || errb != "" {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errb)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: stdout lacks %q: %q", c.args, w, out)
			}
		}
	}
	if code, _, errb := call("help", "frobnicate"); code != 2 || !strings.Contains(errb, `unknown command "frobnicate"`) {
		t.Errorf("help of an unknown command: exit %d, %q", code, errb)
	}
	_, version, _ := call("version")
	if code, out, _ := call("--version"); code != 0 || out != version || !strings.HasPrefix(version, "rfstream ") {
		t.Errorf("--version: exit %d, %q; version: %q", code, out, version)
	}
}

// Every command's and train task's -h lists its flags as --name, never
// -name; an unknown flag is a usage error (exit 2).
func TestEveryHelpSpellsFlagsWithTwoDashes(t *testing.T) {
	var out, errb bytes.Buffer
	run([]string{"help"}, &out, &errb)
	var helps [][]string
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); strings.HasPrefix(line, "  ") && len(f) > 1 && f[0] != "eval" {
			helps = append(helps, []string{f[0], "-h"})
		}
	}
	for _, task := range []string{"digits", "mnist", "connected", "phones"} {
		helps = append(helps, []string{"train", task, "-h"})
	}
	for _, args := range helps {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		double := 0
		for _, line := range strings.Split(errb.String(), "\n") {
			if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") {
				t.Errorf("%v: single-dash flag %q", args, line)
			}
			if strings.HasPrefix(line, "  --") {
				double++
			}
		}
		if hasFlags := args[0] == "recognize" || len(args) == 3; hasFlags && double == 0 {
			t.Errorf("%v lists no --flag: %s", args, errb.String())
		}
		if code := run(append(args[:len(args)-1:len(args)-1], "--no-such-flag"), &out, &errb); code != 2 {
			t.Errorf("%v --no-such-flag: exit %d, want 2", args[:len(args)-1], code)
		}
	}
}
