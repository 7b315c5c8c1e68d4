// Package defaults is the data cache and the default models in it: where
// fetched data and models live ($RFSTREAM_DATA, else the user's cache
// folder), where FSDD is found, and the model each task uses when none is
// named, trained on first use. The public package's DefaultModel, the
// product's commands and the laboratory all take their defaults from here,
// so they cannot disagree on which model answers.
package defaults
