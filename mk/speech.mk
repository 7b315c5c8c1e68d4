# Speech recognition speed beside pocketsphinx (Debian's, en-us, a digit grammar) on the same FSDD recordings,
# from one word to 5 minutes: CPU seconds, real-time factor and WER for both, one process a recording
# (bench/speech.py). Needs sox and pocketsphinx; `mk/packages.sh bench-speech` installs them as root.
FSDD ?= $(or $(RFSTREAM_FSDD),../shared/fsdd/recordings)

.PHONY: bench-speech
bench-speech: build
	@mk/packages.sh bench-speech
	@command -v pocketsphinx_continuous >/dev/null || { echo "bench-speech: pocketsphinx_continuous is missing (apt-get install pocketsphinx pocketsphinx-en-us)"; exit 1; }
	$(PY) bench/speech.py $(BIN) $(FSDD)
