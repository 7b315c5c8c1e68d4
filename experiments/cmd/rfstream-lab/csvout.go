package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
)

// createCSV creates out+".csv" (and its folder) for an evaluation's
// plot-ready rows and writes the header. The caller closes the file after
// flushing the writer and checking its Error.
func createCSV(out string, header []string) (*os.File, *csv.Writer, error) {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, nil, err
	}
	f, err := os.Create(out + ".csv")
	if err != nil {
		return nil, nil, err
	}
	cw := csv.NewWriter(f)
	if err := cw.Write(header); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, cw, nil
}
