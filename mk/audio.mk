# Audio: the frontend's speed and the spoken-digit evaluations (FSDD).
.PHONY: bench-frontend eval-digits

# Real-time factor of the audio frontend (cpu-s/audio-s: CPU seconds per second of audio, target ≤ 0.005)
# and the FFT backends on 512-point frames (cpu-ns/op).
bench-frontend:
	$(GO) test -run '^$$' -bench 'FrontendRTF|FFT512' -benchtime 2s ./frontend
