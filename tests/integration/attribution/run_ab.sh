#!/usr/bin/env bash
# run_ab.sh FOLD LIBFOLD PROG MODE: run prog_ab under libfold, fold it, check.
set -euo pipefail
fold=$1 libfold=$2 prog=$3 mode=$4
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# A program that did not get its CPU has instances the scheduler cut in
# pieces: the timeline and the sampled shares then judge the machine.
python3 "$here/../../tools/cpu_share.py" --judge "attribution along the instance" -- \
  FOLD_QUIET=1 FOLD_OUTPUT=run.trace FOLD_SAMPLE=time@1ms LD_PRELOAD="$libfold" "$prog" 400 >truth.txt
"$fold" run.trace -q --fit pwlr --json out.json
python3 "$here/check_ab.py" out.json "$mode" "$(cat truth.txt)"
