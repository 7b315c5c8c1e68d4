// Package train holds every recipe that makes an rfstream.Model: read-outs
// fitted on random features, connected-word and phone models trained by
// alignment, decoder tuning on held-out strings, and leverage-score feature
// selection. Recipes take plain option structs with their defaults as
// functions (DefaultDigitOptions, DefaultImageOptions, …), so the command
// line, the demo and first-use training all call the same code, and the
// laboratory's evaluations call the same phases the recipes run.
//
//   - words.go: word models (Words), in phases: WordRows, SpeakerNorm,
//     MapOptions.Build, FitWords; voices.go: word vectors and the rows
//     synthetic voices and copies add (VoiceOptions); speakers.go: speaker
//     normalisation and the λ hold-out.
//   - maps.go: the feature map of any kind and its optional selection
//     (MapOptions); select.go: leverage-score selection itself.
//   - images.go: image models (ImageOptions, Images).
//   - connected.go: connected-word and phone models by alignment;
//     digit_strings.go: the connected digit-string recipe on FSDD;
//     phones.go: the phone recipe and its corpora; tune.go: decoder tuning.
package train
