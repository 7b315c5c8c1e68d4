package cli

import (
	"fmt"
	"io"
)

// Task is something `eval` or `train` knows how to do: each data set
// (mnist, xperm, digits, …) registers one from its own file. The product
// registers the train side of its tasks, the laboratory the eval side of
// all of them.
type Task struct {
	Name    string
	Summary string
	Eval    func(args []string, stdout, stderr io.Writer) error
	Train   func(args []string, stdout, stderr io.Writer) error
}

var tasks = map[string]*Task{}

// RegisterTask adds a task.
func RegisterTask(t *Task) {
	if _, dup := tasks[t.Name]; dup {
		panic("rfstream: task registered twice: " + t.Name)
	}
	tasks[t.Name] = t
}

func (t *Task) verb(verb string) func([]string, io.Writer, io.Writer) error {
	if verb == "eval" {
		return t.Eval
	}
	return t.Train
}

func taskUsage(w io.Writer, verb string) {
	fmt.Fprintf(w, "usage: %s %s TASK [flags]\n\ntasks:\n", Program, verb)
	names := make([]string, 0, len(tasks))
	for n, t := range tasks {
		if t.verb(verb) != nil {
			names = append(names, n)
		}
	}
	ListNames(w, names, func(n string) string { return tasks[n].Summary })
	fmt.Fprintf(w, "\nrun '%s %s TASK -h' for a task's flags\n", Program, verb)
}

// DispatchTask runs the task args[0] names under verb ("eval" or "train").
func DispatchTask(verb string, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		taskUsage(stderr, verb)
		if len(args) == 0 {
			return ErrUsage
		}
		return nil
	}
	var fn func([]string, io.Writer, io.Writer) error
	if t, ok := tasks[args[0]]; ok {
		fn = t.verb(verb)
	}
	if fn == nil {
		fmt.Fprintf(stderr, "%s %s: unknown task %q\n", Program, verb, args[0])
		taskUsage(stderr, verb)
		return ErrUsage
	}
	return fn(args[1:], stdout, stderr)
}
