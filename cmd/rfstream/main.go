package main

import (
	"flag"
	"io"
	"os"

	"github.com/rfstream/rfstream/internal/cli"
)

// command is one subcommand: rfstream NAME [flags] [args]. Each lives in
// its own file and registers itself in init, so adding one touches nothing
// else; register hands it to the registry the laboratory shares
// (internal/cli).
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func register(c *command) {
	cli.Register(&cli.Command{Name: c.name, Summary: c.summary, Run: c.run})
}

// errUsage marks an error already explained by a usage message.
var errUsage = cli.ErrUsage

func main() {
	cli.SetSoftMemoryLimit()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int { return cli.Run(args, stdout, stderr) }

// newFlagSet returns a flag set that reports errors instead of exiting, with
// a help text that names the subcommand.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	return cli.NewFlagSet(name, synopsis, stderr)
}

// parseFlags parses args (cli.ParseFlags: flags may follow positional
// arguments).
func parseFlags(fs *flag.FlagSet, args []string) error { return cli.ParseFlags(fs, args) }
