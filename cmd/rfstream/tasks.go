package main

import (
	"fmt"
	"io"
)

// task is something `rfstream eval` and `rfstream train` know how to do:
// each data set (mnist, xperm, digits, …) registers one from its own file.
type task struct {
	name    string
	summary string
	eval    func(args []string, stdout, stderr io.Writer) error
	train   func(args []string, stdout, stderr io.Writer) error
}

var tasks = map[string]*task{}

func registerTask(t *task) {
	if _, dup := tasks[t.name]; dup {
		panic("rfstream: task registered twice: " + t.name)
	}
	tasks[t.name] = t
}

func taskUsage(w io.Writer, verb string) {
	fmt.Fprintf(w, "usage: rfstream %s TASK [flags]\n\ntasks:\n", verb)
	names := make([]string, 0, len(tasks))
	for n, t := range tasks {
		if (verb == "eval" && t.eval != nil) || (verb == "train" && t.train != nil) {
			names = append(names, n)
		}
	}
	listNames(w, names, func(n string) string { return tasks[n].summary })
	fmt.Fprintf(w, "\nrun 'rfstream %s TASK -h' for a task's flags\n", verb)
}

func dispatchTask(verb string, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		taskUsage(stderr, verb)
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	t, ok := tasks[args[0]]
	var fn func([]string, io.Writer, io.Writer) error
	if ok {
		if verb == "eval" {
			fn = t.eval
		} else {
			fn = t.train
		}
	}
	if fn == nil {
		fmt.Fprintf(stderr, "rfstream %s: unknown task %q\n", verb, args[0])
		taskUsage(stderr, verb)
		return errUsage
	}
	return fn(args[1:], stdout, stderr)
}

func init() {
	register(&command{name: "eval", summary: "train on a task's training set and report test error",
		run: func(args []string, stdout, stderr io.Writer) error { return dispatchTask("eval", args, stdout, stderr) }})
	register(&command{name: "train", summary: "train a model on a task and save it",
		run: func(args []string, stdout, stderr io.Writer) error {
			return dispatchTask("train", args, stdout, stderr)
		}})
}
