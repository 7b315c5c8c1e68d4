"""Helpers the ratio scripts share: run a compiled Go test binary's benchmarks
and read the GFLOP/s each one reports, and time a NumPy callable.

BENCH_CLOCK=cpu switches both sides from wall time to the process's CPU time:
the Go benchmarks' "GFLOP/s-cpu" metric (run with -test.cpu 1) and
time.process_time for NumPy. On a machine shared with other jobs, run it with
OPENBLAS_NUM_THREADS=1 so that it compares the work each side does, which
load from other processes barely changes; wall time needs an idle machine.
"""
import os
import re
import subprocess
import time

CPU_CLOCK = os.environ.get("BENCH_CLOCK", "wall") == "cpu"


def clock_name():
    return "CPU time, -test.cpu 1" if CPU_CLOCK else "wall time"


def go_gflops(binary, pattern, benchtime="3x"):
    """Runs the benchmarks matching pattern; returns {sub-benchmark name: GFLOP/s}."""
    cmd = [binary, "-test.run", "^$", "-test.bench", pattern, "-test.benchtime", benchtime]
    if CPU_CLOCK:
        cmd += ["-test.cpu", "1"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    unit = "GFLOP/s-cpu" if CPU_CLOCK else "GFLOP/s"
    res = {}
    for line in out.splitlines():
        # Benchmark<name>[-<procs>] <N> <t> ns/op [<value> <unit>]...
        mt = re.match(r"Benchmark(\S+?)(?:-\d+)?\s+\d+\s+\d+ ns/op\s+(.*)$", line)
        if not mt:
            continue
        metrics = re.findall(r"([\d.]+) (\S+)", mt.group(2))
        for value, u in metrics:
            if u == unit:
                res[mt.group(1)] = float(value)
    return res


def best_seconds(fn, reps):
    """Warms fn up once, then returns its best time over reps calls."""
    clock = time.process_time if CPU_CLOCK else time.perf_counter
    fn()
    best = float("inf")
    for _ in range(reps):
        t = clock()
        fn()
        best = min(best, clock() - t)
    return best
