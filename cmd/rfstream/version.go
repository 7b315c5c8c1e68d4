package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/rfstream/rfstream/internal/linalg"
)

func init() {
	register(&command{name: "version", summary: "print the version and the BLAS backend", run: func(args []string, stdout, stderr io.Writer) error {
		// No flags, but -h and a mistyped flag behave as everywhere else.
		if err := parseFlags(newFlagSet("version", "", stderr), args); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "rfstream %s (%s, blas=%s)\n", version, runtime.Version(), linalg.Backend)
		return nil
	}})
}

const version = "0.1.0-dev"
