#!/bin/sh
# runtime-threads.sh BUILD_DIR [PAIRS]: what libfold.so adds to a new thread
# (set-up + tear-down: thread state, counters, timer, alternate signal stack,
# start/end records and their chunk), at the default configuration.
#
# bench_runtime_threads creates 2000 empty threads one after the other (and
# then 16 at a time) and reports the mean create-to-join time; runs with and
# without libfold.so are interleaved and the figure is the median of the
# per-pair differences (the machine is shared: a load change hits both runs
# of a pair).
set -eu
build=${1:?usage: runtime-threads.sh BUILD_DIR [PAIRS]}
pairs=${2:-11}
lib=$build/src/runtime/libfold.so
prog=$build/bench/bench_runtime_threads
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
us() { "$@" | sed -n 's/.*: \([0-9.]*\) us per thread.*/\1/p'; }
for batch in 1 16; do
	: >"$out/d"
	i=0
	while [ $i -lt "$pairs" ]; do
		a=$(us "$prog" 2000 $batch)
		b=$(us env LD_PRELOAD="$lib" FOLD_QUIET=1 FOLD_OUTPUT="$out/t.trace" "$prog" 2000 $batch)
		rm -f "$out"/t*.trace
		echo "$a $b" >>"$out/d"
		i=$((i + 1))
	done
	awk '{ print $2 - $1, $1, $2 }' "$out/d" | sort -g | awk -v b=$batch -v p="$pairs" '
		{ d[NR] = $1; a[NR] = $2; f[NR] = $3 }
		END {
			m = (NR % 2) ? d[(NR + 1) / 2] : (d[NR / 2] + d[NR / 2 + 1]) / 2
			printf "threads %2d at a time: libfold.so adds %.1f us per thread (median of %d pairs; range %.1f..%.1f)\n",
			       b, m, p, d[1], d[NR] }'
done
echo "reproduce: bench/runtime-threads.sh $build $pairs"
