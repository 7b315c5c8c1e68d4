// Package frontend turns raw inputs into the rows the feature maps consume:
// images (IDX sets such as MNIST, or encoded PNG, JPEG, GIF and PGM files)
// into pixel rows, and recordings (WAV, NIST SPHERE, FLAC, Ogg Vorbis, Ogg
// Opus, MP3 or raw PCM: ReadAudio, DecodeAudio, DecodePCM16) into frames of log-mel or MFCC features and
// whole-word vectors.
package frontend
