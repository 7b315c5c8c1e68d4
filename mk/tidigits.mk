# TIDIGITS (issue 38, point 4). eval-tidigits scores the LDC corpus a user holds (TIDIGITS=DIR): connected
# strings per group, then the four isolated-digit splits. eval-tidigits-synth writes a synthetic
# TIDIGITS-shaped corpus (espeak-ng voices, 6+3 speakers in each of the four groups) into the data cache on
# first use and runs the same on it (experiments/journal/tidigits.md).
.PHONY: eval-tidigits eval-tidigits-synth

TIDIGITS_SPLITS := utterance speaker gender age
TIDIGITS_SYNTH  := $(RFSTREAM_DATA)/tidigits-synth

eval-tidigits: build
	@test -n "$(TIDIGITS)" || { echo "give the corpus folder: make eval-tidigits TIDIGITS=/path/to/tidigits"; exit 2; }
	nice -n 10 $(LAB) eval tidigits --corpus $(TIDIGITS)
	for s in $(TIDIGITS_SPLITS); do nice -n 10 $(LAB) eval tidigits --corpus $(TIDIGITS) --split $$s || exit 1; done

eval-tidigits-synth: build
	test -f $(TIDIGITS_SYNTH)/.complete || { rm -rf $(TIDIGITS_SYNTH) && $(LAB) eval tidigits --corpus $(TIDIGITS_SYNTH) \
		--synthesize --synth-train-speakers 6 --synth-test-speakers 3 --synth-strings 25 --split age && touch $(TIDIGITS_SYNTH)/.complete; }
	$(MAKE) eval-tidigits TIDIGITS=$(TIDIGITS_SYNTH)
