# Live pipeline over NATS: how many real-time audio streams one machine holds, image throughput NATS vs
# in-process, messages lost. Loopback only; each level runs --seconds and the ramp stops at the first level
# not held, so the whole run is bounded (a few minutes at most).
.PHONY: bench-stream

bench-stream: build
	$(BIN) bench-stream
