# Decoder speed: frames/s per core for the digit loop (11 words × 5 states + silence).
.PHONY: bench-decode
bench-decode:
	$(GO) test -tags '$(GOTAGS)' -run '^$$' -bench . -benchtime 2s ./decode
