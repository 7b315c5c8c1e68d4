#!/bin/bash
# run.sh NAME HELDOUT(flite|festival|espeak-ng|none) ALL(true|false) FIRSTLABELS [extra flags]
name=$1; held=$2; all=$3; first=$4; shift 4
export RFSTREAM_DATA=/work/wt-phones3-data RFSTREAM_FSDD=/work/shared/fsdd/recordings
cd /work/wt-phones3
echo "start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" > runs3/$name.time
nice -n 10 bin/rfstream-lab eval phones --loso espeak-ng,flite,festival --engines espeak-ng,flite,festival \
  --espeak-per-voice 0 --engine-sentences 40 --fsdd-per-digit 1 --augment 0.25 --m 2000 --json \
  --loso-baseline=false --loso-held-out $held --loso-all=$all --first-labels $first "$@" > runs3/$name.out 2> runs3/$name.log
echo "rc=$? end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" >> runs3/$name.time
