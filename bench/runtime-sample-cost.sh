#!/bin/sh
# runtime-sample-cost.sh BUILD_DIR: what one sample costs inside the handler
# (unwinding a ~23-frame stack, reading the counters, encoding; the kernel's
# interrupt delivery excluded) and what it costs on disk.
#  - handler: the runtime's own samples.handler_ticks statistic / samples
#  - bytes per sample, steady stack: (trace size sampling at 1 ms - size with
#    sampling off) / samples, same program and duration
#  - bytes per second at the default rate (time@10ms) on examples/phases
set -eu
build=${1:?usage: runtime-sample-cost.sh BUILD_DIR}
lib=$build/src/runtime/libfold.so
check=$build/tests/integration/runtime/trace_check
prog=$build/bench/bench_runtime_deepstack
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$out"
stat_of() { "$check" "$1" --print | sed -n "s/^  $2 = //p"; }

for counters in default perf::PAGE-FAULTS none; do
	if [ $counters = default ]; then unset FOLD_COUNTERS; else export FOLD_COUNTERS=$counters; fi
	rm -f ./*.trace
	LD_PRELOAD=$lib FOLD_QUIET=1 FOLD_SAMPLE=time@1ms FOLD_OUTPUT=on.trace "$prog" ${SECONDS_RUN:-3} >/dev/null
	LD_PRELOAD=$lib FOLD_QUIET=1 FOLD_SAMPLE=off FOLD_OUTPUT=off.trace "$prog" ${SECONDS_RUN:-3} >/dev/null
	n=$(stat_of on.trace "stat samples.taken")
	ticks=$(stat_of on.trace "stat samples.handler_ticks")
	hz=$(stat_of on.trace "info clock.tick_hz")
	mode=$(stat_of on.trace "info counters.mode")
	on=$(stat -c %s on.trace)
	off=$(stat -c %s off.trace)
	awk -v n="$n" -v t="$ticks" -v hz="$hz" -v on="$on" -v off="$off" -v m="$mode" -v c="$counters" 'BEGIN {
		printf "counters %-18s (%-8s): %d samples, in-handler %.2f us per sample, %.2f bytes per sample (steady stack)\n",
		       c, m, n, t / n / hz * 1e6, (on - off) / n }'
done
unset FOLD_COUNTERS
t0=$(date +%s.%N)
LD_PRELOAD=$lib FOLD_QUIET=1 FOLD_OUTPUT=phases.trace "$build/examples/phases" 500 >/dev/null
t1=$(date +%s.%N)
awk -v s="$(stat -c %s phases.trace)" -v a="$t0" -v b="$t1" -v n="$(stat_of phases.trace "stat samples.taken")" \
	'BEGIN { printf "default rate on examples/phases: %.0f bytes per second of run (%d samples, %.1f s, %d bytes)\n", s / (b - a), n, b - a, s }'
echo "reproduce: bench/runtime-sample-cost.sh $build"
