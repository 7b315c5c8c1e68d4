#!/usr/bin/python3
"""Gram update speed: rfstream's RLS accumulator against NumPy on the same shapes.

Usage: rls.py CLASSIFIER_TEST_BINARY [rounds]

The Go benchmarks (classifier/rls_bench_test.go: BenchmarkGramUpdate, BenchmarkSyrk)
and NumPy's X.T @ X (which NumPy hands to BLAS SYRK) are run alternately for a few
rounds and the best time of each is kept, so load from other processes on a shared
machine penalises neither side more than the other. Both sides count n*m^2 flops
for one n x m block (one triangle of the Gram).
"""
import os
import sys

import numpy as np

from gobench import best_seconds, clock_name, go_gflops

SHAPES = [(4096, 1000), (4096, 5000)]


def numpy_best(n, m, dtype, reps):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((n, m)).astype(dtype)
    return n * m * m / best_seconds(lambda: x.T @ x, reps) / 1e9


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary, rounds = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3
    go, npy = {}, {}
    for r in range(rounds):
        print(f"round {r + 1}/{rounds} ...", file=sys.stderr, flush=True)
        for k, v in go_gflops(binary, "^(BenchmarkGramUpdate|BenchmarkSyrk)$").items():
            go[k] = max(go.get(k, 0), v)
        for n, m in SHAPES:
            for name, dt in (("f32", np.float32), ("f64", np.float64)):
                k = (name, n, m)
                npy[k] = max(npy.get(k, 0), numpy_best(n, m, dt, 3 if m > 2000 else 10))

    threads = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    print(f"Gram update, GFLOP/s (n*m^2 per block; best of {rounds} rounds; OPENBLAS_NUM_THREADS={threads}; {clock_name()})")
    print(f"NumPy {np.__version__}: X.T @ X on an n x m block\n")
    hdr = f"{'n':>5} {'m':>5}  {'operation':<44} {'rfstream':>9} {'NumPy':>7} {'ratio':>6}"
    print(hdr)
    print("-" * len(hdr))
    for n, m in SHAPES:
        rows = [
            ("RLSAccumulator.Add (f32 SYRK → f64 Gram, ZᵀY)", f"GramUpdate/n={n}/m={m}", ("f32", n, m)),
            ("  vs NumPy f64 X.T@X (the all-f64 route)", f"GramUpdate/n={n}/m={m}", ("f64", n, m)),
            ("bare SSYRK f32", f"Syrk/f32/n={n}/m={m}", ("f32", n, m)),
            ("bare DSYRK f64 (widening included)", f"Syrk/f64/n={n}/m={m}", ("f64", n, m)),
        ]
        for label, gk, nk in rows:
            g, p = go.get(gk), npy[nk]
            if g is None:
                print(f"{n:>5} {m:>5}  {label:<44} {'missing':>9} {p:7.1f}")
                continue
            print(f"{n:>5} {m:>5}  {label:<44} {g:9.1f} {p:7.1f} {g / p:6.2f}")
    print("\nratio = rfstream / NumPy (target ≥ 0.8). The first row is the whole per-block"
          "\ntraining step against NumPy's bare f32 product; its second line compares it with"
          "\nthe float64 product a NumPy trainer keeping a float64 Gram would do.")


if __name__ == "__main__":
    main()
