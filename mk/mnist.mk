# MNIST: Table 1 of the random maxout paper, and the demo's first part.
.PHONY: eval-mnist

# q ∈ {1,2,4,8}, m ∈ {500,1000,5000,10000}; 3 seeds for m ≤ 1000, 1 above; RFF m = 10000 beside them.
eval-mnist: build data
	$(BIN) eval table1 --out out/table1

# Gram update (the RLS training step) against NumPy's X.T @ X on the same shapes, as a ratio.
.PHONY: bench-rls
bench-rls:
	@mkdir -p bin
	$(GO) test -c -o bin/classifier.test ./classifier
	$(PY) bench/rls.py bin/classifier.test 3
