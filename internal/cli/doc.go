// Package cli is what the product binary (cmd/rfstream) and the laboratory
// binary (experiments/cmd/rfstream-lab) share about being a command line:
// the command and task registries and their usage texts, flag sets that
// report errors instead of exiting, and the flag
// groups that fill package train's option structs. Flags live here and
// nowhere else, so train's recipes stay plain functions of plain options
// and both binaries spell every shared flag the same way.
package cli
