#!/bin/sh
# regions-dilation.sh BUILD_DIR: overhead of full -finstrument-functions
# instrumentation of a call-heavy program (regions-dilation.c), with and
# without libfold.so and its throttling. Uses hyperfine (wall time, whole
# process: start-up, calibration and the final flush included).
#   sh bench/regions-dilation.sh build        (STEPS=300 particle steps, RUNS=5)
set -eu
build=$(cd "${1:?usage: regions-dilation.sh BUILD_DIR}" && pwd)
lib=$build/src/runtime/libfold.so
src=$(cd "$(dirname "$0")" && pwd)/regions-dilation.c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -g "$src" -o "$tmp/plain"
cc -O2 -g -finstrument-functions "$src" -o "$tmp/instr"
cd "$tmp"
FOLD_OUTPUT=$tmp/calls.trace FOLD_THROTTLE=off FOLD_QUIET=1 LD_PRELOAD=$lib ./instr ${STEPS:-300} >/dev/null
echo "function calls with throttling off: $("$build/src/cli/fold" dump calls.trace | grep -c ' enter ')"
rm -f calls.trace
steps=${STEPS:-300}
hyperfine -N -w 1 -r ${RUNS:-5} --export-markdown "$tmp/table.md" \
	-n uninstrumented "./plain $steps" \
	-n "uninstrumented + libfold (the runtime alone)" \
	"env FOLD_QUIET=1 FOLD_OUTPUT=$tmp/p.%p.trace LD_PRELOAD=$lib ./plain $steps" \
	-n "instrumented, no libfold (glibc's empty hooks)" "./instr $steps" \
	-n "instrumented + libfold, throttling on (default)" \
	"env FOLD_QUIET=1 FOLD_OUTPUT=$tmp/a.%p.trace LD_PRELOAD=$lib ./instr $steps" \
	-n "instrumented + libfold, throttling off" \
	"env FOLD_QUIET=1 FOLD_THROTTLE=off FOLD_OUTPUT=$tmp/b.%p.trace LD_PRELOAD=$lib ./instr $steps" >/dev/null
cat "$tmp/table.md"
