// Package rfstream is the runtime of rfstream: it loads a trained model and
// recognises recordings, live streams and images with it. Models are
// trained elsewhere (packages classifier and train, and the rfstream
// command); the few helpers here that build one (NewWordModel,
// SetAdaptation, SetUnitBigram) lay out what the runtime reads.
//
// A Model is the recipe of a random feature map, the learned read-out, the
// labels and whatever the model's frontend and decoder need, kept in a
// versioned, checksummed file. To recognise a recording:
//
//	model, err := rfstream.Load("digits.rfm")
//	recognizer, err := rfstream.NewRecognizer(model)
//	result, err := recognizer.Recognize(samples, rate)
//
// NewRecognizer dispatches on the model's Task:
//
//   - TaskWords: a WordClassifier turns the whole recording into one word
//     vector and reads one word off it. Such a model can adapt to a voice
//     it was not trained on (Adaptation: speaker normalisation and
//     self-training); a VoiceSession follows one voice from recording to
//     recording, and a voice file keeps a session across restarts.
//   - TaskConnected and TaskPhones: Connected decodes a string of words or
//     phones with HMMs over frame posteriors (IsolatedWord uses such a
//     model on recordings of one word).
//
// Streams are cut into words or utterances by a Segmenter; WordSpotter and
// ConnectedStream turn the pieces into partial and final Results as PCM
// arrives, and the NATS pipeline (package streaming) runs the same steps as
// separate stages. Image models (TaskImages) are run by an ImageTagger.
package engine
