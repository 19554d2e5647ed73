#!/usr/bin/env bash
# Command one of the README: installs what fold needs, builds and installs it
# into ./out, runs an example program under libfold, folds its trace and
# writes report.html (in ./demo).
#
# Usage: scripts/demo.sh [PREFIX]   (default PREFIX: ./out)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
prefix=${1:-$root/out}
jobs=${JOBS:-$(nproc)}

scripts/install-deps.sh --build-only

echo "== building fold"
# The demo needs neither the tests nor the benchmarks: building them would
# pull in test-only packages a user does not need.
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFOLD_BUILD_TESTS=OFF -DFOLD_BUILD_BENCH=OFF >"$root/build.configure.log" 2>&1 ||
  { cat "$root/build.configure.log"; exit 1; }
cmake --build "$root/build" -j "$jobs" >"$root/build.log" 2>&1 || { tail -40 "$root/build.log"; exit 1; }
cmake --install "$root/build" --prefix "$prefix" >/dev/null

demo="$root/demo"
mkdir -p "$demo"
cd "$demo"
rm -f trace.bin report.html

echo "== running examples/phases.c under libfold"
if [ -x "$prefix/bin/foldrun" ]; then
  "$prefix/bin/foldrun" -o trace.bin "$root/build/examples/phases" 300
else
  FOLD_OUTPUT=trace.bin LD_PRELOAD="$prefix/lib/libfold.so" "$root/build/examples/phases" 300
fi

echo "== folding the trace"
"$prefix/bin/fold" trace.bin -o report.html
"$prefix/bin/fold" trace.bin -q | head -40

echo
echo "Report: $demo/report.html"
echo "Open it in a browser (it is one self-contained file), e.g. xdg-open $demo/report.html"
