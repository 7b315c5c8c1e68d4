#!/usr/bin/python3
"""rfstream against a tuned NumPy maxout + ridge on MNIST, trained end to end.

Usage: numpy_maxout.py RFSTREAM_BINARY MNIST_DIR [m] [q] [rounds]

Both sides fit the same model: m maxout units of q Gaussian projections of the
unit-length pixel rows, features scaled by 1/sqrt(m), and a ridge read-out on
+-1 targets at the same lambda (the one rfstream's held-out search chose in a
first run). The NumPy side is the brief's tuned recipe: float32, each row chunk
projected by one GEMM whose columns hold the q candidates as q blocks of m, the
max taken block against block in place, the Gram accumulated in float32 per
chunk and summed in float64, then one Cholesky solve. Its time runs from
drawing the projections to the solved weights; rfstream's is its train_seconds
(FitRLS: features, Gram, solve) with --lambda given, and once more with its own
lambda search. The sides alternate over the rounds and the best of each is
kept. Loading the data is not timed on either side.
"""
import json
import subprocess
import sys
import time

import numpy as np
import scipy.linalg

from mnist_idx import load


def maxout(x, w, m, q, out):
    """out[:] = max over the q column blocks of x @ w, scaled by 1/sqrt(m)."""
    z = x @ w
    np.copyto(out, z[:, :m])
    for k in range(1, q):
        np.maximum(out, z[:, k * m:(k + 1) * m], out=out)
    out *= np.float32(1 / np.sqrt(m))
    return out


def numpy_fit(x, y, m, q, lam, seed, chunk=4096):
    t = time.perf_counter()
    w = np.random.default_rng(seed).standard_normal((x.shape[1], q * m), dtype=np.float32)
    gram = np.zeros((m, m))
    zty = np.zeros((m, 10))
    f = np.empty((chunk, m), dtype=np.float32)
    for a in range(0, len(x), chunk):
        b = min(a + chunk, len(x))
        fc = maxout(x[a:b], w, m, q, f[: b - a])
        targets = np.full((b - a, 10), -1, dtype=np.float32)
        targets[np.arange(b - a), y[a:b]] = 1
        gram += fc.T @ fc
        zty += fc.T @ targets
    gram[np.diag_indices(m)] += lam
    alpha = scipy.linalg.cho_solve(scipy.linalg.cho_factor(gram, check_finite=False), zty, check_finite=False)
    return time.perf_counter() - t, w, alpha


def numpy_error(x, y, w, alpha, m, q):
    f = np.empty((len(x), m), dtype=np.float32)
    return float(np.mean(np.argmax(maxout(x, w, m, q, f) @ alpha, axis=1) != y))


def rfstream(binary, m, q, lam=None):
    args = [binary, "eval", "mnist", "--map", "maxout", "--m", str(m), "--q", str(q), "--seed", "1", "--json"]
    if lam is not None:
        args += ["--lambda", repr(lam)]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, mnist = sys.argv[1], sys.argv[2]
    m = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    q = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 3

    print(f"rfstream eval mnist --map maxout --m {m} --q {q} (its own λ search) ...", file=sys.stderr, flush=True)
    searched = rfstream(binary, m, q)
    lam = searched["lambda"]
    xtr, ytr = load(mnist, "train")
    xte, yte = load(mnist, "test")
    ours, theirs = [], []
    for r in range(rounds):
        print(f"round {r + 1}/{rounds}: rfstream --lambda {lam:.3g}, then NumPy ...", file=sys.stderr, flush=True)
        ours.append(rfstream(binary, m, q, lam))
        sec, w, alpha = numpy_fit(xtr, ytr, m, q, lam, seed=r + 1)
        theirs.append((sec, numpy_error(xte, yte, w, alpha, m, q)))

    best_ours = min(ours, key=lambda o: o["train_seconds"])
    best_np = min(theirs)
    print(f"\nMNIST 60k/10k, maxout m={m} q={q}, ridge read-out at λ = {lam:.3g}; "
          f"best of {rounds} alternating rounds")
    hdr = f"{'':<34} {'train s':>8} {'test error':>11}"
    print(hdr)
    print("-" * len(hdr))
    print(f"{'rfstream (λ given)':<34} {best_ours['train_seconds']:8.2f} {100 * best_ours['test_error']:10.2f}%")
    print(f"{'NumPy, tuned (λ given)':<34} {best_np[0]:8.2f} {100 * best_np[1]:10.2f}%")
    print(f"{'rfstream (with its λ search)':<34} {searched['train_seconds']:8.2f} {100 * searched['test_error']:10.2f}%")
    ours_s = ", ".join(f"{o['train_seconds']:.2f}" for o in ours)
    theirs_s = ", ".join(f"{t[0]:.2f}" for t in theirs)
    print(f"\nrfstream's rounds: {ours_s} s; NumPy's: {theirs_s} s")
    print(f"speed-up at λ given: {best_np[0] / best_ours['train_seconds']:.2f}x")


if __name__ == "__main__":
    main()
