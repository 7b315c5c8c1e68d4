#!/usr/bin/python3
"""rfstream against scikit-learn on MNIST-shaped data: random Fourier features + ridge.

Usage: sklearn_mnist.py RFSTREAM_BINARY MNIST_DIR [m]

scikit-learn's RBFSampler(m) + RidgeClassifier and `rfstream eval mnist --map fourier
--m M` see the same data: the 60k/10k idx files, pixels scaled to unit-length rows,
Gaussian kernel bandwidth σ = 1 (gamma = 1/(2σ²)). scikit-learn gets the λ rfstream
chose on its held-out split, so both fit the same model class; rfstream's time
includes that λ search, scikit-learn's does not. Peak memory is each process's
maximum resident set.
"""
import json
import resource
import subprocess
import sys
import time

import numpy as np
import sklearn
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import RidgeClassifier

from mnist_idx import load


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, mnist = sys.argv[1], sys.argv[2]
    m = int(sys.argv[3]) if len(sys.argv) > 3 else 4000

    print(f"rfstream eval mnist --map fourier --m {m} --sigma 1 ...", file=sys.stderr, flush=True)
    out = subprocess.run([binary, "eval", "mnist", "--map", "fourier", "--m", str(m), "--sigma", "1",
                          "--seed", "1", "--json"], check=True, capture_output=True, text=True).stdout
    ours = json.loads(out.strip().splitlines()[-1])

    print(f"scikit-learn {sklearn.__version__} RBFSampler({m}) + RidgeClassifier ...", file=sys.stderr, flush=True)
    xtr, ytr = load(mnist, "train")
    xte, yte = load(mnist, "test")
    t = time.perf_counter()
    rbf = RBFSampler(gamma=0.5, n_components=m, random_state=1)
    ztr = rbf.fit_transform(xtr)
    clf = RidgeClassifier(alpha=ours["lambda"]).fit(ztr, ytr)
    fit_s = time.perf_counter() - t
    err = float(np.mean(clf.predict(rbf.transform(xte)) != yte))
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    print(f"\nMNIST 60k/10k, random Fourier features m={m}, σ=1, ridge read-out")
    hdr = f"{'':<28} {'train s':>8} {'peak MiB':>9} {'test error':>11}"
    print(hdr)
    print("-" * len(hdr))
    print(f"{'rfstream (incl. λ search)':<28} {ours['train_seconds']:8.1f} {ours['peak_rss_mb']:9.0f} "
          f"{100 * ours['test_error']:10.2f}%")
    print(f"{'scikit-learn (λ given)':<28} {fit_s:8.1f} {rss_mb:9.0f} {100 * err:10.2f}%")
    print(f"\nspeed-up {fit_s / ours['train_seconds']:.1f}x, memory {rss_mb / ours['peak_rss_mb']:.1f}x less "
          f"(λ = {ours['lambda']:.3g})")


if __name__ == "__main__":
    main()
