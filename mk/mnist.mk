# MNIST: Table 1 of the random maxout paper, and the demo's first part.
.PHONY: eval-mnist

# q ∈ {1,2,4,8}, m ∈ {500,1000,5000,10000}; 3 seeds for m ≤ 1000, 1 above; RFF m = 10000 beside them.
eval-mnist: build data
	$(LAB) eval table1 --out out/table1

# Table 1's q = 1 row (a linear model) with unit rows and with pixels left in [0, 1] (--normalize none),
# then the exact ridge solution on the pixels in NumPy as an independent check of both.
.PHONY: eval-mnist-linear
eval-mnist-linear: build data
	$(LAB) eval table1 --q 1 --rff 0 --out out/table1-q1-unit
	$(LAB) eval table1 --q 1 --rff 0 --normalize none --out out/table1-q1-none
	$(PY) experiments/probes/linear_ls.py $(RFSTREAM_DATA)/mnist

# Gram update (the RLS training step) against NumPy's X.T @ X on the same shapes, as a ratio.
.PHONY: bench-rls
bench-rls:
	@mkdir -p bin
	$(GO) test -tags '$(GOTAGS)' -c -o bin/classifier.test ./classifier
	$(PY) bench/rls.py bin/classifier.test 3

# Feature maps (maxout fused with its max, Fourier) against NumPy on the same shapes, as a ratio.
.PHONY: bench-maps
bench-maps:
	@mkdir -p bin
	$(GO) test -tags '$(GOTAGS)' -c -o bin/maxout.test ./maxout
	$(GO) test -tags '$(GOTAGS)' -c -o bin/features.test ./features
	$(PY) bench/maps.py bin/maxout.test bin/features.test 3

# Random Fourier features + ridge on MNIST against scikit-learn's RBFSampler + RidgeClassifier.
.PHONY: bench-sklearn
bench-sklearn: build data
	$(PY) bench/sklearn_mnist.py $(BIN) $(RFSTREAM_DATA)/mnist 4000

# Maxout m = 1000, q = 4 + ridge on MNIST, trained end to end, against the brief's tuned NumPy recipe at the same λ.
.PHONY: bench-numpy
bench-numpy: build data
	$(PY) bench/numpy_maxout.py $(BIN) $(RFSTREAM_DATA)/mnist 1000 4 5

# The same two tables in CPU time with one thread on each side (BENCH_CLOCK=cpu, see bench/gobench.py):
# on a machine shared with other jobs this still compares the work each side does.
.PHONY: bench-maps-cpu bench-rls-cpu
bench-maps-cpu bench-rls-cpu: bench-%-cpu:
	BENCH_CLOCK=cpu OPENBLAS_NUM_THREADS=1 $(MAKE) bench-$*
