#!/usr/bin/python3
"""Feature-map speed: rfstream's maxout and Fourier maps against NumPy on the same shapes.

Usage: maps.py MAXOUT_TEST_BINARY FEATURES_TEST_BINARY [rounds]

NumPy's maxout is the tuned form the brief measured (float32, projections laid out
in column blocks, product and max over the q candidates per row chunk, so the n x m*q
product is never held whole); its Fourier map is cos(X @ W + b) in float32. Go and
NumPy run alternately and the best of each is kept, so load from other processes
penalises neither side more. GFLOP/s counts the projection GEMM only (2*n*d*m*q), so
a map's figure against the bare GEMM's shows what its pointwise step costs.
"""
import os
import sys

import numpy as np

from gobench import best_seconds, clock_name, go_gflops

MAXOUT = [(8192, 784, 1000, 4), (8192, 784, 5000, 4)]
FOURIER = (8192, 784, 4000)
ROW_CHUNK, UNIT_BLOCK = 1024, 512


def numpy_maxout(n, d, m, q, reps):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((n, d), dtype=np.float32)
    # blocks of UNIT_BLOCK units, projection-major inside a block: column j*bs+u of
    # a block is projection j of unit u, so the max is over q contiguous slices.
    blocks = [rng.standard_normal((d, q * min(UNIT_BLOCK, m - b)), dtype=np.float32)
              for b in range(0, m, UNIT_BLOCK)]
    out = np.empty((n, m), dtype=np.float32)
    scale = np.float32(1 / np.sqrt(m))

    def run():
        for r in range(0, n, ROW_CHUNK):
            xc = x[r:r + ROW_CHUNK]
            u = 0
            for w in blocks:
                bs = w.shape[1] // q
                p = (xc @ w).reshape(len(xc), q, bs)
                np.max(p, axis=1, out=out[r:r + ROW_CHUNK, u:u + bs])
                u += bs
        np.multiply(out, scale, out=out)

    gemm_w = np.concatenate(blocks, axis=1)
    flops = 2 * n * d * m * q
    return (flops / best_seconds(run, reps) / 1e9,
            flops / best_seconds(lambda: x @ gemm_w, reps) / 1e9)


def numpy_fourier(n, d, m, reps):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((n, d), dtype=np.float32)
    w = rng.standard_normal((d, m), dtype=np.float32)
    b = rng.uniform(0, 2 * np.pi, m).astype(np.float32)
    scale = np.float32(np.sqrt(2 / m))

    def run():
        z = x @ w
        z += b
        np.cos(z, out=z)
        z *= scale

    return 2 * n * d * m / best_seconds(run, reps) / 1e9


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    maxout_bin, features_bin = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    go, npy = {}, {}

    def keep(store, key, v):
        store[key] = max(store.get(key, 0), v)

    for r in range(rounds):
        print(f"round {r + 1}/{rounds} ...", file=sys.stderr, flush=True)
        for k, v in go_gflops(maxout_bin, "^BenchmarkApply$", "2x").items():
            keep(go, k, v)
        for k, v in go_gflops(features_bin, "^BenchmarkFourierApply$", "2x").items():
            keep(go, k, v)
        for n, d, m, q in MAXOUT:
            fused, gemm = numpy_maxout(n, d, m, q, 2)
            keep(npy, ("maxout", n, m, q), fused)
            keep(npy, ("gemm", n, m, q), gemm)
        keep(npy, "fourier", numpy_fourier(*FOURIER, 2))

    threads = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    print(f"Feature maps, GFLOP/s of the projection GEMM (best of {rounds} rounds; "
          f"OPENBLAS_NUM_THREADS={threads}; {clock_name()}; NumPy {np.__version__})\n")
    hdr = f"{'map':<34} {'rfstream':>9} {'NumPy':>7} {'ratio':>6}"
    print(hdr)
    print("-" * len(hdr))

    def row(label, gk, nk):
        g, p = go.get(gk), npy[nk]
        if g is None:
            print(f"{label:<34} {'missing':>9} {p:7.1f}")
        else:
            print(f"{label:<34} {g:9.1f} {p:7.1f} {g / p:6.2f}")

    for n, d, m, q in MAXOUT:
        row(f"maxout n={n} m={m} q={q}", f"Apply/maxout/n={n}/m={m}/q={q}", ("maxout", n, m, q))
        row(f"  bare f32 GEMM, same shape", f"Apply/gemm/n={n}/m={m}/q={q}", ("gemm", n, m, q))
    n, d, m = FOURIER
    row(f"fourier n={n} m={m}", f"FourierApply/n={n}/m={m}", "fourier")
    print("\nratio = rfstream / NumPy (target ≥ 0.8). A map's row against its bare GEMM row"
          "\nshows what the max (or cosine) adds on top of the product.")


if __name__ == "__main__":
    main()
