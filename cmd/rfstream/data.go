package main

import (
	"io"

	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/train"
)

func init() {
	register(&command{name: "data", summary: "fetch a data set into the cache (mnist), or synthesise one (phones: the espeak-ng phone corpus)", run: runData})
}

func runData(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("data", "mnist|phones", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 1 && fs.Arg(0) == "phones" {
		o := train.DefaultPhoneOptions()
		o.EspeakDir = cli.PhonesDir()
		_, err := train.LoadEspeakPhones(o, stdout)
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) != "mnist" {
		fs.Usage()
		return errUsage
	}
	return cli.EnsureMNIST(stdout)
}
