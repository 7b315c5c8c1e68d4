# Figures of the maxout paper and confusion matrices, written to out/.
.PHONY: eval-figures eval-figure2 eval-digits-confusion eval-mnist-confusion

eval-figures: build eval-mnist-confusion eval-digits-confusion eval-figure2
	$(LAB) eval figure1 --out out/figure1

# Figure 2 analogue: one MNIST test digit rotated −90..90°, maxout (m=10000, q=12) + PCA vs raw pixels + PCA.
eval-figure2: build data
	$(LAB) eval figure2 --out out/figure2

eval-mnist-confusion: build data
	$(LAB) eval mnist --map maxout --m 1000 --q 4 --confusion out/mnist-confusion

eval-digits-confusion: build
	$(LAB) eval digits --split speaker --m 3000 --confusion out/digits-speaker-confusion $(DIGITS_FSDD_ONLY)
