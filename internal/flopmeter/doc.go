// Package flopmeter reports a benchmark's speed in GFLOP/s twice: over wall
// time, and over the CPU time the process spent. On a machine shared with
// other jobs the wall figure drops whenever the benchmark is descheduled;
// the CPU figure does not (it still suffers from shared caches), so with one
// thread (OPENBLAS_NUM_THREADS=1, -test.cpu 1) it compares the work of two
// implementations even under load. bench/gobench.py reads both.
package flopmeter
