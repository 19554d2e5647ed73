#!/usr/bin/env bash
# run_ab.sh FOLD LIBFOLD PROG MODE: run prog_ab under libfold, fold it, check.
set -euo pipefail
fold=$1 libfold=$2 prog=$3 mode=$4
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
FOLD_QUIET=1 FOLD_OUTPUT=run.trace FOLD_SAMPLE=time@1ms LD_PRELOAD="$libfold" "$prog" 400 >/dev/null
"$fold" run.trace -q --fit pwlr --json out.json
python3 "$here/check_ab.py" out.json "$mode"
