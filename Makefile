# rfstream: the two commands a newcomer needs are `make demo` and `make test`.
GO       ?= go
BIN      := bin/rfstream
# The laboratory: every evaluation protocol (rfstream eval runs it; the product does not link it).
LAB      := bin/rfstream-lab
PY       := /usr/bin/python3
# The cache for fetched data and the models you train: the one every rfstream command uses from a shell too
# ($RFSTREAM_DATA, else rfstream in the user's cache folder), so a model `make` trained is the one `recognize` finds.
RFSTREAM_DATA ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/rfstream
export RFSTREAM_DATA
RFSTREAM_FSDD ?= $(abspath ../shared/fsdd/recordings)
# The real recorded voices the shipped connected model learns from (issue 51): the recipe test runs in its package's
# folder, so it needs the absolute path as it does FSDD's.
RFSTREAM_VOICES ?= $(abspath ../shared/voices)
# Two OpenBLAS threads match the two cores this project is measured on.
export OPENBLAS_NUM_THREADS ?= 2
# The BLAS backend's build tags: "openblas" when cgo is on and OpenBLAS links (mk/blas.sh probes, and as root
# with apt-get installs libopenblas-dev), else none: gonum's pure-Go BLAS, as `go install` builds. Probed once
# per make run, by the first target that needs it; `make GOTAGS=purego …` forces pure Go.
GOTAGS ?= $(eval GOTAGS := $(shell GO=$(GO) mk/blas.sh))$(GOTAGS)

.PHONY: all packages build models check-models test test-race test-purego test-nocgo vet lint fuzz data demo bench eval clean

all: build

# The commit the laboratory is built from, for the run records it writes (the Go toolchain's own VCS stamp is
# off where GOFLAGS carries -buildvcs=false).
REVISION := $(shell git describe --always --dirty 2>/dev/null)

build:
	$(GO) build -tags '$(GOTAGS)' -o $(BIN) ./cmd/rfstream
	$(GO) build -tags '$(GOTAGS)' -ldflags "-X main.revision=$(REVISION)" -o $(LAB) ./experiments/cmd/rfstream-lab

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet -tags '$(GOTAGS)' ./...

# staticcheck at a fixed release (fetched through the module proxy on first use): unused code, dead checks
# and API misuse that go vet does not report. CI runs it after make test.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint:
	$(GO) run $(STATICCHECK) -tags '$(GOTAGS)' ./...

# make test: vet, the whole suite with the backend make build uses (OpenBLAS where it links), then the numeric
# packages again in pure Go: both against the same golden numbers (testdata/backends.golden.json).
# The Debian packages the demo's voices and the tests' tools come from (mk/packages.sh: installed as root with
# apt-get when missing, else one line saying what is missing).
packages:
	@mk/packages.sh

test: packages vet
	$(GO) test -tags '$(GOTAGS)' -count=1 -timeout 9m ./...
	$(MAKE) test-purego

# make test-race: the whole suite under the race detector (about 4 min on 2 cores); CI runs it after make test.
test-race:
	$(GO) test -tags '$(GOTAGS)' -race -count=1 -timeout 15m ./...

# -tags purego: gonum's BLAS and the Go loops in place of the AVX kernels, whatever else the build has.
NUMERIC := ./internal/linalg/... ./internal/vecmath/... ./features/... ./maxout/... ./classifier/... ./train/... .
test-purego:
	$(GO) test -count=1 -tags purego -timeout 5m $(NUMERIC)

# make test-nocgo: what `go install` builds on a machine without a C compiler or OpenBLAS (CI runs it): the
# product binary, vet, and the numeric packages' tests (the golden numbers included), all with CGO_ENABLED=0.
test-nocgo:
	CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/rfstream
	CGO_ENABLED=0 $(GO) vet ./...
	CGO_ENABLED=0 $(GO) test -count=1 -timeout 5m $(NUMERIC)

data: build
	$(BIN) data mnist

# make models: the models that ship inside the module (internal/shipped: what recognize, stream, serve, tag
# and the public package use when no model is named), trained again from their recipes, with their manifest.
# Both train on one thread (GOMAXPROCS=1, OPENBLAS_NUM_THREADS=1): sums then add up in one order, so the check
# retrains the very bytes that ship (the connected model trained on two threads differed past the tolerance).
models: packages build
	GOMAXPROCS=1 OPENBLAS_NUM_THREADS=1 $(BIN) train shipped --out internal/shipped

# make check-models: train every shipped model again and compare it with what ships (identical bytes, or
# the same decisions on FSDD's test set and MNIST's first 2000 test images and the same numbers within the
# golden tolerance); a recipe changed without `make models` fails. CI runs it (about 10 min on one thread).
check-models: packages
	GOMAXPROCS=1 OPENBLAS_NUM_THREADS=1 RFSTREAM_FSDD=$(RFSTREAM_FSDD) RFSTREAM_VOICES=$(RFSTREAM_VOICES) $(GO) test -tags 'recipes $(GOTAGS)' -count=1 -timeout 40m -run TestShippedModelsAreWhatTheRecipesMake -v ./internal/recipes

demo: packages build
	$(BIN) demo

# make bench: every Go benchmark once, then the ratio tables against NumPy on the same machine.
bench: build
	$(GO) test -tags '$(GOTAGS)' -run '^$$' -bench . -benchtime 1x ./...
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
