package main

import (
	"io"
	"os"

	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/enrol"
)

func init() {
	register(&command{name: "enroll", summary: "teach the default speech models a voice: say each digit once when prompted (or list recordings with --manifest)", run: runEnroll})
}

func runEnroll(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("enroll", "--voice NAME [--manifest FILE] [flags]", stderr)
	o := enrol.Options{Record: enrol.Sox, In: os.Stdin, Out: stdout, Log: stderr}
	fs.StringVar(&o.Voice, "voice", "", "the voice's name (recognize and stream --voice use it)")
	fs.StringVar(&o.Dir, "voices", defaults.TaughtVoicesDir(), "the voice folder to keep it in")
	fs.StringVar(&o.Manifest, "manifest", "", "teach these recordings instead of prompting: path<TAB>word per line, the format train reads")
	fs.Uint64Var(&o.Seed, "seed", uint64(os.Getpid()), "the order of the prompts")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if o.Voice == "" || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	return enrol.Run(o)
}
