// Command rfstream trains, evaluates and serves random-feature recognisers
// for spoken digits, phones and images.
//
// Each subcommand lives in its own file and registers itself in init, so
// adding one touches nothing else.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand: rfstream NAME [flags] [args].
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("rfstream: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// errUsage marks an error already explained by a usage message.
var errUsage = errors.New("usage")

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: rfstream COMMAND [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	listNames(w, names, func(n string) string { return commands[n].summary })
	fmt.Fprintln(w, "\nrun 'rfstream COMMAND -h' for a command's flags")
}

// listNames prints names sorted, one per line, each with its summary in a
// column wide enough for the longest name.
func listNames(w io.Writer, names []string, summary func(string) string) {
	sort.Strings(names)
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		fmt.Fprintf(w, "  %-*s  %s\n", width, n, summary(n))
	}
}

func main() {
	setSoftMemoryLimit()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	workLog = stderr
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "rfstream: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	if err := c.run(args[1:], stdout, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if errors.Is(err, errUsage) {
			return 2
		}
		fmt.Fprintf(stderr, "rfstream %s: %v\n", c.name, err)
		return 1
	}
	return 0
}

// newFlagSet returns a flag set that reports errors instead of exiting, with
// a help text that names the subcommand.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("rfstream "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: rfstream %s %s\n\nflags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, mapping a flag error to errUsage (already
// printed). Flags may come after positional arguments (rfstream tag FILE
// --limit 3), as people type them; "--" ends flag parsing.
func parseFlags(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return errUsage
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

// dataDir is the git-ignored cache for fetched data and default models:
// $RFSTREAM_DATA, or ./data.
func dataDir() string {
	if d := os.Getenv("RFSTREAM_DATA"); d != "" {
		return d
	}
	return "data"
}

// fsddDir is where the Free Spoken Digit Dataset recordings live:
// $RFSTREAM_FSDD, or ../shared/fsdd/recordings beside this checkout.
func fsddDir() string {
	if d := os.Getenv("RFSTREAM_FSDD"); d != "" {
		return d
	}
	return strings.Join([]string{"..", "shared", "fsdd", "recordings"}, string(os.PathSeparator))
}
