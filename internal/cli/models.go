package cli

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
)

// ForceFlag adds --force to a train task whose --out defaults to a model
// in the data cache.
func ForceFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("force", false, "without --out: replace the data cache's default model even when it exists")
}

// TrainOut is where a train task saves its model: out when given (an
// existing file there is replaced, as asked), else def, the data cache's
// default model. Every command that loads def would silently start using
// the new model, and a default model can cost minutes to retrain, so an
// existing def is replaced only with force.
func TrainOut(out, def string, force bool) (string, error) {
	if out != "" {
		return out, nil
	}
	if _, err := os.Stat(def); err == nil && !force {
		return "", fmt.Errorf("%s exists and is the default model other commands use: give --out FILE to save elsewhere, or --force to replace it", def)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return def, nil
}
