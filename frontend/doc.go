// Package frontend turns raw inputs into the rows the feature maps consume:
// IDX image sets (MNIST and anything else in that format) and, for audio,
// frames of log-mel or MFCC features.
package frontend
