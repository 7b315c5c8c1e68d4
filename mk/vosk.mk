# The Node Vosk client the tests talk to `serve --http`'s /vosk with
# (cmd/rfstream/vosk_test.go): the ws package from npm, pinned by
# cmd/rfstream/testdata/voskclient/package-lock.json. make test installs it
# first when npm is there; without Node the test says it skipped that client.
.PHONY: vosk-client
VOSK_CLIENT := cmd/rfstream/testdata/voskclient

vosk-client:
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "vosk-client: SKIPPED: no npm (apt-get install nodejs npm); the Node Vosk client test will be skipped"; \
	elif [ ! -d $(VOSK_CLIENT)/node_modules/ws ]; then \
	  npm ci --prefix $(VOSK_CLIENT) --no-audit --no-fund --loglevel=error; \
	fi

test: vosk-client
