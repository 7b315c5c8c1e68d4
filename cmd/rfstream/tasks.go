package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

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
// bin/), then on PATH, then built from the checkout; it speaks as rfstream (its argv[0]), gets this
// process's standard streams, and its exit code is this command's.
func runEval(args []string, stdout, stderr io.Writer) error {
	path, cleanup, err := findLab(stderr)
	if err != nil {
		return err
	}
	defer cleanup()
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
// PATH, else — inside a checkout of this module with the go tool at hand —
// built from the checkout into a temporary folder, so that a binary built
// alone (go build ./cmd/rfstream) still evaluates.
func findLab(stderr io.Writer) (path string, cleanup func(), err error) {
	cleanup = func() {}
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), labBinary)
		if st, err := os.Stat(beside); err == nil && !st.IsDir() {
			return beside, cleanup, nil
		}
	}
	if p, err := exec.LookPath(labBinary); err == nil {
		return p, cleanup, nil
	}
	root, ok := checkoutRoot()
	goTool, goErr := exec.LookPath("go")
	if !ok || goErr != nil {
		return "", cleanup, fmt.Errorf("the evaluation protocols are in the laboratory binary %s, which is neither beside this executable nor on PATH: run make build (it builds bin/rfstream and bin/%s)", labBinary, labBinary)
	}
	dir, err := os.MkdirTemp("", "rfstream-lab")
	if err != nil {
		return "", cleanup, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, labBinary)
	fmt.Fprintf(stderr, "%s is not built: building it from the checkout at %s\n", labBinary, root)
	build := exec.Command(goTool, "build", "-o", path, "./experiments/cmd/"+labBinary)
	build.Dir, build.Stdout, build.Stderr = root, stderr, stderr
	if err := build.Run(); err != nil {
		cleanup()
		return "", func() {}, fmt.Errorf("building %s: %w", labBinary, err)
	}
	return path, cleanup, nil
}

// modulePath is this module's import path, as go.mod declares it.
const modulePath = "github.com/rfstream/rfstream"

// checkoutRoot finds the checkout of this module that holds the working
// directory: the nearest folder upwards whose go.mod declares modulePath
// and which has the laboratory's source.
func checkoutRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if mod, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			_, lab := os.Stat(filepath.Join(dir, "experiments", "cmd", labBinary))
			return dir, lab == nil && modfile(mod) == modulePath
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", false
		}
		dir = up
	}
}

// modfile returns the module path a go.mod declares ("" when none).
func modfile(mod []byte) string {
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}
