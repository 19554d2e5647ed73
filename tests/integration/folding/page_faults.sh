#!/usr/bin/env bash
# page_faults.sh FOLD LIBFOLD PROG: phases that differ in a real kernel
# counter (page faults): fold must find the switch and the fault rate.
set -euo pipefail
fold=$1 libfold=$2 prog=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# The truth is timed in wall time: a program that did not get its CPU has
# instances the scheduler cut in pieces, and the verdict means nothing.
# 600 instances (about 550 samples): with 300, run-to-run noise alone spread
# fold's switch over 0.9-3.2% of the instance around its ~1.7% early bias
# (the faulting phase is not steady), so the 3% bound judged luck.
python3 "$here/../../tools/cpu_share.py" --judge "phase fidelity" -- \
  FOLD_QUIET=1 FOLD_OUTPUT=run.trace FOLD_SAMPLE=time@1ms FOLD_COUNTERS=perf::PAGE-FAULTS LD_PRELOAD="$libfold" \
  "$prog" 600 >truth.txt
if "$fold" dump run.trace | grep -q '^0 counter_missing name="perf::PAGE-FAULTS"'; then
  echo "SKIP: this machine cannot count perf::PAGE-FAULTS"
  exit 77
fi
"$fold" run.trace -q --fit pwlr --region step --json out.json
python3 "$here/check_page_faults.py" out.json "$(cat truth.txt)"
