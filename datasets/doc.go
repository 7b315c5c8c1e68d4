// Package datasets finds and makes the corpora that training and the
// evaluations use: the Free Spoken Digit Dataset by its file names, any
// collection described by a manifest, TIMIT-style phone corpora,
// connected-digit strings rendered from recordings, synthetic voices
// (espeak-ng) and the permutation toy set of the invariant-features paper.
// It says which recordings there are and what they are labelled; reading
// one is frontend's (frontend.ReadAudio).
package datasets
