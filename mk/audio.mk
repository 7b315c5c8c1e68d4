# Audio: the frontend's speed and the spoken-digit evaluations (FSDD).
.PHONY: bench-frontend eval-digits

# Real-time factor of the audio frontend (cpu-s/audio-s: CPU seconds per second of audio, target ≤ 0.005)
# and the FFT backends on 512-point frames (cpu-ns/op).
bench-frontend:
	$(GO) test -run '^$$' -bench 'FrontendRTF|FFT512' -benchtime 2s ./frontend

# FSDD spoken digits: the official split over 5 seeds, leave-one-speaker-out (per held-out speaker) without
# and with speaker-level CMVN, and the mismatch table (accuracy lost under pitch ±400 cents and tempo
# 0.7×/1.4×) for the invariant map, maxout, random Fourier features and raw word vectors, all with 3300
# features, over 5 template seeds. docs/audio.md records how the settings were chosen.
eval-digits: build
	$(BIN) eval digits --split official --m 3000 --seeds 5
	$(BIN) eval digits --split speaker --m 3000
	$(BIN) eval digits --split speaker --m 3000 --speaker-norm mean
	$(BIN) eval digits-mismatch --features 3300 --seeds 5
