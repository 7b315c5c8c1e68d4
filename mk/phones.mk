# Phone recognition on an espeak-ng corpus (issue 6, point 5): 3-state phone HMMs trained by flat start +
# align-and-retrain, phone-loop decoding, PER on voices never trained on, beside the same phone loop with RLS
# on raw spliced frames. The corpus is synthesised into $(RFSTREAM_DATA)/phones on first use.
.PHONY: eval-phones phones-corpus

eval-phones: build
	nice -n 10 $(LAB) eval phones

# Only synthesise the corpus (the eval does it on first use too).
phones-corpus: build
	$(BIN) data phones
