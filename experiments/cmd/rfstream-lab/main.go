// Command rfstream-lab is the laboratory's binary: `rfstream-lab eval TASK
// [flags]` runs one evaluation protocol, with the task names and flags
// `rfstream eval TASK` has always had (rfstream runs this binary for it).
// Each protocol lives in its own file and registers itself in init.
package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/rfstream/rfstream/internal/cli"
)

func init() {
	cli.Register(&cli.Command{Name: "eval", Summary: "train on a task's training set and report test error",
		Run: func(args []string, stdout, stderr io.Writer) error {
			return cli.DispatchTask("eval", args, stdout, stderr)
		}})
}

func main() {
	cli.SetSoftMemoryLimit()
	// Named as invoked: rfstream eval runs this binary as "rfstream", so
	// its usage texts and errors read as they always have.
	cli.Program = filepath.Base(os.Args[0])
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int { return cli.Run(args, stdout, stderr) }
