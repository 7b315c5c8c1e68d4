# Connected digit strings: frame classifier over HMM states + Viterbi (issue 6).
.PHONY: eval-connected bench-connected

# Train by alignment on the FSDD training split (takes 5-49), then WER/SER on generated strings of the
# test split (clean, white noise at 20 and 10 dB SNR) and on espeak-ng voices never trained on.
eval-connected: build
	nice -n 10 $(LAB) eval connected

# Real-time factor of frontend + features + classifier + decoder on one core, then of whole streams of 15, 30
# and 60 s, offline and live (flat when the time is linear in the audio).
bench-connected:
	OPENBLAS_NUM_THREADS=1 $(GO) test -tags '$(GOTAGS)' -run '^$$' -bench ConnectedRTF -cpu 1 -benchtime 20x ./engine/
	OPENBLAS_NUM_THREADS=1 $(GO) test -tags '$(GOTAGS)' -run '^$$' -bench StreamLengths -cpu 1 -benchtime 3x ./engine/
