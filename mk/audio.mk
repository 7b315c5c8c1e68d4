# Audio: the frontend's speed and the spoken-digit evaluations (FSDD).
.PHONY: bench-frontend eval-digits

# Real-time factor of the audio frontend (cpu-s/audio-s: CPU seconds per second of audio, target ≤ 0.005)
# and the FFT backends on 512-point frames (cpu-ns/op).
bench-frontend:
	$(GO) test -run '^$$' -bench 'FrontendRTF|FFT512' -benchtime 2s ./frontend

# FSDD spoken digits: the official split over 5 seeds, leave-one-speaker-out (per held-out speaker) without
# and with speaker-level CMVN, and the mismatch table (accuracy lost under pitch ±400 cents and tempo
# 0.7×/1.4×) for the invariant map, maxout, random Fourier features and raw word vectors, all with 3300
# features, over 5 template seeds; then the settings chosen in the second round: whole-word maxout combined
# with the HMM isolated-word recogniser (trains one connected model, ~10-30 min, cached in data/models/isolated),
# speaker CMVN plus the confidence-chosen speaker warp for unseen voices, and the invariant map with templates
# drawn from the training word vectors warped over ±1200 cents. docs/audio.md records how settings were chosen.
eval-digits: build
	$(BIN) eval digits --split official --m 3000 --seeds 5
	$(BIN) eval digits --split speaker --m 3000
	$(BIN) eval digits --split speaker --m 3000 --speaker-norm mean
	$(BIN) eval digits-mismatch --features 3300 --seeds 5
	$(BIN) eval digits --split official --m 3000 --seeds 5 --recognizer combo --hmm-weight 1
	$(BIN) eval digits --split speaker --m 3000 --speaker-norm mean --speaker-warp 300 --speaker-warp-step 50 --speaker-warp-by confidence
	$(BIN) eval digits-mismatch --features 3300 --seeds 5 --maps invariant -- --templates data --cents 1200 --g 90
