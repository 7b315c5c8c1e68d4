// Command rfstream is the product: it recognises spoken digits and phones
// and tags images with random-feature models, in files (recognize, tag),
// through the NATS pipeline (serve, stream, forget, bench-stream) and in a
// browser (serve's web page), fetches its data (data), trains its models
// (train; the default ones on first use) and shows all of it end to end
// (demo).
//
// The evaluation protocols are not part of it: `rfstream eval TASK` runs
// the laboratory binary rfstream-lab (experiments/cmd/rfstream-lab), found
// beside this one or on PATH. The recipes that make models are package
// train, and the flags that fill their options internal/cli, which both
// binaries share.
//
// Each subcommand lives in its own file and registers itself in init, so
// adding one touches nothing else.
package main
