"""Rules for choosing λ, scored from the λ paths of eval mnist-sizes --lambda-path (experiments/journal/invariant.md, round 9).

Reads the journal (OUT.rows.jsonl) or the --json output of one run. For every draw it knows the accuracy of the
model the fit chose (rule R0: 10 % of the training rows held out, ties to the larger λ) and the accuracy at
every λ of the path. It prints:
- the mean accuracy of every fixed λ of the path over all draws (each column of the path);
- R1, a fixed λ chosen on other draws: for draw d, the path value with the best mean over every draw but d
  (ties to the larger λ), scored on d, so no draw chooses its own λ;
- R2, R0's held-out trials with ties going to the smaller λ instead of the larger (scored from the path);
- the per-draw best of the path, an upper bound no rule can beat (it reads each draw's test rows);
- R1 - R0 and R2 - R0 paired over the draws: mean, standard deviation, standard error, draws ahead and behind.

usage: /usr/bin/python3 experiments/probes/lambda_rules.py OUT.rows.jsonl|OUT.json [--reference OTHER.rows.jsonl]

With --reference (another run over the same draws, e.g. round 11's map against round 9's), also prints this
run's R0 and R1 paired with the other run's R0 and R1 by subset seed.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paired_draws import paired  # noqa: E402


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            obj = json.loads(line)
            if "rows" in obj:
                rows.extend(obj["rows"])
            elif "subset_seed" in obj:
                rows.append(obj)
    return [r for r in rows if r.get("lambda_path")]


def rules(rows):
    """The accuracy (%) of every draw under R0, R1, R2 (None where R0's smaller tie is not on the path) and the
    path's best, with the path values, their means and R1's choice per draw."""
    rels = [p["relative"] for p in rows[0]["lambda_path"]]
    acc = []  # acc[d][j]: draw d's accuracy (%) at path value j
    for r in rows:
        got = [p["relative"] for p in r["lambda_path"]]
        if got != rels:
            sys.exit(f"subset seed {r['subset_seed']}: path {got}, others {rels}")
        acc.append([100 * p["accuracy"] for p in r["lambda_path"]])
    n = len(rows)

    def best_fixed(skip):
        means = [sum(acc[d][j] for d in range(n) if d != skip) for j in range(len(rels))]
        top = max(means)
        return max(j for j in range(len(rels)) if means[j] == top)  # ties to the larger λ (the grid ascends)

    r2 = []
    for d, r in enumerate(rows):
        trials = r["lambda_trials"]
        low = min(t["HeldOutError"] for t in trials)
        rel = min(t["Relative"] for t in trials if t["HeldOutError"] == low)
        if rel not in rels:
            r2 = None  # a shorter path than the search grid: R2 cannot be scored
            break
        r2.append(acc[d][rels.index(rel)])
    return {
        "rels": rels,
        "mean_at": [sum(a[j] for a in acc) / n for j in range(len(rels))],
        "r0": [100 * r["accuracy"] for r in rows],
        "r1": [acc[d][best_fixed(d)] for d in range(n)],
        "r1_values": sorted(set(rels[best_fixed(d)] for d in range(n))),
        "r1_all": rels[best_fixed(-1)],
        "r2": r2,
        "oracle": [max(a) for a in acc],
    }


def sorted_rows(path):
    rows = sorted(load(path), key=lambda r: (r["map"], r["per_class"], r["subset_seed"]))
    if len(rows) < 2:
        sys.exit(f"{path}: {len(rows)} rows with a λ path: need at least 2")
    return rows


def main():
    args = sys.argv[1:]
    reference = None
    if len(args) == 3 and args[1] == "--reference":
        reference = args[2]
    elif len(args) != 1:
        sys.exit("usage: lambda_rules.py OUT.rows.jsonl|OUT.json [--reference OTHER.rows.jsonl]")
    rows = sorted_rows(args[0])
    k = rules(rows)
    n = len(rows)
    seeds = [r["subset_seed"] for r in rows]
    print(f"draws {n} (subset seeds {min(seeds)}..{max(seeds)}), {rows[0]['map']}, {rows[0]['per_class']} per class")
    print("fixed λ (relative to the mean diagonal): mean accuracy over the draws")
    for j, rel in enumerate(k["rels"]):
        print(f"  {rel:8.0e}  {k['mean_at'][j]:.4f} %")
    print(f"R0 (chosen on 10 % held out, ties to the larger): {sum(k['r0']) / n:.4f} %")
    print(f"R1 (fixed λ chosen on the other draws): {sum(k['r1']) / n:.4f} %; values chosen: "
          f"{k['r1_values']}; on all draws: {k['r1_all']:g}")
    if k["r2"] is None:
        print("R2 (held out, ties to the smaller): not scored, a smaller tie lies off the path")
    else:
        print(f"R2 (held out, ties to the smaller): {sum(k['r2']) / n:.4f} %")
    print(f"per-draw best of the path (an upper bound, reads the test rows): {sum(k['oracle']) / n:.4f} %")
    paired("R1 - R0", k["r1"], k["r0"])
    if k["r2"] is not None:
        paired("R2 - R0", k["r2"], k["r0"])
    if reference:
        # Another run over the same draws (e.g. another map): its rules, paired by subset seed.
        ref_rows = sorted_rows(reference)
        ref = rules(ref_rows)
        ref_seeds = [r["subset_seed"] for r in ref_rows]
        if ref_seeds != seeds:
            sys.exit(f"{reference}: subset seeds {ref_seeds}, this run's {seeds}")
        print(f"reference {reference}: R0 {sum(ref['r0']) / n:.4f} %, R1 {sum(ref['r1']) / n:.4f} %")
        paired("R0 - reference R0", k["r0"], ref["r0"])
        paired("R1 - reference R0", k["r1"], ref["r0"])
        paired("R1 - reference R1", k["r1"], ref["r1"])


main()
