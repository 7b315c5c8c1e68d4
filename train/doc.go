// Package train holds every recipe that makes an rfstream.Model: read-outs
// fitted on random features, connected-word and phone models trained by
// alignment, decoder tuning on held-out strings, and leverage-score feature
// selection. Recipes take plain option structs, so the command line, the
// demo and first-use training all call the same code.
package train
