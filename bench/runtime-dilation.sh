#!/bin/sh
# runtime-dilation.sh BUILD_DIR [PAIRS]: A/B dilation of libfold.so at its
# default configuration (time@10ms, default counters) on a compute-bound
# program (examples/phases) and a many-threads program (examples/threads).
#
# The machine is shared, so A and B runs are interleaved (A B A B ...) and
# the figure is the median of the per-pair ratios B/A: a load change hits
# both runs of a pair instead of biasing one side. Wall-clock time.
set -eu
build=${1:?usage: runtime-dilation.sh BUILD_DIR [PAIRS]}
pairs=${2:-21}
lib=$build/src/runtime/libfold.so
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$out"
ns() { date +%s%N; }
bench() { # name command...
	name=$1
	shift
	"$@" >/dev/null # warm-up (page cache)
	: >"$name.ratios"
	i=0
	while [ $i -lt "$pairs" ]; do
		t0=$(ns); "$@" >/dev/null; t1=$(ns)
		LD_PRELOAD=$lib FOLD_QUIET=1 FOLD_OUTPUT="$out/t.trace" "$@" >/dev/null; t2=$(ns)
		rm -f "$out"/t*.trace
		echo "$(( t1 - t0 )) $(( t2 - t1 ))" >>"$name.ratios"
		i=$((i + 1))
	done
	awk '{ print $2 / $1, $1, $2 }' "$name.ratios" | sort -g | awk -v n="$name" -v p="$pairs" '
		{ r[NR] = $1; a[NR] = $2; b[NR] = $3 }
		END {
			m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
			printf "%-8s median ratio %.4f (dilation %+.2f%%), ratios %.3f..%.3f over %d interleaved pairs\n",
			       n, m, (m - 1) * 100, r[1], r[NR], p }'
}
bench compute "$build/examples/phases" 300
bench threads "$build/examples/threads" 8 1000
bench shortthr "$build/examples/threads" 16 40
echo "reproduce: bench/runtime-dilation.sh $build $pairs"
