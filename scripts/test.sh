#!/usr/bin/env bash
# Command two of the README: installs what the tests need, builds fold twice
# (normal with -Werror, and ASan+UBSan), and runs the whole suite with ctest;
# then fuzzes every parser for a bounded time under clang/libFuzzer.
#
# Usage: scripts/test.sh [--quick]   (--quick: skip the ASan build and fuzzing)
# Environment: FOLD_FUZZ_SECONDS (default 60) per fuzz target; JOBS (default nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
quick=0
[ "${1:-}" = "--quick" ] && quick=1
jobs=${JOBS:-$(nproc)}
fuzz_seconds=${FOLD_FUZZ_SECONDS:-60}

scripts/install-deps.sh

status=0
run_suite() { # name, build dir, cmake args...
  local name=$1 dir=$2
  shift 2
  echo "=== [$name] configure and build in $dir"
  cmake -S "$root" -B "$dir" -DFOLD_WERROR=ON -DFOLD_REQUIRE_TEST_DEPS=ON "$@" >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; return 1; }
  if ! cmake --build "$dir" -j "$jobs" "${BUILD_ARGS[@]}" >"$dir.build.log" 2>&1; then
    grep -E -A3 'error|Error' "$dir.build.log" | head -80
    echo "=== [$name] build failed (full log: $dir.build.log)"
    return 1
  fi
  echo "=== [$name] ctest"
  (cd "$dir" && ctest --output-on-failure -j "$jobs" "${CTEST_ARGS[@]}")
}

CTEST_ARGS=()
BUILD_ARGS=()
run_suite normal build || status=1
if [ "$quick" -eq 0 ]; then
  # ASan/UBSan: the CLI, the trace library and every unit test. libfold.so
  # itself is never sanitized (it runs inside uninstrumented programs).
  CTEST_ARGS=(-LE integration-slow)
  run_suite asan build-asan -DFOLD_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug || status=1
  CTEST_ARGS=(-L fuzz)
  BUILD_ARGS=(--target fuzzers)
  run_suite fuzz build-fuzz -DCMAKE_C_COMPILER=clang -DFOLD_FUZZ=ON \
    -DFOLD_FUZZ_SECONDS="$fuzz_seconds" || status=1
fi

if [ "$status" -eq 0 ]; then echo "=== all suites passed"; else echo "=== FAILED"; fi
exit "$status"
