"""Exact linear least squares on MNIST pixels: the model random maxout with q = 1 spans.

For q = 1 a maxout unit is one random projection, so for m >= 784 the
features span the pixels and RLS on them is ridge regression on the
pixels themselves (no intercept, +-1 one-vs-rest targets), whatever the
seed. This solves that model in closed form with NumPy, for the two input
preparations `rfstream eval mnist --normalize unit|none` offers, over a
grid of lambda, and prints test error. It checks the q = 1 row of
`make eval-mnist-linear` independently of rfstream's code.

usage: /usr/bin/python3 experiments/probes/linear_ls.py data/mnist
"""
import struct
import sys

import numpy as np


def images(path):
    with open(path, 'rb') as f:
        b = f.read()
    n, rows, cols = struct.unpack('>III', b[4:16])
    return np.frombuffer(b, np.uint8, offset=16).reshape(n, rows * cols) / 255.0


def labels(path):
    with open(path, 'rb') as f:
        return np.frombuffer(f.read(), np.uint8, offset=8)


def main(d):
    xtr, ytr = images(d + '/train-images-idx3-ubyte'), labels(d + '/train-labels-idx1-ubyte')
    xte, yte = images(d + '/t10k-images-idx3-ubyte'), labels(d + '/t10k-labels-idx1-ubyte')
    y = -np.ones((len(ytr), 10))
    y[np.arange(len(ytr)), ytr] = 1
    unit = lambda x: x / np.linalg.norm(x, axis=1, keepdims=True)
    lams = [1e-6, 1e-2, 1, 10, 100, 1000]
    print('exact ridge regression on pixels, no intercept, MNIST 60k/10k: test error %')
    print('%-22s' % 'normalize \\ lambda' + ''.join('%9g' % l for l in lams))
    for name, prep in (('unit', unit), ('none', lambda x: x)):
        a, b = prep(xtr), prep(xte)
        g, r = a.T @ a, a.T @ y
        errs = []
        for lam in lams:
            w = np.linalg.solve(g + lam * np.eye(g.shape[0]), r)
            errs.append(100 * np.mean(np.argmax(b @ w, axis=1) != yte))
        print('%-22s' % name + ''.join('%9.2f' % e for e in errs))


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'data/mnist')
