# Figures of the maxout paper and confusion matrices, written to out/.
.PHONY: eval-figures eval-digits-confusion eval-mnist-confusion

eval-figures: build eval-mnist-confusion eval-digits-confusion
	$(BIN) eval figure1 --out out/figure1

eval-mnist-confusion: build data
	$(BIN) eval mnist --map maxout --m 1000 --q 4 --confusion out/mnist-confusion

eval-digits-confusion: build
	$(BIN) eval digits --split speaker --m 3000 --confusion out/digits-speaker-confusion
