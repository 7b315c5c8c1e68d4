"""Paired comparison of two eval mnist-sizes CSVs over the subset seeds both hold (experiments/journal/invariant.md, round 8):
the mean of each, the mean per-draw difference (B - A) in points, its standard error, and the draws B wins.

usage: /usr/bin/python3 experiments/probes/paired_draws.py A.csv B.csv
"""
import csv
import math
import sys


def accuracies(path):
    with open(path) as f:
        return {int(r["subset_seed"]): 100 * float(r["accuracy"]) for r in csv.DictReader(f)}


def paired(name, b, a):
    """Prints the mean, std and standard error of the per-draw differences b - a, and the draws ahead and behind."""
    d = [x - y for x, y in zip(b, a)]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1)) if n > 1 else float("nan")
    print(f"{name}: mean {mean:+.4f} points, std {sd:.4f}, standard error {sd / math.sqrt(n):.4f}; "
          f"ahead on {sum(x > 0 for x in d)}, level on {sum(x == 0 for x in d)}, behind on {sum(x < 0 for x in d)}")


def main():
    a, b = accuracies(sys.argv[1]), accuracies(sys.argv[2])
    seeds = sorted(set(a) & set(b))
    n = len(seeds)
    if n < 2:
        sys.exit(f"{n} common draws: need at least 2")
    print(f"draws {n} (seeds {seeds[0]}..{seeds[-1]})")
    print(f"A {sys.argv[1]}: mean {sum(a[s] for s in seeds) / n:.4f} %")
    print(f"B {sys.argv[2]}: mean {sum(b[s] for s in seeds) / n:.4f} %")
    paired("B - A", [b[s] for s in seeds], [a[s] for s in seeds])


if __name__ == "__main__":
    main()
