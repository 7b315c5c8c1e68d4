#!/usr/bin/python3
"""The README's results table, read from one run of `rfstream demo` and one of
`rfstream eval enroll --sets real`.

`make results` pipes `bin/rfstream demo` and `bin/rfstream eval enroll --sets
real` (stdout and stderr) into this script, so every number in the table comes
from one run of the current code:

    { bin/rfstream demo 2>&1; bin/rfstream eval enroll --sets real 2>&1; } | /usr/bin/python3 experiments/results.py
    /usr/bin/python3 experiments/results.py demo.log      # a saved log
    /usr/bin/python3 experiments/results.py demo.log --phones phones.log

The log also holds `rfstream eval connected --model internal/shipped/connected.rfm
--sets '' --engine-strings-sets espeak-ng,flite,festival`: the synthesisers'
strings said without pauses, through the shipped connected model (issue 51's
fluent strings of engines the default recipe does not train on).

With --phones, the output of `rfstream eval phones --real --model M --json`
(its last line is the JSON report) adds the phone model's row: PER on the
real speakers it never trained on.

With --real-voices RUNS --real-voices-recipe FP, the real-voices row (issue
51: leave one of the 11 real voices out, as `recognize` hears them) comes
from a saved run, since the 11 folds take over an hour: RUNS holds `eval
real-voices --live --json` last lines, one a line, and the newest whose
"recipe" fingerprint is FP (`rfstream eval real-voices --live --fingerprint`
prints the current default's), heard live, with today's decoder and all 11
voices held out, is the row. Without one the row says it is stale and
which command refreshes it (`make results-real-voices`), instead of
printing an old recipe's numbers.

It prints one Markdown table, one row per headline number, and exits 1,
naming what is missing, when the log lacks any of them (a part failed or was
skipped, e.g. the unseen-voice part without espeak-ng) or does not reach the
demo's last line, so a table is never printed with a hole in it. Only lines
the demo prints on every run are read: a model trained on first use
announces itself, a cached one does not.
"""
import re
import sys

NUM = r"([0-9]+(?:\.[0-9]+)?)"

# name -> pattern; each must match exactly once in the log (the unseen-voice
# lines are indented under part 5's heading, the rest are unique sentences).
PATTERNS = {
    "mnist_m_q": r"^trained maxout m=([0-9]+) q=([0-9]+) on ([0-9]+) images",
    "mnist": r"^test error on the ([0-9]+) MNIST test images: " + NUM + r"% \(paper, Table 1: " + NUM + r"%\)",
    "fsdd_offline": r"^offline: ([0-9]+) FSDD test recordings \(takes 0-4 of 6 speakers\), accuracy " + NUM + "%",
    "fsdd_nats": r"^([0-9]+) FSDD test recordings streamed through NATS in [0-9.]+s: ([0-9]+) recognised exactly \("
    + NUM + r"%\), ([0-9]+) stream errors",
    "tags": r"^tagged ([0-9]+) images in [0-9.]+s \([0-9]+ images/s\), ([0-9]+) errors; top-1 accuracy " + NUM + "%",
    "words_pipeline": r"^pipeline: [0-9]+ messages, ([0-9]+) error results, ([0-9]+) lost$",
    "connected": r"^([0-9]+) connected-digit strings \(2-7 digits, test speakers\) streamed through NATS in [0-9.]+s: WER "
    + NUM + r"%, ([0-9]+) of ([0-9]+) strings exactly right, ([0-9]+) stream errors",
    "connected_pipeline": r"^pipeline: [0-9]+ messages, [0-9]+ utterance segments scored, ([0-9]+) error results, ([0-9]+) lost$",
    "voice_model": r"^model: FSDD without (\S+) \(([0-9]+) recordings\) \+ ([0-9]+) synthetic voices.*; \S+'s ([0-9]+) recordings:",
    "voice_alone": r"^  one recording at a time: +" + NUM + "%",
    "voice_files": r"^  the same session on whole files: +" + NUM + "%",
    "voice_live": r"^  as one live session through NATS: +" + NUM + r"% of ([0-9]+) words",
    "voice_streams": r"^  each recording its own stream: +" + NUM + "%",
    "voice_named": r"^  each its own stream, naming the voice: +" + NUM + "%",
    "voice_adapt": r"^  adapting to all [0-9]+ first \(--adapt\): +" + NUM + "%",
    "finished": r"^demo finished in ([0-9]+)s$",
    # eval enroll's pooled line for the real voices: taught, scored alone,
    # then word model, connected alone and connected WER, before → after.
    # eval connected --engine-strings-sets: each synthesiser's whole strings,
    # said without pauses, through the shipped connected model.
    "fluent_espeak": r"^espeak-ng-fluent +([0-9]+) +([0-9]+) +" + NUM + " +" + NUM + r" +([0-9]+) +([0-9]+) +([0-9]+) ",
    "fluent_flite": r"^flite-fluent +([0-9]+) +([0-9]+) +" + NUM + " +" + NUM + r" +([0-9]+) +([0-9]+) +([0-9]+) ",
    "fluent_festival": r"^festival-fluent +([0-9]+) +([0-9]+) +" + NUM + " +" + NUM + r" +([0-9]+) +([0-9]+) +([0-9]+) ",
    "enrol": r"^eval enroll, set real \(connected pull [0-9.]+, word pull [0-9.]+[^)]*\):.*\n(?:.*\n)*?all +[0-9]+ +([0-9]+) +"
    + NUM + " → +" + NUM + " +" + NUM + " → +" + NUM + " +" + NUM + " → +" + NUM + "$",
}


def parse(text):
    found, missing = {}, []
    for name, pat in PATTERNS.items():
        hits = re.findall(pat, text, re.M)
        if len(hits) != 1:
            missing.append(f"{name} ({len(hits)} matches of /{pat}/)")
            continue
        found[name] = hits[0] if isinstance(hits[0], tuple) else (hits[0],)
    return found, missing


def table(f):
    m, q, n_train = f["mnist_m_q"]
    n_test, err, paper = f["mnist"]
    n_off, acc_off = f["fsdd_offline"]
    n_nats, ok_nats, acc_nats, serr_nats = f["fsdd_nats"]
    n_img, img_err, top1 = f["tags"]
    w_errs, w_lost = f["words_pipeline"]
    n_str, wer, exact, n_str2, serr_conn = f["connected"]
    c_errs, c_lost = f["connected_pipeline"]
    who, n_without, n_synth, n_voice = f["voice_model"]
    voice = f"a voice never trained on ({who}'s {n_voice} recordings; model: FSDD's other {n_without} + {n_synth} synthetic voices)"
    rows = [
        (f"MNIST test error, maxout m={m} q={q} + RLS, {n_train} training images ({n_test} test; paper {paper} %)",
         f"{err} %", "1"),
        (f"FSDD official split, {n_off} test recordings, offline (each file one word)", f"{acc_off} %", "2"),
        (f"the same {n_nats} recordings streamed through the embedded NATS pipeline (the live segmenter finds each word)",
         f"{acc_nats} % ({ok_nats}/{n_nats}; {serr_nats} stream errors, {w_lost} lost)", "3"),
        (f"MNIST test images tagged through NATS, top-1 ({n_img} images)", f"{top1} % ({img_err} errors)", "3"),
        (f"connected digit strings streamed through NATS ({n_str}, 2–7 digits, test speakers), WER",
         f"{wer} % ({exact}/{n_str2} strings exact; {serr_conn} stream errors, {c_lost} lost)", "4"),
        (f"{voice}: one recording at a time", f"{f['voice_alone'][0]} %", "5"),
        (f"{who}: as one live session through NATS ({f['voice_live'][1]} words)", f"{f['voice_live'][0]} %", "5"),
        (f"{who}: the same session on whole files", f"{f['voice_files'][0]} %", "5"),
        (f"{who}: each recording its own stream", f"{f['voice_streams'][0]} %", "5"),
        (f"{who}: each its own stream, naming the voice", f"{f['voice_named'][0]} %", "5"),
        (f"{who}: adapting to all {n_voice} first (`recognize --adapt`)", f"{f['voice_adapt'][0]} %", "5"),
    ]
    n_alone, wb, wa, cb, ca, werb, wera = f["enrol"]
    rows.append((f"five real voices taught their ten digits (`rfstream enroll`), then pitch/tempo-shifted copies of them heard "
                 f"alone ({n_alone} recordings): digit model (never trained on them); connected model (the shipped "
                 f"recipe trained without them)",
                 f"{wb} → {wa} %; {cb} → {ca} %", "eval enroll --sets real"))
    rows.append(("the same voices, 20 strings each joined from those copies, WER (optimistic: copies of the taught recordings)",
                 f"{werb} → {wera} %", "eval enroll --sets real"))
    fluent = [f[k] for k in ("fluent_espeak", "fluent_flite", "fluent_festival")]
    n_fl, words_fl = fluent[0][0], sum(int(x[1]) for x in fluent)
    del_fl, err_fl = sum(int(x[6]) for x in fluent), sum(int(x[4]) + int(x[5]) + int(x[6]) for x in fluent)
    rows.append((f"synthesised voices saying digit strings without pauses (espeak-ng / flite / festival, {n_fl} strings each "
                 "by 12 voices; the default model never trained on flite or festival, on espeak-ng only in its filler, other draws), WER",
                 f"{fluent[0][2]} / {fluent[1][2]} / {fluent[2][2]} % ({del_fl} of the {err_fl} errors in {words_fl} words "
                 "are deletions)", "eval connected --sets '' --engine-strings-sets espeak-ng,flite,festival"))
    out = ["| measured by `make results` | result | reproduce alone |", "|---|---|---|"]
    for what, result, part in rows:
        command = part if part.startswith("eval") else f"demo --parts {part}"
        out.append(f"| {what} | {result} | `bin/rfstream {command}` |")
    return "\n".join(out)


def phones_row(text):
    """The phone model's row from eval phones --real --json's output."""
    import json

    lines = [l for l in text.splitlines() if l.startswith("{")]
    if not lines:
        return None, "no JSON report line"
    rep = json.loads(lines[-1])
    real = rep.get("real") or []
    if not real:
        return None, "no real-speaker scores (was --real given?)"
    r, m = real[0], rep["models"][0]
    per = r["per_speaker_per"]
    test = ", ".join(f"{k} {100 * per[k]:.1f} %" for k in r["test_speakers"])
    dev = " and ".join(r["dev_speakers"])
    what = (f"phones of real speakers never trained on ({r['test']['phones']} phones: {test}), PER; "
            f"`train phones`' model (phones journal, rounds 5–6)")
    result = (f"{100 * r['test']['per']:.2f} % ({dev}: {100 * r['dev']['per']:.2f} %; "
              f"the synthesisers' test voices {100 * m['per']:.2f} %; words found: {100 * r['test_wer']:.1f} % WER)")
    return (what, result, "`make results-phones`"), None


REAL_VOICES = 11
REFRESH_REAL_VOICES = "`make results-real-voices` (11 trainings, over an hour)"


def real_voices_row(text, recipe):
    """The real-voices row from saved eval real-voices JSON lines: the newest
    of the current default recipe (fingerprint recipe), heard live, with the
    plain decoder, over all 11 voices; else a row saying it is stale."""
    import json

    what = (f"{REAL_VOICES} real voices (FSDD's six men; three women, two men of ../shared/voices) held out one at a time, "
            "default recipe, as `recognize` hears them: digits alone; strings of their digits, WER")
    for line in reversed([l for l in text.splitlines() if l.startswith("{")]):
        rep = json.loads(line)
        if (rep.get("recipe") != recipe or not rep.get("live") or rep.get("warps")
                or len(rep.get("per_voice", {})) != REAL_VOICES):
            continue
        result = (f"{100 * rep['isolated_accuracy']:.1f} % (lowest voice {100 * rep['min_voice_accuracy']:.0f} %; "
                  f"women {100 * rep['female_accuracy']:.1f} %, men {100 * rep['male_accuracy']:.1f} %); "
                  f"{100 * rep['connected_wer']:.1f} % (fluent {100 * rep['fluent_wer']:.1f} %)")
        return what, result, "`make results-real-voices`"
    return what, f"stale: no saved run of the current recipe ({recipe}); refresh with {REFRESH_REAL_VOICES}", \
        "`make results-real-voices`"


def option(args, name):
    """Removes --name VALUE from args and returns VALUE (None if absent)."""
    if name not in args:
        return None
    i = args.index(name)
    if i + 1 >= len(args):
        sys.exit(f"usage: results.py [DEMO_LOG] [--phones PHONES_LOG] [--real-voices RUNS --real-voices-recipe FP]  ({name} needs a value)")
    value = args[i + 1]
    del args[i:i + 2]
    return value


def main():
    args = sys.argv[1:]
    phones = option(args, "--phones")
    real_runs, real_recipe = option(args, "--real-voices"), option(args, "--real-voices-recipe")
    if (real_runs is None) != (real_recipe is None):
        sys.exit("results.py: --real-voices and --real-voices-recipe go together")
    if len(args) > 1:
        sys.exit("usage: results.py [DEMO_LOG] [--phones PHONES_LOG] [--real-voices RUNS --real-voices-recipe FP]  (default: stdin)")
    text = open(args[0], encoding="utf-8").read() if args else sys.stdin.read()
    found, missing = parse(text)
    rows = []
    if phones is not None:
        row, why = phones_row(open(phones, encoding="utf-8").read())
        if row is None:
            missing.append(f"the phone model's row ({phones}: {why})")
        rows.append(row)
    if real_runs is not None:
        try:
            saved = open(real_runs, encoding="utf-8").read()
        except FileNotFoundError:
            saved = ""
        rows.append(real_voices_row(saved, real_recipe))
    if missing:
        print("results.py: the demo log lacks:", file=sys.stderr)
        for m in missing:
            print("  " + m, file=sys.stderr)
        sys.exit(1)
    out = table(found)
    for row in rows:
        out += f"\n| {row[0]} | {row[1]} | {row[2]} |"
    print(out)


if __name__ == "__main__":
    main()
