#!/bin/sh
# The paper's protocol for (a) of issue 3 (experiments/journal/invariant.md, rounds 7-8): the invariant map at 1000 per
# class over training draws (subset seeds 1..DRAWS) on the real test file, with the frozen round-3 flags and
# --m M. One process: --table maps every image once, and --resume continues an interrupted run from
# OUT.rows.jsonl, so rerunning the same command picks up where it stopped. Its table prints the mean ± std
# over all draws; the standard error follows from the CSV. Round 7's rows were made one process a draw with
# the float64 kernel: experiments/probes/mnist_draws100.sh reproduces those.
# usage: experiments/probes/mnist_draws.sh M DRAWS OUT [BINARY]  (from the repo root, after `make data`)
# EXTRA_FLAGS are added to the command (e.g. --lambda-grid X).
M=$1
DRAWS=$2
OUT=$3
B=${4:-bin/rfstream}
GOMEMLIMIT=${GOMEMLIMIT:-18GiB} nice -n 10 "$B" eval mnist-sizes --sizes 1000 --draws "$DRAWS" --subset-seed 1 --maps invariant \
  --m "$M" --bins 16 --lo -0.5 --hi 0.5 --g 0 --rotation-steps 1 --integer-shifts --deskew --templates datadiff \
  --out "$OUT" --resume --json $EXTRA_FLAGS || exit 1
awk -F, 'NR > 1 { n++; s += $7; ss += $7 * $7 }
  END { m = s / n; sd = sqrt((ss - n * m * m) / (n - 1))
        printf "draws %d  mean %.4f %%  std %.4f  standard error %.4f  (rows: %s)\n", n, 100 * m, 100 * sd, 100 * sd / sqrt(n), FILENAME }' "$OUT.csv"
