"""MNIST idx files as NumPy arrays, for the benchmarks that compare against Python stacks."""
import numpy as np


def read_idx(path, header):
    with open(path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=header)


def load(d, kind):
    """Images as float32 rows of unit length (rfstream's default) and int64 labels."""
    prefix = "train" if kind == "train" else "t10k"
    x = read_idx(f"{d}/{prefix}-images-idx3-ubyte", 16).reshape(-1, 784).astype(np.float32)
    y = read_idx(f"{d}/{prefix}-labels-idx1-ubyte", 8).astype(np.int64)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x, y
