package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
)

// Program is the binary's name in usage texts and error messages. The
// laboratory sets it from how it was invoked, so that `rfstream eval …`,
// which runs the laboratory, still speaks as rfstream.
var Program = "rfstream"

// Command is one subcommand: PROGRAM NAME [flags] [args].
type Command struct {
	Name    string
	Summary string
	Run     func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]*Command{}

// Register adds a command; each registers itself from its own file's init,
// so adding one touches nothing else.
func Register(c *Command) {
	if _, dup := commands[c.Name]; dup {
		panic("rfstream: command registered twice: " + c.Name)
	}
	commands[c.Name] = c
}

// ErrUsage marks an error already explained by a usage message.
var ErrUsage = errors.New("usage")

// ExitCode is an error that only carries the code to exit with: a child
// process's (rfstream eval runs the laboratory), which has said why itself.
type ExitCode int

func (e ExitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s COMMAND [flags] [args]\n", Program)
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	ListNames(w, names, func(n string) string { return commands[n].Summary })
	fmt.Fprintf(w, "\nrun '%s help COMMAND' or '%s COMMAND -h' for a command's flags", Program, Program)
	if _, ok := commands["version"]; ok {
		fmt.Fprintf(w, "; '%s --version' is '%s version'", Program, Program)
	}
	fmt.Fprintln(w, "\nexit status: 0 success, 1 failure, 2 usage error (unknown command or flag, missing argument)")
}

// ListNames prints names sorted, one per line, each with its summary in a
// column wide enough for the longest name.
func ListNames(w io.Writer, names []string, summary func(string) string) {
	sort.Strings(names)
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		fmt.Fprintf(w, "  %-*s  %s\n", width, n, summary(n))
	}
}

// Run runs the command args name and returns the exit code: 0, 1 for an
// error (printed to stderr), 2 for a usage error. `help` alone, -h and
// --help print the commands on stdout; `help COMMAND [TASK]` prints that
// command's help on stdout, as COMMAND [TASK] -h does on stderr; --version
// runs the version command, as GNU and most Go tools spell it.
func Run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return 0
	case "help":
		if len(args) == 1 {
			usage(stdout)
			return 0
		}
		if _, ok := commands[args[1]]; !ok {
			fmt.Fprintf(stderr, "%s help: unknown command %q\n", Program, args[1])
			usage(stderr)
			return 2
		}
		// The command's own -h, on stdout: help is what was asked for.
		return Run(append(append([]string{}, args[1:]...), "-h"), stdout, stdout)
	case "-version", "--version":
		if _, ok := commands["version"]; ok {
			args = append([]string{"version"}, args[1:]...)
		}
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q\n", Program, args[0])
		usage(stderr)
		return 2
	}
	if err := c.Run(args[1:], stdout, stderr); err != nil {
		var code ExitCode
		switch {
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, ErrUsage):
			return 2
		case errors.As(err, &code):
			return int(code)
		}
		fmt.Fprintf(stderr, "%s %s: %v\n", Program, c.Name, err)
		return 1
	}
	return 0
}
