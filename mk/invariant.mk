# Group-invariant random features (issue 3): the Xperm toy set, MNIST sample complexity, extraction speed.
.PHONY: eval-xperm eval-mnist-invariant eval-mnist-invariant-draws eval-mnist-invariant-draws100 eval-mnist-invariant-draws-loo eval-mnist-lambda-rules bench-invariant

# Raw one-hot and bag of words against the invariant map over an m × n grid (10 template draws each), then,
# at m = 25, n = 10: accuracy against sampled |G|, 1-NN on every representation (the distance check), and the
# exact Haar-kernel RLS. Tables on stdout; out/xperm{,-group}.csv and out/xperm-templates, out/xperm-group-group plots.
eval-xperm: build
	$(LAB) eval xperm --map raw,bow,invariant --m 5,10,25,50,100 --bins 1,5,10,20 --draws 10 --knn 0 --out out/xperm
	$(LAB) eval xperm --map raw,bow,invariant,haar --m 25 --bins 10 --draws 10 --g-sweep 1,5,10,30,60 \
		--g-m 25 --g-bins 10 --kernel cdf,gaussian --knn 1 --out out/xperm-group

# MNIST accuracy against labelled examples per class (test: the full 10k): the invariant map (1500 templates,
# each the difference of two unlabelled training images, stored under all 147 elements of {−20°, 0°, 20°} ×
# whole-pixel shifts within ±3 px; n = 16, i.e. 33 CDF thresholds evenly on [−0.5, 0.5], where their
# projections lie) against RLS on raw pixels, random maxout and random Fourier features of the same
# dimension (49500), every map on the same deskewed, unit-length images; out/mnist-invariant.{csv,png,svg}.
# Settings chosen on held-out training rows (experiments/journal/invariant.md). One process at a time: a 1000-per-class fit
# of 49500 features peaks near 8.3 GB (14 GB before the test features were scored block by block).
eval-mnist-invariant: build data
	nice -n 10 $(LAB) eval mnist-sizes --sizes 10,50,100,500,1000 --m 1500 --bins 16 --lo -0.5 --hi 0.5 \
		--g 0 --rotation-steps 1 --integer-shifts --deskew --templates datadiff --out out/mnist-invariant

# The 1000-per-class row as the paper reports it: a mean over training draws (here 5 subsets, subset seeds
# 1–5; the paper draws 100), same maps and settings as eval-mnist-invariant; out/mnist-invariant-draws.csv
# keeps every draw. 1 h 12 min beside three other jobs on the 2 cores (Nov 23); peak RSS 13.2 GB then, 8.3 GB
# for one fit since the test features are scored block by block.
eval-mnist-invariant-draws: build data
	nice -n 10 $(LAB) eval mnist-sizes --sizes 1000 --draws 5 --m 1500 --bins 16 --lo -0.5 --hi 0.5 \
		--g 0 --rotation-steps 1 --integer-shifts --deskew --templates datadiff --out out/mnist-invariant-draws

# The invariant map over the paper's 100 training draws at 1000 per class (subset seeds 1-100), the rest as
# above (experiments/journal/invariant.md, "Round 7"): one process per draw, so a rerun resumes where an interrupted one
# stopped; about 3 min a draw on the idle machine, 5 h in all. Prints mean, std and standard error at the end.
eval-mnist-invariant-draws100: build data
	sh experiments/probes/mnist_draws100.sh out/mnist-invariant-draws100 $(BIN)

# The same five draws with λ chosen for every map by exact leave-one-out over all training rows (GURLS's
# choice, the paper's RLS package) instead of 10 % of them (experiments/journal/invariant.md, "Round 5").
eval-mnist-invariant-draws-loo: build data
	nice -n 10 $(LAB) eval mnist-sizes --sizes 1000 --draws 5 --m 1500 --bins 16 --lo -0.5 --hi 0.5 \
		--g 0 --rotation-steps 1 --integer-shifts --deskew --templates datadiff --lambda-by loo \
		--out out/mnist-invariant-draws-loo

# Round 9 of experiments/journal/invariant.md: 20 training draws on the held-out split (training rows 50 000-59 999 scored, the
# test file unread), each refitted at eight λ from one kernel (--lambda-path), then rules for choosing λ
# compared draw by draw (experiments/probes/lambda_rules.py). About 3.5 min a draw after 3 min of mapping, 75 min in all;
# resumable (rerun the same command).
eval-mnist-lambda-rules: build data
	EXTRA_FLAGS='--lambda-path 1e-8,1e-7,1e-6,1e-5,1e-4,1e-3,1e-2,1e-1 --resume' sh experiments/probes/mnist_heldout_draws.sh 1500 20 out/r9/m1500 $(BIN)
	/usr/bin/python3 experiments/probes/lambda_rules.py out/r9/m1500.rows.jsonl

# Feature extraction images/s for the MNIST configuration, and its ratio to linalg's bare GEMM on the same
# shapes; then the CDF pooling step alone (ns per projection value, one goroutine).
bench-invariant:
	$(GO) test -tags '$(GOTAGS)' -run '^$$' -bench 'BenchmarkInvariantMNIST|BenchmarkPoolMNIST' -benchtime 2x ./invariant/
