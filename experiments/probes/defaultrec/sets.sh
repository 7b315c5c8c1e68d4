#!/usr/bin/env bash
# Builds the sets experiments/probes/defaultrec measures the candidate default speech recognisers on, from
# FSDD's official test takes (0-4) only: singles.tsv (the 300 recordings as they are), and N strings of 2-7
# digits joined with sox, once with 0.3 s of digital silence before, between and after the words (as
# ../shared/checks/10-strings does) in pause.tsv, once with the words run together (0.3 s only at the ends)
# in nopause.tsv; and nospeech.tsv (silence, one sample, noise). Each line: path<TAB>digits, space separated. The strings are drawn by a seeded generator.
# usage: experiments/probes/defaultrec/sets.sh OUTDIR [N=60] [FSDD=../shared/fsdd/recordings]
set -eu
out=$1; n=${2:-60}; fsdd=$(cd "${3:-../shared/fsdd/recordings}" && pwd)
mkdir -p "$out"
: >"$out/singles.tsv"
for f in "$fsdd"/*_[0-4].wav; do b=$(basename "$f"); echo -e "$f\t${b%%_*}" >>"$out/singles.tsv"; done
sox -n -r 8000 -c 1 -b 16 "$out/sil.wav" trim 0 0.3
: >"$out/pause.tsv"; : >"$out/nopause.tsv"
/usr/bin/python3 - "$n" <<'PY' | while IFS=$'\t' read -r name digits files; do
import random, sys
rng = random.Random(38)
speakers = ["george", "jackson", "lucas", "nicolas", "theo", "yweweler"]
for i in range(int(sys.argv[1])):
    k = rng.randint(2, 7)
    ds = [rng.randrange(10) for _ in range(k)]
    sp = rng.choice(speakers)  # one voice a string, as a person speaks one
    print(f"s{i:03d}\t{' '.join(map(str, ds))}\t{' '.join(f'{d}_{sp}_{rng.randrange(5)}.wav' for d in ds)}")
PY
  args=(); run=()
  for f in $files; do args+=("$fsdd/$f" "$out/sil.wav"); run+=("$fsdd/$f"); done
  sox "$out/sil.wav" "${args[@]}" "$out/$name-pause.wav"
  sox "$out/sil.wav" "${run[@]}" "$out/sil.wav" "$out/$name-nopause.wav"
  echo -e "$out/$name-pause.wav\t$digits" >>"$out/pause.tsv"
  echo -e "$out/$name-nopause.wav\t$digits" >>"$out/nopause.tsv"
done
# nospeech.tsv: what must give no words (the empty text): silence, one sample, white noise at three levels.
sox -n -r 8000 -c 1 -b 16 "$out/silence.wav" trim 0 1.5
for v in 0.005 0.05 0.3; do sox -R -n -r 8000 -c 1 -b 16 "$out/noise-$v.wav" synth 1.5 whitenoise vol $v; done
/usr/bin/python3 -c "import struct,sys; d=struct.pack('<h',1200); open(sys.argv[1],'wb').write(b'RIFF'+struct.pack('<I',36+2)+b'WAVEfmt '+struct.pack('<IHHIIHH',16,1,1,8000,16000,2,16)+b'data'+struct.pack('<I',2)+d)" "$out/one.wav"
for f in silence one noise-0.005 noise-0.05 noise-0.3; do echo -e "$out/$f.wav\t"; done >"$out/nospeech.tsv"
wc -l "$out"/*.tsv
