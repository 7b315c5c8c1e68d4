# nats.js from npm, the third-party NATS client the streaming tests use to check $SRV.PING discovery and
# request-reply tagging (TestNatsJS*): installed once into the data cache before the tests run (mk/nodeclients.sh;
# nothing to do when present, npm's cache when offline). The tests find it through RFSTREAM_NODE_CLIENTS.
NODE_CLIENTS ?= $(RFSTREAM_DATA)/node-clients
export RFSTREAM_NODE_CLIENTS := $(NODE_CLIENTS)

.PHONY: node-clients
node-clients:
	@mk/nodeclients.sh "$(NODE_CLIENTS)"

test test-race: node-clients
