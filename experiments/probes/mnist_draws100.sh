#!/bin/sh
# Round 7 of experiments/journal/invariant.md: the invariant map at 1000 per class over subset seeds 1-100, one
# `eval mnist-sizes` process per seed, so an interrupted run resumes: a seed whose CSV in DIR already
# holds its result row is skipped. When all 100 rows are in, they are gathered into DIR/draws.csv and
# their mean, standard deviation and standard error are printed; before that only the count is, because
# the round reports no partial means. --exact-counts=false keeps the float64 kernel the round's rows were
# made with (the exact-count kernel, the default since, gave the same rows on seeds 1-3, fit times aside).
# usage: experiments/probes/mnist_draws100.sh [DIR] [BINARY]  (from the repo root)
D=${1:-out/mnist-invariant-draws100}
B=${2:-bin/rfstream}
mkdir -p "$D"
done_row() { [ -f "$D/d$1.csv" ] && [ "$(wc -l < "$D/d$1.csv")" -ge 2 ]; }
for S in $(seq 1 100); do
  done_row "$S" && continue
  nice -n 10 "$B" eval mnist-sizes --sizes 1000 --draws 1 --subset-seed "$S" --maps invariant --m 1500 --bins 16 \
    --lo -0.5 --hi 0.5 --g 0 --rotation-steps 1 --integer-shifts --deskew --templates datadiff \
    --exact-counts=false --out "$D/d$S" > "$D/d$S.log" 2>&1 || echo "seed $S failed" >> "$D/errors"
done
n=0
for S in $(seq 1 100); do done_row "$S" && n=$((n + 1)); done
if [ "$n" -lt 100 ]; then
  echo "$n of 100 draws done; rerun to resume (the mean is reported only over all 100)"
  exit 1
fi
head -1 "$D/d1.csv" > "$D/draws.csv"
for S in $(seq 1 100); do tail -n +2 "$D/d$S.csv"; done >> "$D/draws.csv"
awk -F, 'NR > 1 { n++; s += $7; ss += $7 * $7 }
  END { m = s / n; sd = sqrt((ss - n * m * m) / (n - 1))
        printf "draws %d  mean %.4f %%  std %.4f  standard error %.4f  (rows: %s)\n", n, 100 * m, 100 * sd, 100 * sd / sqrt(n), FILENAME }' "$D/draws.csv"
