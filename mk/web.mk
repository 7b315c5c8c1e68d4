# The web page in a real browser: Debian's Chromium (headless, fake microphone
# fed from an FSDD recording) against `rfstream serve --http`. The screenshots
# land in $(RFSTREAM_ARTIFACTS) (default out/: browser-test.png, and one per
# state the page shows, browser-listening.png … browser-no-speech.png).
.PHONY: test-browser

RFSTREAM_ARTIFACTS ?= $(abspath out)

test-browser:
	@if [ ! -x "$${RFSTREAM_CHROMIUM:-/usr/bin/chromium}" ]; then \
	  echo "test-browser: SKIPPED: no Chromium at $${RFSTREAM_CHROMIUM:-/usr/bin/chromium} (apt-get install chromium)"; exit 0; fi; \
	RFSTREAM_ARTIFACTS=$(RFSTREAM_ARTIFACTS) RFSTREAM_FSDD=$(RFSTREAM_FSDD) \
	  $(GO) test -tags 'browser,$(GOTAGS)' -count=1 -timeout 5m -run TestBrowser -v ./cmd/rfstream
