package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// NewFlagSet returns a flag set that reports errors instead of exiting,
// with a help text that names the subcommand.
func NewFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(Program+" "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s %s %s\n\nflags:\n", Program, name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// ParseFlags parses args, mapping a flag error to ErrUsage (already
// printed). Flags may come after positional arguments (rfstream tag FILE
// --limit 3), as people type them; "--" ends flag parsing.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return ErrUsage
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	// Leave the positional arguments where fs.Args() finds them.
	return fs.Parse(append([]string{"--"}, positional...))
}
