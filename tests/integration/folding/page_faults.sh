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
# 1200 instances (about 1000 samples): with 300, run-to-run noise alone
# spread fold's switch over 0.9-3.2% of the instance around its ~1.7% early
# bias (the faulting phase is not steady), so the 3% bound judged luck; with
# 600, the samples in the instance's first 3.5% ranged 7-29 for 12-18 due
# (the 1 ms period beats with the ~1 ms instance), one run in 25 fell under
# the third of them the check asks, beside a CPU stressor, and one switch
# in about 30 runs fell at 0.41-0.46. With 1200: 22-41 for 35 due.
python3 "$here/../../tools/cpu_share.py" --judge "phase fidelity" --max-stalls 1.5 -- \
  FOLD_QUIET=1 FOLD_OUTPUT=run.trace FOLD_SAMPLE=time@1ms FOLD_COUNTERS=perf::PAGE-FAULTS LD_PRELOAD="$libfold" \
  "$prog" 1200 >truth.txt
if grep -q '^0 counter_missing name="perf::PAGE-FAULTS"' <<<"$("$fold" dump run.trace)"; then
  echo "SKIP: this machine cannot count perf::PAGE-FAULTS"
  exit 77
fi
"$fold" run.trace -q --fit pwlr --region step --json out.json
python3 "$here/check_page_faults.py" out.json "$(cat truth.txt)"
