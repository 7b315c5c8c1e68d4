// Package engine is the machinery behind rfstream's public package: the
// model file, the recognisers, the segmenter, the filler that rejects
// words a model does not know, voice adaptation and voice files, and the
// image tagger. The NATS pipeline (package streaming), the training
// recipes (package train) and the laboratory build on it; a program that
// only recognises needs the public package alone. The few helpers here
// that build a model (NewWordModel, SetAdaptation, SetUnitBigram) lay out
// what the runtime reads; models are trained by package train.
//
// A Model is the recipe of a random feature map, the learned read-out, the
// labels and whatever the model's frontend and decoder need, kept in a
// versioned, checksummed file. NewRecognizer gives the one answer every
// entry point gives for a whole recording, dispatching on the model's Task:
//
//   - TaskWords: a WordClassifier turns the whole recording into one word
//     vector and reads one word off it, when the live segmenter hears a
//     word at all. Such a model can adapt to a voice it was not trained on
//     (Adaptation: speaker normalisation and self-training); a
//     VoiceSession follows one voice from recording to recording, and a
//     voice file keeps a session across restarts.
//   - TaskConnected and TaskPhones: Connected decodes a string of words or
//     phones with HMMs over frame posteriors; a whole recording is heard
//     as a stream of it is (NewLiveRecognizer).
//
// Streams are cut into words or utterances by a Segmenter; WordSpotter and
// ConnectedStream turn the pieces into partial and final Results as PCM
// arrives, and the NATS pipeline runs the same steps as separate stages.
// Image models (TaskImages) are run by an ImageTagger.
package engine
