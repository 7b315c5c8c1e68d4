// Package decode turns frame scores into unit sequences: HMM topologies, a
// word-loop grammar and forced-alignment graphs, Viterbi decoding (batch and
// frame-synchronous with stable partial results and endpointing), forced
// alignment for relabelling training frames, and WER/SER/PER scoring.
// It works on matrices of per-frame class scores and knows nothing of audio.
//
// # Scores in
//
// A frame classifier with C outputs feeds the decoder an N×C blas32.General
// of log-likelihoods (rows: frames). For a hybrid classifier these are scaled
// likelihoods, log P(c|x) − log P(c): LogPriors estimates the priors from
// frame labels and ScaledLikelihoods converts posteriors. NaN or +Inf
// scores are refused with an error.
//
// # Models and graphs
//
//   - Unit: a left-to-right HMM (word, phone or silence); state i emits
//     classifier output Classes[i] and has self-loop probability SelfLoop.
//     Chains builds k-state units on consecutive classes (a word of k
//     states, a phone of 3); SilenceUnit a silence model; NumClasses counts
//     the classifier outputs units need; Concat joins units (a word from its
//     phones). Several states may share a class.
//   - WordLoop(words, &sil, LoopConfig): any sequence of words with optional
//     silence between them and at the ends, a word-insertion penalty and an
//     LM scale. Decoding a phone loop is a WordLoop over phone units.
//   - Linear(seq, &sil, LinearConfig): one known sequence, for alignment.
//   - Builder: any other graph (states, arcs, start and final weights).
//
// Every graph state emits; an arc marked "enter" starts a new unit instance
// (how repeated words and word boundaries are told apart).
//
// # Decoding
//
//   - Viterbi(g, scores, Options) → *Result: the best path (States), its
//     Segments (unit instances, silences included) and Words (without
//     silences), each with frame indices, times (frame × Options.Hop) and a
//     Confidence: the mean over the segment's frames of the posterior of
//     being in that unit given the frames up to then (normalised forward
//     probability summed over the unit's states), always in [0, 1].
//   - Decoder (NewDecoder, Push, Partial, Endpoint, Final, Reset): the same
//     search frame by frame. Partial splits the current best hypothesis into
//     Stable words (on which every surviving path agrees: they never change)
//     and a Tail that may be revised. Endpoint fires once the best path has
//     spent Options.EndpointSilence in silence after at least one word.
//     Final equals Viterbi on the same frames (States aside). Memory per
//     stream is the live tokens plus unstable links: converged traceback is
//     moved to the stable list and cut.
//   - Options.Beam prunes states more than Beam below the best; 0 is exact.
//   - Times start at frame 0 of the scores (after Decoder.Reset, of the new
//     utterance); a caller adds its own offset (stream position, half a
//     window) if it wants one. ErrNoPath means no path ends in a final state.
//
// # Alignment and bootstrap
//
// Align(seq, &sil, scores, LinearConfig, Options) gives the best state per
// frame and its class (the labels for retraining). UniformSplit and
// BootstrapLabels give the first labels before any model exists: the speech
// part split evenly over the states of the sequence, the rest silence.
//
// # Scoring
//
// EditDistance (Levenshtein alignment with hit/substitution/insertion/
// deletion counts and ops); ErrorCounts accumulates a test set: ErrorRate
// is the WER on words and the PER on phones, SER the fraction of strings
// with any error. PhoneMap (ParsePhoneMap reads TIMIT's 60-48-39 format)
// folds phone sets before scoring.
package decode
