"""Writes the held-out split of experiments/journal/invariant.md as IDX files: training rows [0, 50000) of MNIST's
training file as a training file, and rows [50000, 60000) as a test file, so `rfstream eval mnist-sizes
--train-images/--test-images` chooses settings without reading the real test file.

usage: /usr/bin/python3 experiments/probes/mnist_heldout.py DATA_DIR OUT_DIR [SPLIT_ROW]
"""
import os
import struct
import sys


def write_rows(src, dst, header, row_bytes, lo, hi):
    with open(src, "rb") as f:
        head = f.read(header)
        count = struct.unpack(">I", head[4:8])[0]
        if hi > count:
            sys.exit(f"{src}: {count} rows, want {hi}")
        f.seek(header + lo * row_bytes)
        body = f.read((hi - lo) * row_bytes)
    with open(dst, "wb") as f:
        f.write(head[:4] + struct.pack(">I", hi - lo) + head[8:] + body)


def main():
    data, out = sys.argv[1], sys.argv[2]
    split = int(sys.argv[3]) if len(sys.argv) > 3 else 50000
    os.makedirs(out, exist_ok=True)
    for name, lo, hi in (("train", 0, split), ("heldout", split, 60000)):
        write_rows(f"{data}/train-images-idx3-ubyte", f"{out}/{name}-images-idx3-ubyte", 16, 784, lo, hi)
        write_rows(f"{data}/train-labels-idx1-ubyte", f"{out}/{name}-labels-idx1-ubyte", 8, 1, lo, hi)


main()
