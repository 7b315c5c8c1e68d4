# make results: the README's results table, measured now. One run of `rfstream demo` on the current code,
# `rfstream eval enroll --sets real` (teaching the five real voices of ../shared/voices), and the
# phone model (`train phones`' recipe, trained into out/phones.rfm unless there) scored by `eval phones --real`, are read by
# experiments/results.py, which prints the table in Markdown on stdout and fails, naming what is missing, when a
# number is absent (a part failed, or was skipped for want of espeak-ng). The runs' own output goes to stderr as they
# run and to out/demo.log and out/phones.log. `make -s results > table.md` keeps the table alone. Delete
# out/phones.rfm when the phone recipe changes. The real-voices row (issue 51) is read from a saved run, since its
# 11 folds take over an hour: the newest line of $(REAL_VOICES_RUNS) made by the current default recipe (its
# fingerprint, `eval real-voices --live --fingerprint`), else the row says it is stale; `make results-real-voices`
# runs the 11 folds and appends the line.
.PHONY: results results-phones results-real-voices
REAL_VOICES_RUNS ?= experiments/journal/runs/real-voices-default.jsonl
PHONES_MODEL ?= out/phones.rfm
# The synthetic test speakers scored beside the real ones: every engine's, labelled as train phones labels them.
PHONES_TEST ?= --engines espeak-ng,flite,festival --espeak-per-voice 0 --engine-sentences 40 --lexicon-labels --first-labels flat

results: packages build
	@mkdir -p out
	{ $(BIN) demo 2>&1; $(BIN) eval enroll --sets real 2>&1; \
	  $(BIN) eval connected --model internal/shipped/connected.rfm --sets '' --engine-strings-sets espeak-ng,flite,festival 2>&1; } | tee out/demo.log >&2
	$(MAKE) -s results-phones >&2
	$(PY) experiments/results.py out/demo.log --phones out/phones.log \
		--real-voices $(REAL_VOICES_RUNS) --real-voices-recipe $$($(LAB) eval real-voices --live --fingerprint)

# The phone model's row alone: PER on the real speakers it never trained on (phones.md, rounds 5–8).
results-phones: build
	@mkdir -p out
	[ -f $(PHONES_MODEL) ] || nice -n 10 $(BIN) train phones --out $(PHONES_MODEL)
	nice -n 10 $(LAB) eval phones --real --model $(PHONES_MODEL) $(PHONES_TEST) --json 2>&1 | tee out/phones.log

# The real-voices row's run: leave each of the 11 voices out (default recipe), hear it as `recognize` does, and
# append the JSON line to $(REAL_VOICES_RUNS) (commit it with the code it measured).
results-real-voices: build
	@mkdir -p out
	nice -n 10 $(LAB) eval real-voices --live --json 2>&1 | tee out/real-voices.log
	tail -n 1 out/real-voices.log | grep '^{' >> $(REAL_VOICES_RUNS)
