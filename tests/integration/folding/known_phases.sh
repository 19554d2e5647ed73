#!/usr/bin/env bash
# known_phases.sh FOLD LIBFOLD PROG FIT: run the program under libfold, fold
# it with FIT and check the phases and rates against the known truth.
set -euo pipefail
fold=$1 libfold=$2 prog=$3 fit=$4
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# The phases are defined by wall time: a program that did not get its CPU
# has instances the scheduler cut in pieces, and the verdict means nothing.
python3 "$here/../../tools/cpu_share.py" --judge "phase fidelity" --max-stalls 1.5 -- \
  FOLD_QUIET=1 FOLD_OUTPUT=run.trace FOLD_SAMPLE=time@1ms LD_PRELOAD="$libfold" "$prog" 400 >truth.txt
"$fold" run.trace -q --fit "$fit" --region step --json out.json
python3 "$here/check_known_phases.py" out.json "$fit" "$(cat truth.txt)"
