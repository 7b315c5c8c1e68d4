#!/usr/bin/env bash
# Installs the Debian packages `make demo` and `make test` use beyond Go, when they are missing and this runs as
# root where apt-get works: the speech synthesisers whose voices the default digit models train on (espeak-ng,
# flite, festival with three festvox voices), sox (augmentation, the browser test's microphone), nats-server
# (the fault tests' real server), ffmpeg (the audio format tests make FLAC, Ogg, Opus, MP3 and M4A files with
# it) and pocketsphinx-en-us (its CMU pronouncing dictionary, 3.2 MB, BSD-2, is the phone models' lexicon).
# Elsewhere it says in one line what is missing and what that costs, and the
# build goes on: the models then train on the voices that are there, and the tests that need a tool skip.
# `mk/packages.sh bench-speech` does the same for what make bench-speech alone needs (pocketsphinx, its en-us
# model, sox): a benchmark's, not the tests', so make test and CI do not install them.
set -u
pkgs=(espeak-ng sox flite festival festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts nats-server ffmpeg pocketsphinx-en-us)
[ "${1:-}" = bench-speech ] && pkgs=(sox pocketsphinx pocketsphinx-en-us)
command -v dpkg >/dev/null 2>&1 || exit 0
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "mk/packages.sh: installing ${missing[*]} with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; } ||
    echo "mk/packages.sh: apt-get could not install ${missing[*]}; going on without them" >&2
  exit 0
fi
echo "mk/packages.sh: missing ${missing[*]} (apt-get install them as root): the default digit models train without those voices and the tests that need them skip" >&2
