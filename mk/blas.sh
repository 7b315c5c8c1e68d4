#!/usr/bin/env bash
# Prints the Go build tags for this machine's BLAS: "openblas" when cgo is on and a C program links against
# OpenBLAS, else nothing (gonum's pure-Go BLAS, the build `go install` gets). When OpenBLAS is missing and this
# runs as root where apt-get works, it installs libopenblas-dev first; otherwise it says on stderr, in one line,
# that the build is pure Go and what that costs. The Makefile runs it once per make run (GOTAGS).
set -u
GO=${GO:-go}

links() {
  [ "$("$GO" env CGO_ENABLED 2>/dev/null)" = 1 ] || return 1
  cc=$("$GO" env CC 2>/dev/null); cc=${cc:-cc}
  tmp=$(mktemp -d) || return 1
  # The symbol the OpenBLAS backend calls besides cblas_*: a library without it would fail make build.
  printf 'void openblas_set_num_threads(int);\nint main(void){openblas_set_num_threads(1);return 0;}\n' >"$tmp/probe.c"
  $cc "$tmp/probe.c" -lopenblas -o "$tmp/probe" >/dev/null 2>&1; ok=$?
  rm -rf "$tmp"
  return $ok
}

if links; then echo openblas; exit 0; fi
if [ "$("$GO" env CGO_ENABLED 2>/dev/null)" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "mk/blas.sh: OpenBLAS does not link: installing libopenblas-dev with apt-get" >&2
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libopenblas-dev >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libopenblas-dev >/dev/null 2>&1; }; } &&
    links && { echo openblas; exit 0; }
fi
echo "mk/blas.sh: no OpenBLAS (or no cgo): building with gonum's pure-Go BLAS, same results; on the project machine its GEMMs took about 10x as long as OpenBLAS's (MNIST maxout map 9.8x, RLS Gram 11x) (the fast path needs cgo and libopenblas-dev)" >&2
