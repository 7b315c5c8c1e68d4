package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/train"
)

func init() {
	register(&command{name: "data", summary: "fetch a data set into the cache (mnist), or synthesise one (phones: the espeak-ng phone corpus; voices: every installed synthesiser's digits)", run: runData})
}

func runData(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("data", "mnist|phones|voices", stderr)
	set := datasets.DefaultVoiceSetOptions()
	engines := fs.String("engines", train.EngineNames(), "voices, phones: comma-separated synthesisers to build (those not installed are reported and left out)")
	fs.IntVar(&set.Speakers, "speakers", set.Speakers, "voices: speakers per synthesiser (its voices in turn, each at a seeded pitch and tempo)")
	fs.IntVar(&set.Takes, "takes", set.Takes, "voices: takes of each digit alone per speaker")
	fs.IntVar(&set.Strings, "strings", set.Strings, "voices: strings of 2-7 digits per speaker")
	fs.Uint64Var(&set.Seed, "seed", set.Seed, "voices: seed of the speakers, takes and strings (the same seed gives the same files)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 1 && fs.Arg(0) == "phones" {
		o := train.RealPhoneRecipe(defaults.RealVoicesDir()) // the corpora train phones reads
		o.EspeakDir, o.Voices.Dir = defaults.PhonesDir(), defaults.PhoneVoicesDir()
		return train.BuildPhoneVoices(o, strings.Split(*engines, ","), stdout)
	}
	if fs.NArg() == 1 && fs.Arg(0) == "voices" {
		return dataVoices(train.EngineVoices{Engines: strings.Split(*engines, ","), Set: set, Dir: defaults.VoicesDir()}, stdout, stderr)
	}
	if fs.NArg() != 1 || fs.Arg(0) != "mnist" {
		fs.Usage()
		return errUsage
	}
	return defaults.EnsureMNIST(stdout)
}

// dataVoices builds the synthesisers' digit corpora and says what it
// found: the engines, their speakers of each sex and their files.
func dataVoices(ev train.EngineVoices, stdout, stderr io.Writer) error {
	sets, err := train.BuildEngineVoices(ev, true, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "mbrola: not available (Debian's archive has no mbrola package; espeak-ng's mb-* voices need it)")
	if len(sets) == 0 {
		return fmt.Errorf("no synthesiser of %q is installed", strings.Join(ev.Engines, ","))
	}
	for _, s := range sets {
		sexes := s.Sexes()
		fmt.Fprintf(stdout, "%s: %d speakers (%d male, %d female), %d digits, %d strings\n",
			s.Engine, len(s.Speakers), sexes[datasets.Male], sexes[datasets.Female], len(s.Digits), len(s.Strings))
	}
	fmt.Fprintf(stdout, "in %s\n", ev.Dir)
	return nil
}
