# rfstream: the two commands a newcomer needs are `make demo` and `make test`.
GO       ?= go
BIN      := bin/rfstream
# The laboratory: every evaluation protocol (rfstream eval runs it; the product does not link it).
LAB      := bin/rfstream-lab
PY       := /usr/bin/python3
# The git-ignored cache for fetched data and default models.
RFSTREAM_DATA ?= $(abspath data)
export RFSTREAM_DATA
# Two OpenBLAS threads match the two cores this project is measured on.
export OPENBLAS_NUM_THREADS ?= 2

.PHONY: all build test test-race test-purego vet lint fuzz data demo bench eval clean

all: build

# The commit the laboratory is built from, for the run records it writes (the Go toolchain's own VCS stamp is
# off where GOFLAGS carries -buildvcs=false).
REVISION := $(shell git describe --always --dirty 2>/dev/null)

build:
	$(GO) build -o $(BIN) ./cmd/rfstream
	$(GO) build -ldflags "-X main.revision=$(REVISION)" -o $(LAB) ./experiments/cmd/rfstream-lab

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

# staticcheck at a fixed release (fetched through the module proxy on first use): unused code, dead checks
# and API misuse that go vet does not report. CI runs it after make test.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint:
	$(GO) run $(STATICCHECK) ./...

# make test: vet, the whole suite with OpenBLAS, then the numeric packages again in pure Go.
test: vet
	$(GO) test -count=1 -timeout 9m ./...
	$(MAKE) test-purego

# make test-race: the whole suite under the race detector (about 4 min on 2 cores); CI runs it after make test.
test-race:
	$(GO) test -race -count=1 -timeout 15m ./...

test-purego:
	$(GO) test -count=1 -tags purego -timeout 5m ./internal/linalg/... ./internal/vecmath/... ./features/... ./maxout/... ./classifier/... ./train/... .

data: build
	$(BIN) data mnist

demo: build
	$(BIN) demo

# make bench: every Go benchmark once, then the ratio tables against NumPy on the same machine.
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 1x ./...
	$(MAKE) bench-maps bench-rls

# make fuzz: every fuzz target in the tree for FUZZTIME each (mk/fuzz.sh: a target fails when it writes a failing
# input, kept under testdata/fuzz/ of its package; Go 1.26's end-of-fuzztime race is reported, not counted).
# `make test` replays their seed corpora only.
FUZZTIME ?= 30s
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) mk/fuzz.sh

# Each area adds its own targets in mk/*.mk (eval-*, bench-*, fuzz-*).
-include mk/*.mk

clean:
	rm -rf bin out
