# Leverage-score selection (ELSS): plain random features vs ELSS-1 and ELSS-2 at equal m,
# Fourier and maxout maps, MNIST and spoken digits, 5 seeds, plus MNIST with 10 and 50 labels per class.
.PHONY: eval-elss eval-elss-quick

eval-elss: build data
	$(BIN) eval elss --out out/elss

# A few minutes: m ∈ {100, 500}, 2 seeds, MNIST on 10000 training rows.
eval-elss-quick: build data
	$(BIN) eval elss --quick --out out/elss-quick
