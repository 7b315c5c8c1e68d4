"""rfstream beside pocketsphinx on the same spoken-digit recordings.

Usage: speech.py RFSTREAM_BINARY FSDD_RECORDINGS_DIR [POCKETSPHINX_MODEL_DIR]

Builds recordings from FSDD's held-out takes (0-4 of every speaker, the
official test split): one isolated word, strings with 0.3 s pauses of digital
silence between the digits, and fluent strings (the recordings joined with
nothing between them), from 1 s to 5 min. Each tool hears each recording in a
process of its own, one at a time: `rfstream recognize FILE` with its default
model, and pocketsphinx_continuous (Debian's en-us acoustic model, a digit
JSGF grammar, the recording resampled to the 16 kHz raw PCM it takes). sox
runs without dither (-D), so the pauses are true digital silence and every
run hears the same samples: with sox's default random dither the pauses
carried ±1 LSB of noise that changed from run to run, and both tools' WER
with it. The table gives each process's CPU time (user + system, from the
kernel's accounting of the child, so other jobs on the machine barely change
it), the real-time factor (CPU seconds per second of audio) and the word
error rate against the digits joined. A process's CPU time includes loading its model:
the short recordings mostly measure that.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

SPEAKERS = ["george", "jackson", "lucas", "nicolas", "theo", "yweweler"]
TAKES = range(5)  # the official split's test takes
DIGIT = {"zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4",
         "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9"}
GRAMMAR = ("#JSGF V1.0;\ngrammar d;\npublic <d> = (zero | oh | one | two | three | four | "
           "five | six | seven | eight | nine)+ ;\n")
# (name, digits, pause seconds): the recordings of the table.
SETS = [("isolated word", 1, None), ("paused, 5 s", 8, 0.3), ("fluent, 5 s", 11, 0.0),
        ("paused, 15 s", 20, 0.3), ("fluent, 15 s", 32, 0.0), ("paused, 60 s", 80, 0.3),
        ("fluent, 60 s", 128, 0.0), ("paused, 5 min", 400, 0.3)]


def recordings(fsdd):
    """Every held-out recording, in a fixed order that cycles speakers and digits."""
    out = []
    for take in TAKES:
        for k in range(10):
            for s, spk in enumerate(SPEAKERS):
                d = (k + s) % 10
                out.append((str(d), os.path.join(fsdd, f"{d}_{spk}_{take}.wav")))
    return out


def build(tmp, name, n, pause, pool, start):
    """Joins n recordings from pool (from index start) into tmp; returns (wav, raw, digits, seconds)."""
    picks = [pool[(start + i) % len(pool)] for i in range(n)]
    parts = []
    sil = os.path.join(tmp, "pause.wav")
    if pause:
        subprocess.run(["sox", "-D", "-n", "-r", "8000", "-c", "1", "-b", "16", sil, "trim", "0", str(pause)], check=True)
    for i, (_, path) in enumerate(picks):
        parts.append(path)
        if pause and i < n - 1:
            parts.append(sil)
    base = os.path.join(tmp, name.replace(",", "").replace(" ", "-"))
    wav, raw = base + ".wav", base + ".raw"
    if len(parts) == 1:
        subprocess.run(["sox", "-D", parts[0], wav], check=True)
    else:
        subprocess.run(["sox", "-D"] + parts + [wav], check=True)
    subprocess.run(["sox", "-D", wav, "-r", "16000", "-t", "raw", "-e", "signed", "-b", "16", raw], check=True)
    secs = float(subprocess.run(["soxi", "-D", wav], check=True, capture_output=True, text=True).stdout)
    return wav, raw, [d for d, _ in picks], secs


def cpu_run(cmd):
    """Runs cmd; returns (stdout, CPU seconds of the child, wall seconds)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({p.returncode})")
    return out, ru.ru_utime + ru.ru_stime, wall


def edits(ref, hyp):
    """Word-level Levenshtein distance."""
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i]
        for j, h in enumerate(hyp, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h)))
        prev = cur
    return prev[-1]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rf, fsdd = sys.argv[1], sys.argv[2]
    model = sys.argv[3] if len(sys.argv) > 3 else "/usr/share/pocketsphinx/model/en-us"
    pool = recordings(fsdd)
    with tempfile.TemporaryDirectory() as tmp:
        gram = os.path.join(tmp, "digits.gram")
        with open(gram, "w") as f:
            f.write(GRAMMAR)
        ps = ["pocketsphinx_continuous", "-hmm", os.path.join(model, "en-us"),
              "-dict", os.path.join(model, "cmudict-en-us.dict"), "-jsgf", gram, "-logfn", "/dev/null"]
        print(f"load average before: {' '.join('%.2f' % v for v in os.getloadavg())} ({os.cpu_count()} cores)")
        print(f"{'recording':<15} {'audio s':>8} | {'rfstream CPU-s':>14} {'RTF':>7} {'WER':>7} | "
              f"{'pocketsphinx CPU-s':>18} {'RTF':>7} {'WER':>7} | {'CPU ratio':>9}")
        totals = {"rf": [0, 0], "ps": [0, 0]}
        start = 0
        for name, n, pause in SETS:
            wav, raw, ref, secs = build(tmp, name, n, pause, pool, start)
            start += n
            out, rf_cpu, _ = cpu_run([rf, "recognize", "--json", wav])
            rf_hyp = json.loads(out.strip().splitlines()[-1]).get("text", "").split()
            out, ps_cpu, _ = cpu_run(ps + ["-infile", raw])
            ps_hyp = [DIGIT[w] for w in out.split() if w in DIGIT]
            rf_e, ps_e = edits(ref, rf_hyp), edits(ref, ps_hyp)
            for k, e in (("rf", rf_e), ("ps", ps_e)):
                totals[k][0] += e
                totals[k][1] += len(ref)
            print(f"{name:<15} {secs:8.1f} | {rf_cpu:14.2f} {rf_cpu / secs:7.4f} {100 * rf_e / len(ref):6.2f}% | "
                  f"{ps_cpu:18.2f} {ps_cpu / secs:7.4f} {100 * ps_e / len(ref):6.2f}% | {rf_cpu / ps_cpu:9.2f}")
            os.remove(raw)
        for k, label in (("rf", "rfstream"), ("ps", "pocketsphinx")):
            e, w = totals[k]
            print(f"{label}: WER over all {w} digits {100 * e / w:.2f}% ({e} errors)")
        print(f"load average after: {' '.join('%.2f' % v for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
