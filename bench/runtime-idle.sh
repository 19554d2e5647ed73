#!/bin/sh
# runtime-idle.sh BUILD_DIR [PAIRS]: what libfold.so costs a program's idle
# and waiting threads, and an OpenMP program with many short regions, at the
# default configuration (issue 12).
#
#  - idle: 256 threads blocked in a condition wait for 3 s; the process's CPU
#    time over those 3 s, with fold and without, and with fold but no idle
#    threads (the main thread's own sampling), as % of one core;
#  - barrier: 1,500 threads meeting 50 times at one barrier: wall time and
#    max RSS;
#  - omp: 2,000 parallel regions of ~1 ms (2 threads): wall-time dilation
#    and the CPU time fold adds per region (less sensitive to load), with
#    OMP_WAIT_POLICY=passive: libgomp's spinning waits make wall time on an
#    oversubscribed shared machine erratic (107 regions/s instead of 1,000
#    at load 20 on 2 cores), and fold's cost is in the region hooks and the
#    sampling, not in how the team waits.
# Runs with and without libfold.so are interleaved; figures are medians over
# PAIRS pairs (the machine is shared: a load change hits both runs of a pair).
set -eu
build=${1:?usage: runtime-idle.sh BUILD_DIR [PAIRS]}
pairs=${2:-5}
lib=$build/src/runtime/libfold.so
idle=$build/bench/bench_runtime_idle
omp=$build/bench/bench_runtime_omp
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fold() { env LD_PRELOAD="$lib" FOLD_QUIET=1 FOLD_OUTPUT="$out/t.trace" "$@"; rm -f "$out"/t*.trace; }
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
cpu() { "$@" | sed -n 's/.*: \([0-9.]*\) ms CPU while idle.*/\1/p'; }
: >"$out/a"; : >"$out/b"; : >"$out/c"
i=0
while [ $i -lt "$pairs" ]; do
	cpu "$idle" idle 256 3 >>"$out/a"
	cpu fold "$idle" idle 256 3 >>"$out/b"
	cpu fold "$idle" idle 0 3 >>"$out/c"
	i=$((i + 1))
done
a=$(med <"$out/a"); b=$(med <"$out/b"); c=$(med <"$out/c")
awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN {
	printf "idle: 256 threads blocked 3 s: %.1f ms CPU without fold, %.1f ms with (%.2f%% of one core);", a, b, b / 30
	printf " main thread alone with fold %.1f ms: the 256 threads add %.2f%% of one core\n", c, (b - c) / 30 }'
: >"$out/a"; : >"$out/b"
i=0
while [ $i -lt "$pairs" ]; do
	"$idle" barrier 1500 50 >>"$out/a"
	fold "$idle" barrier 1500 50 >>"$out/b"
	i=$((i + 1))
done
wa=$(sed -n 's/.*: \([0-9.]*\) s wall.*/\1/p' "$out/a" | med); wb=$(sed -n 's/.*: \([0-9.]*\) s wall.*/\1/p' "$out/b" | med)
ra=$(sed -n 's/.*wall, \([0-9]*\) MiB.*/\1/p' "$out/a" | med); rb=$(sed -n 's/.*wall, \([0-9]*\) MiB.*/\1/p' "$out/b" | med)
echo "barrier: 1500 threads x 50 rounds: ${wa} s and ${ra} MiB without fold, ${wb} s and ${rb} MiB with"
if [ -x "$omp" ]; then
	: >"$out/d"
	i=0
	while [ $i -lt "$pairs" ]; do
		x=$(OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$omp" 2000 250000 | sed -n 's/.* in \([0-9.]*\) s.*, \([0-9.]*\) s CPU/\1 \2/p')
		y=$(OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive fold "$omp" 2000 250000 | sed -n 's/.* in \([0-9.]*\) s.*, \([0-9.]*\) s CPU/\1 \2/p')
		echo "$x $y" | awk '{ print ($3 / $1 - 1) * 100, $1, ($4 - $2) / 2000 * 1e6 }' >>"$out/d"
		i=$((i + 1))
	done
	d=$(cut -d' ' -f1 "$out/d" | med); base=$(cut -d' ' -f2 "$out/d" | med); per=$(cut -d' ' -f3 "$out/d" | med)
	awk -v d="$d" -v b="$base" -v p="$per" 'BEGIN { printf "omp: 2000 regions in %.2f s without fold (%.0f regions/s, 2 threads): wall-time dilation %.1f%%, CPU time added %.1f us per region (medians of pairs)\n", b, 2000 / b, d, p }'
fi
echo "reproduce: bench/runtime-idle.sh $build $pairs"
