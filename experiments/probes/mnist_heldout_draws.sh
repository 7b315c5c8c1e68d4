#!/bin/sh
# Round 8 of experiments/journal/invariant.md: the invariant map at 1000 per class on the held-out split (training rows
# 0-49 999 as the training file, rows 50 000-59 999 as the test file; the real test file is never read),
# over subset seeds 1..DRAWS, with the frozen round-3 flags and --m M. One process: --table maps every
# image once. GOMEMLIMIT keeps the collector from doubling the heap past the machine's memory at m = 3000.
# usage: experiments/probes/mnist_heldout_draws.sh M DRAWS OUTBASE [BINARY]  (from the repo root, after `make data`)
# EXTRA_FLAGS are added to the command (round 9: --lambda-path ...). THRESHOLDS replaces the frozen
# threshold range (round 10: THRESHOLDS='--template-ranges 0.01,0.99').
M=$1
DRAWS=$2
OUT=$3
B=${4:-bin/rfstream}
H=out/heldout
[ -f $H/heldout-labels-idx1-ubyte ] || /usr/bin/python3 experiments/probes/mnist_heldout.py data/mnist $H || exit 1
GOMEMLIMIT=${GOMEMLIMIT:-18GiB} nice -n 10 "$B" eval mnist-sizes --sizes 1000 --draws "$DRAWS" --subset-seed 1 --maps invariant \
  --m "$M" --bins 16 ${THRESHOLDS:---lo -0.5 --hi 0.5} --g 0 --rotation-steps 1 --integer-shifts --deskew --templates datadiff \
  --train-images $H/train-images-idx3-ubyte --train-labels $H/train-labels-idx1-ubyte \
  --test-images $H/heldout-images-idx3-ubyte --test-labels $H/heldout-labels-idx1-ubyte --out "$OUT" --json $EXTRA_FLAGS
