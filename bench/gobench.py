"""Helpers the ratio scripts share: run a compiled Go test binary's benchmarks
and read the GFLOP/s each one reports, and time a NumPy callable."""
import re
import subprocess
import time


def go_gflops(binary, pattern, benchtime="3x"):
    """Runs the benchmarks matching pattern; returns {sub-benchmark name: GFLOP/s}."""
    out = subprocess.run(
        [binary, "-test.run", "^$", "-test.bench", pattern, "-test.benchtime", benchtime],
        check=True, capture_output=True, text=True).stdout
    res = {}
    for line in out.splitlines():
        mt = re.match(r"Benchmark(\S+?)-\d+\s+\d+\s+\d+ ns/op\s+([\d.]+) GFLOP/s", line)
        if mt:
            res[mt.group(1)] = float(mt.group(2))
    return res


def best_seconds(fn, reps):
    """Warms fn up once, then returns its best time over reps calls."""
    fn()
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best
