// Package rfstream recognises spoken digits, digit strings and phones in
// recordings and live audio, and tags images, with random-feature models.
//
// A model is loaded from a file (Load) or is the one the rfstream command
// uses when it is given none (DefaultModel). A Recognizer hears a whole
// recording and gives exactly what `rfstream recognize` prints; a Stream
// hears audio as it arrives and gives what `rfstream stream`, `serve` and
// the web page give; an ImageTagger tags pictures:
//
//	model, err := rfstream.DefaultModel(rfstream.TaskConnected)
//	rec, err := rfstream.NewRecognizer(model)
//	samples, rate, err := rfstream.ReadAudio("digits.wav")
//	res, err := rec.Recognize(samples, rate)
//	fmt.Println(res.Text) // "3 1 4"
//
// A VoiceSession follows one voice from recording to recording and can be
// saved and loaded again, so the next session goes on from what the voice
// taught the last.
//
// This package is the whole public surface. The machinery behind it (the
// model file, recognisers, segmenter, voice adaptation) is package engine,
// which the NATS pipeline (package streaming), the training recipes
// (package train) and the laboratory build on.
package rfstream
