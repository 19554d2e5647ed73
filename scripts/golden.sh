#!/usr/bin/env bash
# The analysis' output on a fixed set of traces, to compare two builds while
# code moves (a refactor must change no byte it does not mean to change).
#
#   scripts/golden.sh record BUILD_DIR OUT_DIR [TRACE...]
#   scripts/golden.sh compare OUT_DIR_A OUT_DIR_B
#
# record: generates the traces (fold-synth scenarios drawn from fixed seeds,
# the seed corpus, the fuzz regressions, and any TRACE given, e.g. real runs
# kept from an earlier build), then writes, per trace, the JSON (--json), the
# terminal report and fold's stderr into OUT_DIR. compare: lists every file
# that differs and shows the first lines of each difference; exit 1 if any.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:?usage: golden.sh record BUILD OUT [TRACE...] | compare A B}
case $cmd in
record)
  build=$(cd "${2:?build dir}" && pwd)
  out=${3:?output dir}
  shift 3
  mkdir -p "$out/traces" "$out/out"
  out=$(cd "$out" && pwd)
  synth=$build/tests/tools/fold-synth
  fold=$build/src/cli/fold
  t=$out/traces
  # Scenarios: each one a property the pipeline handles differently.
  "$synth" -o "$t/s-basic.trace" --seed 1 >/dev/null
  "$synth" -o "$t/s-three-phases.trace" --seed 2 --breaks 0.2,0.6 --cpu 1,0.4,0.9 \
    --counter PAPI_TOT_INS=2e9,5e8,1.5e9 >/dev/null
  "$synth" -o "$t/s-groups.trace" --seed 3 --group 1000000:1 --group 3000000:1:3 --threads 2 >/dev/null
  "$synth" -o "$t/s-noisy.trace" --seed 4 --noise 0.3 --outliers 0.05 --preempt 0.1 \
    --counter PAPI_TOT_INS=1e9,2e9 >/dev/null
  "$synth" -o "$t/s-cputime.trace" --seed 5 --cputime-sampling --instances 60 >/dev/null
  "$synth" -o "$t/s-sparse.trace" --seed 6 --instances 20 --period-ns 400000 >/dev/null
  "$synth" -o "$t/s-jitter.trace" --seed 7 --phase-jitter 0.2 --dur-jitter 0.1 --threads 3 \
    --counter PAPI_L1_DCM=1e7,4e7 >/dev/null
  "$synth" -o "$t/s-no-bounds.trace" --seed 8 --no-boundary-counters --counter PAPI_TOT_CYC=3e9,3e9 >/dev/null
  "$build/tests/fuzz/make_seed_corpus" "$t" >/dev/null
  for f in "$root"/tests/fuzz/regressions/*.trace "$@"; do
    [ -e "$f" ] || continue
    cp "$f" "$t/"
  done
  for f in "$t"/*; do
    n=$(basename "$f")
    case $n in *.live) continue ;; esac
    # paths in the output are the same in every recording
    (cd "$t" && FOLD_QUIET=1 "$fold" -q "$n" --json "$out/out/$n.json" 2>"$out/out/$n.err") ||
      echo "exit $?" >>"$out/out/$n.err"
    (cd "$t" && COLUMNS=120 "$fold" "$n" >"$out/out/$n.txt" 2>&1) || echo "exit $?" >>"$out/out/$n.txt"
  done
  # the processes of one run (X.trace, X.1.trace, ...) folded together
  for f in "$t"/*.1.trace; do
    [ -e "$f" ] || continue
    x=$(basename "$f" .1.trace)
    (cd "$t" && FOLD_QUIET=1 "$fold" -q "$x".trace "$x".[0-9]*.trace --json "$out/out/$x-all.json" \
      2>"$out/out/$x-all.err") || echo "exit $?" >>"$out/out/$x-all.err"
    (cd "$t" && COLUMNS=120 "$fold" "$x".trace "$x".[0-9]*.trace >"$out/out/$x-all.txt" 2>&1) ||
      echo "exit $?" >>"$out/out/$x-all.txt"
  done
  echo "golden: $(ls "$t" | wc -l) traces recorded in $out/out"
  ;;
compare)
  a=${2:?dir A}
  b=${3:?dir B}
  n=0
  for f in "$a"/out/*; do
    g=$b/out/$(basename "$f")
    if ! cmp -s "$f" "$g"; then
      n=$((n + 1))
      echo "=== differs: $(basename "$f")"
      case $f in
      *.json) diff <(python3 -m json.tool "$f" 2>/dev/null || cat "$f") \
        <(python3 -m json.tool "$g" 2>/dev/null || cat "$g") | head -20 || true ;;
      *) diff "$f" "$g" | head -20 || true ;;
      esac
    fi
  done
  echo "golden: $n file(s) differ"
  [ "$n" -eq 0 ]
  ;;
*) echo "golden.sh: unknown command $cmd" >&2; exit 2 ;;
esac
