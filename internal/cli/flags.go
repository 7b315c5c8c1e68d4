package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// NewFlagSet returns a flag set that reports errors instead of exiting,
// with a help text that names the subcommand.
func NewFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(Program+" "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s %s %s\n\nflags:\n", Program, name, synopsis)
		PrintFlags(fs)
	}
	return fs
}

// PrintFlags prints fs's flags as flag.PrintDefaults does, with the same
// types, texts and defaults, but spelt --name: the docs and most command
// lines write two dashes, and the flag package takes either.
func PrintFlags(fs *flag.FlagSet) {
	w := fs.Output()
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(w)
	// PrintDefaults starts every flag's entry, and nothing else, with
	// "  -"; a usage text's own lines start with "    \t".
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if strings.HasPrefix(line, "  -") {
			line = "  --" + line[len("  -"):]
		}
		fmt.Fprint(w, line)
	}
}

// ParseFlags parses args, mapping a flag error to ErrUsage (already
// printed). Flags may come after positional arguments (rfstream tag FILE
// --limit 3), as people type them; "--" ends flag parsing. A mistyped
// flag prints the flag package's one-line error and a one-line hint, not
// the whole flag list (up to 80 lines that scroll the error away); -h
// prints the list.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	full := fs.Usage
	fs.Usage = func() {} // the flag package calls it on every error
	defer func() { fs.Usage = full }()
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				full()
				return err
			}
			name := strings.TrimPrefix(fs.Name(), Program+" ")
			fmt.Fprintf(fs.Output(), "run '%s help %s' for its flags\n", Program, name)
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
