# make results: the README's results table, measured now. One run of `rfstream demo` on the current code, then
# `rfstream eval enroll --sets real` (teaching the five real voices of ../shared/voices), is piped into
# experiments/results.py, which prints the table in Markdown on stdout and fails, naming what is missing,
# when the demo did not print a number (a part failed, or was skipped for want of espeak-ng). The demo's own
# output goes to stderr as it runs and to out/demo.log. `make -s results > table.md` keeps the table alone.
.PHONY: results
results: packages build
	@mkdir -p out
	{ $(BIN) demo 2>&1; $(BIN) eval enroll --sets real 2>&1; } | tee out/demo.log /dev/stderr | $(PY) experiments/results.py
