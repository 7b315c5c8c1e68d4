#!/usr/bin/env bash
# Leave-one-speaker-out through the product path. For every FSDD speaker:
# `rfstream train digits` on the other five (plus 50 synthetic voices) with
# the adaptable digit model's settings, then `rfstream recognize --adapt`
# over the speaker's 500 recordings, and plain `rfstream recognize` (each
# recording normalised alone, no self-training) for comparison. The table
# sets both beside `eval digits --split speaker` with the same settings and
# counts the recordings on which recognize --adapt and the evaluation's
# fold decide alike (all of them, if the product is the evaluated path).
#
# A second table asks how many recordings of a voice adaptation needs:
# recognize --adapt over takes 0 … k−1 of every digit of the held-out voice
# (10·k recordings) for each k in TAKES, with the same fold models.
#
# A third table (SESSION=0 skips it) follows each voice as a live session:
# recognize --session over its 500 recordings in one seeded shuffled order,
# each normalised with the running estimate of the voice, the session
# self-training at its checkpoints (SESSION_FLAGS=--session-self-train=false
# gives the session without it).
#
# usage: experiments/probes/digits_adapt_loso.sh [OUT_DIR]   (BIN, FSDD, TAKES, SESSION, SESSION_FLAGS, EXTRA, EVAL override)
set -euo pipefail
BIN=${BIN:-bin/rfstream}
FSDD=${FSDD:-${RFSTREAM_FSDD:-../shared/fsdd/recordings}}
OUT=${1:-out/digits-adapt}
SETTINGS=(--speaker-norm mean --synth-voices 50 --self-train 0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1
	--floor-share -1 --max-gap-ms 100 --m 3000 --engine-voices '')
# EXTRA adds flags to every training run's settings (a probe's variant).
read -r -a extra <<<"${EXTRA:-}"
SETTINGS+=("${extra[@]}")
SPEAKERS=(george jackson lucas nicolas theo yweweler)
read -r -a TAKES <<<"${TAKES:-1 2 5 10 25}"
mkdir -p "$OUT"
# EVAL=0 skips the evaluation (for training flags eval digits does not
# have); its columns are then "-".
if [ "${EVAL:-1}" = 0 ]; then
	printf 'file\tspeaker\tlabel\tpredicted\n' >"$OUT/eval.tsv"
else
	"$BIN" eval digits --fsdd "$FSDD" --split speaker "${SETTINGS[@]}" --predictions "$OUT/eval.tsv" >"$OUT/eval.txt" 2>"$OUT/eval.log"
fi
for s in "${SPEAKERS[@]}"; do
	"$BIN" train digits --fsdd "$FSDD" --split all --exclude-speakers "$s" "${SETTINGS[@]}" --out "$OUT/$s.rfm" >/dev/null 2>"$OUT/$s.train.log"
	files=("$FSDD"/*_"$s"_*.wav)
	"$BIN" recognize --adapt --model "$OUT/$s.rfm" "${files[@]}" >"$OUT/$s.adapt.tsv" 2>"$OUT/$s.adapt.log"
	"$BIN" recognize --model "$OUT/$s.rfm" "${files[@]}" >"$OUT/$s.plain.tsv" 2>"$OUT/$s.plain.log"
done
# FSDD names recordings DIGIT_SPEAKER_TAKE.wav.
awk -F'\t' '
	function label(p,   n, a) { n = split(p, a, "/"); split(a[n], a, "_"); return a[1] }
	FILENAME ~ /eval\.tsv$/ { if (FNR > 1) { ev[$2] = $5; evok[$3] += ($4 == $5); evn[$3]++ }; next }
	{ split(FILENAME, f, "/"); split(f[length(f)], g, "."); spk = g[1]; kind = g[2]
	  ok[spk, kind] += ($2 == label($1)); n[spk, kind]++
	  if (kind == "adapt") same[spk] += ($2 == ev[$1]) }
	END {
		printf "%-9s %10s %18s %14s %22s\n", "held-out", "eval fold", "recognize --adapt", "same decision", "recognize (one at a time)"
		split("george jackson lucas nicolas theo yweweler", sp, " ")
		for (i = 1; i <= 6; i++) { s = sp[i]
			printf "%-9s %10s %17.2f%% %14s %21.2f%%\n", s, evn[s] ? sprintf("%.2f%%", 100*evok[s]/evn[s]) : "-", 100*ok[s,"adapt"]/n[s,"adapt"], evn[s] ? sprintf("%d/%d", same[s], n[s,"adapt"]) : "-", 100*ok[s,"plain"]/n[s,"plain"]
			E += evn[s] ? evok[s]/evn[s] : 0; A += ok[s,"adapt"]/n[s,"adapt"]; P += ok[s,"plain"]/n[s,"plain"] }
		printf "%-9s %10s %17.2f%% %14s %21.2f%%\n", "mean", E ? sprintf("%.2f%%", 100*E/6) : "-", 100*A/6, "", 100*P/6
	}' "$OUT/eval.tsv" $(for s in "${SPEAKERS[@]}"; do echo "$OUT/$s.adapt.tsv" "$OUT/$s.plain.tsv"; done)

# How many recordings: takes 0 … k−1 of each digit, adapted to on their
# own; beside them the same recordings' decisions when the model adapted to
# all 500, and one at a time.
for s in "${SPEAKERS[@]}"; do
	for k in "${TAKES[@]}"; do
		files=()
		for d in 0 1 2 3 4 5 6 7 8 9; do
			for ((t = 0; t < k; t++)); do files+=("$FSDD/${d}_${s}_${t}.wav"); done
		done
		"$BIN" recognize --adapt --model "$OUT/$s.rfm" "${files[@]}" >"$OUT/$s.adapt$k.tsv" 2>/dev/null
	done
done
printf '\nrecognize --adapt over takes 0 … k−1 of every digit (10·k recordings): accuracy on those recordings when\n'
printf 'adapting to them alone / to all 500 of the voice / one at a time, mean over the 6 held-out voices\n'
for k in "${TAKES[@]}"; do
	awk -F'\t' -v k="$k" '
		function take(p,   n, a, b) { n = split(p, a, "/"); split(a[n], b, "_"); sub(/\.wav$/, "", b[3]); return b[3] + 0 }
		function label(p,   n, a, b) { n = split(p, a, "/"); split(a[n], b, "_"); return b[1] }
		{ split(FILENAME, f, "/"); split(f[length(f)], g, "."); spk = g[1]; kind = g[2]
		  if (take($1) >= k) next
		  ok[spk, kind] += ($2 == label($1)); n[spk, kind]++; spks[spk] = 1 }
		END {
			for (s in spks) { A += ok[s, "adapt" k] / n[s, "adapt" k]; W += ok[s, "adapt"] / n[s, "adapt"]; P += ok[s, "plain"] / n[s, "plain"]; c++ }
			printf "%4d recordings  %6.2f%% / %6.2f%% / %6.2f%%\n", 10 * k, 100 * A / c, 100 * W / c, 100 * P / c
		}' $(for s in "${SPEAKERS[@]}"; do echo "$OUT/$s.adapt$k.tsv" "$OUT/$s.adapt.tsv" "$OUT/$s.plain.tsv"; done)
done

[ "${SESSION:-1}" = 0 ] && exit 0
# A live session: each voice's recordings in one shuffled order (awk's
# generator seeded with 1), decided one after another.
printf '\nrecognize --session %s(prior of 10 recordings), each voice'"'"'s 500 recordings in a seeded shuffled order:\n' "${SESSION_FLAGS:+$SESSION_FLAGS }"
printf '%-9s %14s %14s %14s %14s\n' "held-out" "first 10" "first 50" "all 500" "one at a time"
for s in "${SPEAKERS[@]}"; do
	mapfile -t files < <(printf '%s\n' "$FSDD"/*_"$s"_*.wav | awk 'BEGIN { srand(1) } { print rand() "\t" $0 }' | sort -k1,1g | cut -f2)
	"$BIN" recognize --session ${SESSION_FLAGS:-} --model "$OUT/$s.rfm" "${files[@]}" >"$OUT/$s.session.tsv" 2>/dev/null
done
awk -F'\t' '
	function label(p,   n, a, b) { n = split(p, a, "/"); split(a[n], b, "_"); return b[1] }
	FILENAME ~ /plain\.tsv$/ { plain[$1] = ($2 == label($1)); next }
	{ split(FILENAME, f, "/"); split(f[length(f)], g, "."); s = g[1]; i = ++n[s]; ok = ($2 == label($1))
	  all[s] += ok; one[s] += plain[$1]; if (i <= 10) ten[s] += ok; if (i <= 50) fifty[s] += ok }
	END {
		split("george jackson lucas nicolas theo yweweler", sp, " ")
		for (j = 1; j <= 6; j++) { s = sp[j]
			printf "%-9s %13.2f%% %13.2f%% %13.2f%% %13.2f%%\n", s, 10 * ten[s], 2 * fifty[s], 100 * all[s] / n[s], 100 * one[s] / n[s]
			T += 10 * ten[s]; F += 2 * fifty[s]; A += 100 * all[s] / n[s]; O += 100 * one[s] / n[s] }
		printf "%-9s %13.2f%% %13.2f%% %13.2f%% %13.2f%%\n", "mean", T / 6, F / 6, A / 6, O / 6
	}' $(for s in "${SPEAKERS[@]}"; do echo "$OUT/$s.plain.tsv"; done) $(for s in "${SPEAKERS[@]}"; do echo "$OUT/$s.session.tsv"; done)
