package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/rfstream/rfstream"
)

// LoadOrTrain loads the model at path, or when it does not exist runs
// train to create it and saves it there: default models live in the data
// cache and are trained on first use, so every command works on a fresh
// checkout.
func LoadOrTrain(path string, log io.Writer, train func() (*rfstream.Model, error)) (*rfstream.Model, error) {
	m, err := rfstream.LoadModel(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return m, err
	}
	fmt.Fprintf(log, "%s is missing: training it now\n", path)
	if m, err = train(); err != nil {
		return nil, err
	}
	if err := rfstream.SaveModel(path, m); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "saved %s\n", path)
	return m, nil
}
