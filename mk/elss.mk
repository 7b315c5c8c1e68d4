# Leverage-score selection (ELSS): plain random features vs ELSS-1 and ELSS-2 at equal m,
# Fourier and maxout maps, MNIST and spoken digits, 5 seeds, plus MNIST with 10 and 50 labels per class.
# The whole grid is the three parts below in one run (one CSV, out/elss.csv); the parts can be run alone.
.PHONY: eval-elss eval-elss-quick eval-elss-mnist eval-elss-digits eval-elss-few

eval-elss: build data
	$(LAB) eval elss --out out/elss

# MNIST with all 60000 labels, m = 100 … 2000.
eval-elss-mnist: build data
	$(LAB) eval elss --data mnist --few '' --out out/elss-mnist-part

# Spoken digits (FSDD official split), m = 100 … 2000.
eval-elss-digits: build
	$(LAB) eval elss --data digits --few '' --out out/elss-digits-part

# MNIST with 10 and 50 labels per class (scores on all 60000 unlabelled inputs), m = 100, 500, 2000, and RLS on raw pixels.
eval-elss-few: build data
	$(LAB) eval elss --data mnist --ms '' --few 10,50 --out out/elss-few-part

# A few minutes: m ∈ {100, 500}, 2 seeds, MNIST on 10000 training rows.
eval-elss-quick: build data
	$(LAB) eval elss --quick --out out/elss-quick
