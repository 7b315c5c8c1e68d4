package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/rfstream/rfstream/internal/cli"
)

func init() {
	register(&command{name: "eval", summary: "train on a task's training set and report test error",
		run: runEval})
	register(&command{name: "train", summary: "train a model on a task and save it",
		run: func(args []string, stdout, stderr io.Writer) error {
			return cli.DispatchTask("train", args, stdout, stderr)
		}})
}

// labBinary is the laboratory's executable, which `rfstream eval` runs.
const labBinary = "rfstream-lab"

// runEval runs `rfstream-lab eval ARGS…`: the evaluation protocols are the
// laboratory's (experiments/), which the product does not link. The
// laboratory is looked for beside this executable (make build puts both in
// bin/), then on PATH; it speaks as rfstream (its argv[0]), gets this
// process's standard streams, and its exit code is this command's.
func runEval(args []string, stdout, stderr io.Writer) error {
	path, err := findLab()
	if err != nil {
		return err
	}
	cmd := exec.Command(path, append([]string{"eval"}, args...)...)
	cmd.Args[0] = cli.Program
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if code := exit.ExitCode(); code > 0 {
			return cli.ExitCode(code)
		}
		return fmt.Errorf("%s: %w", path, err) // killed by a signal
	}
	return err
}

// findLab returns the laboratory's path: beside this executable, else on
// PATH.
func findLab() (string, error) {
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), labBinary)
		if st, err := os.Stat(beside); err == nil && !st.IsDir() {
			return beside, nil
		}
	}
	if p, err := exec.LookPath(labBinary); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("the evaluation protocols are in the laboratory binary %s, which is neither beside this executable nor on PATH: run make build (it builds bin/rfstream and bin/%s)", labBinary, labBinary)
}
