package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/linalg"
)

func init() {
	register(&command{name: "version", summary: "print the version, the BLAS backend and the models that ship with rfstream (their data and licences)", run: func(args []string, stdout, stderr io.Writer) error {
		// No flags, but -h and a mistyped flag behave as everywhere else.
		if err := parseFlags(newFlagSet("version", "", stderr), args); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "rfstream %s (%s, blas=%s)\n", version, runtime.Version(), linalg.Backend)
		shipped, err := defaults.Manifest()
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "shipped models (used when no model is named and the data cache holds none of your own):\n")
		for _, e := range shipped {
			fmt.Fprintf(stdout, "  %s: %s model, %.1f MB, for %s\n", e.Name, e.Task, float64(e.Bytes)/1e6, e.For)
			var data []string
			for _, c := range e.Data {
				data = append(data, fmt.Sprintf("%s (%s)", c.Name, c.Licence))
			}
			fmt.Fprintf(stdout, "    learnt from: %s\n", strings.Join(data, "; "))
		}
		return nil
	}})
}

const version = "0.1.0-dev"
