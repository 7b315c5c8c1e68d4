#!/usr/bin/env python3
"""Paired bootstrap of the development PER between two phone models.

usage: paired.py A.json KEY_A B.json KEY_B [draws] [seed]

A.json and B.json are phonedecoder --dump files (the same development
recordings in the same order); KEY picks the setting in each ("saved",
"chosen", "r6t", "r6d"). Prints PER(B) - PER(A) in points and the standard
deviation of that difference over recordings drawn with replacement.
"""
import json
import random
import sys


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    a = json.load(open(sys.argv[1]))[sys.argv[2]]
    b = json.load(open(sys.argv[3]))[sys.argv[4]]
    draws = int(sys.argv[5]) if len(sys.argv) > 5 else 2000
    rng = random.Random(int(sys.argv[6]) if len(sys.argv) > 6 else 1)
    n = len(a["errors"])
    if len(b["errors"]) != n:
        sys.exit("the two dumps have different recordings")

    def per(t, idx):
        return sum(t["errors"][i] for i in idx) / max(1, sum(t["ref"][i] for i in idx))

    every = range(n)
    diff = per(b, every) - per(a, every)
    ds = []
    for _ in range(draws):
        idx = [rng.randrange(n) for _ in range(n)]
        ds.append(per(b, idx) - per(a, idx))
    mean = sum(ds) / draws
    sd = (sum((d - mean) ** 2 for d in ds) / draws) ** 0.5
    print(f"PER B - A on development: {100 * diff:+.2f} points (A {100 * per(a, every):.2f} %, B {100 * per(b, every):.2f} %); "
          f"paired bootstrap sd {100 * sd:.2f} over {n} recordings; beyond noise (2 sd): {abs(diff) > 2 * sd}")


if __name__ == "__main__":
    main()
