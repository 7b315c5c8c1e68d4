// Package toymodels trains tiny but real models on synthetic data, so the
// tests of the pipeline, the streaming stages and the command line run the
// whole recogniser in well under a second without any data set.
package toymodels
