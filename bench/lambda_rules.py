"""Rules for choosing λ, scored from the λ paths of eval mnist-sizes --lambda-path (docs/invariant.md, round 9).

Reads the journal (OUT.rows.jsonl) or the --json output of one run. For every draw it knows the accuracy of the
model the fit chose (rule R0: 10 % of the training rows held out, ties to the larger λ) and the accuracy at
every λ of the path. It prints:
- the mean accuracy of every fixed λ of the path over all draws (each column of the path);
- R1, a fixed λ chosen on other draws: for draw d, the path value with the best mean over every draw but d
  (ties to the larger λ), scored on d, so no draw chooses its own λ;
- R2, R0's held-out trials with ties going to the smaller λ instead of the larger (scored from the path);
- the per-draw best of the path, an upper bound no rule can beat (it reads each draw's test rows);
- R1 - R0 and R2 - R0 paired over the draws: mean, standard deviation, standard error, draws ahead and behind.

usage: /usr/bin/python3 bench/lambda_rules.py OUT.rows.jsonl|OUT.json
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


def main():
    rows = sorted(load(sys.argv[1]), key=lambda r: (r["map"], r["per_class"], r["subset_seed"]))
    if len(rows) < 2:
        sys.exit(f"{len(rows)} rows with a λ path: need at least 2")
    rels = [p["relative"] for p in rows[0]["lambda_path"]]
    acc = []  # acc[d][j]: draw d's accuracy (%) at path value j
    for r in rows:
        got = [p["relative"] for p in r["lambda_path"]]
        if got != rels:
            sys.exit(f"subset seed {r['subset_seed']}: path {got}, others {rels}")
        acc.append([100 * p["accuracy"] for p in r["lambda_path"]])
    n = len(rows)
    r0 = [100 * r["accuracy"] for r in rows]
    mean_at = [sum(a[j] for a in acc) / n for j in range(len(rels))]

    def best_fixed(skip):
        means = [sum(acc[d][j] for d in range(n) if d != skip) for j in range(len(rels))]
        top = max(means)
        return max(j for j in range(len(rels)) if means[j] == top)  # ties to the larger λ (the grid ascends)

    r1 = [acc[d][best_fixed(d)] for d in range(n)]
    r2 = []
    for d, r in enumerate(rows):
        trials = r["lambda_trials"]
        low = min(t["HeldOutError"] for t in trials)
        rel = min(t["Relative"] for t in trials if t["HeldOutError"] == low)
        if rel not in rels:
            sys.exit(f"subset seed {r['subset_seed']}: the smaller tied λ ({rel}) is not on the path {rels}")
        r2.append(acc[d][rels.index(rel)])
    oracle = [max(a) for a in acc]

    seeds = [r["subset_seed"] for r in rows]
    print(f"draws {n} (subset seeds {min(seeds)}..{max(seeds)}), {rows[0]['map']}, {rows[0]['per_class']} per class")
    print("fixed λ (relative to the mean diagonal): mean accuracy over the draws")
    for j, rel in enumerate(rels):
        print(f"  {rel:8.0e}  {mean_at[j]:.4f} %")
    print(f"R0 (chosen on 10 % held out, ties to the larger): {sum(r0) / n:.4f} %")
    print(f"R1 (fixed λ chosen on the other draws): {sum(r1) / n:.4f} %; values chosen: "
          f"{sorted(set(rels[best_fixed(d)] for d in range(n)))}; on all draws: {rels[best_fixed(-1)]:g}")
    print(f"R2 (held out, ties to the smaller): {sum(r2) / n:.4f} %")
    print(f"per-draw best of the path (an upper bound, reads the test rows): {sum(oracle) / n:.4f} %")
    paired("R1 - R0", r1, r0)
    paired("R2 - R0", r2, r0)


main()
