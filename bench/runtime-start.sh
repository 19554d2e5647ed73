#!/bin/sh
# runtime-start.sh BUILD_DIR [ROUNDS] [N] [BEFORE_LIBFOLD]: what libfold.so
# adds to the cost of a process, start to exit, at the default
# configuration (issue 28).
#
#  - true:   N runs of /bin/true, each started with LD_PRELOAD=libfold.so by
#            a process that is not measured (each is the first process of
#            its run, like `LD_PRELOAD=... /bin/true` from a shell);
#  - spawn:  a measured process (itself under LD_PRELOAD) starting
#            /bin/true N times with posix_spawn + waitpid: the children
#            inherit LD_PRELOAD and each writes its own trace;
#  - system: the same with system("/bin/true") (a shell and /bin/true per
#            call, both measured);
#  - popen:  the same with popen("/bin/true") + pclose (a shell and
#            /bin/true per call).
# A figure is the time from starting the child to reaping it (median over
# the N calls of a run) with fold minus without, per call, and the same for
# the CPU time of the children (user + system). Each round runs without
# fold, with libfold.so, with BEFORE_LIBFOLD if given (a build before a
# change) and without fold again; the figures are the median and the range
# over ROUNDS rounds (the machine is shared: a load change hits every run of
# a round), each against the mean of its round's two runs without fold.
set -eu
build=${1:?usage: runtime-start.sh BUILD_DIR [ROUNDS] [N] [BEFORE_LIBFOLD]}
rounds=${2:-7}
n=${3:-200}
before=${4:-}
abspath() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
lib=$(abspath "$build/src/runtime/libfold.so")
[ -z "$before" ] || before=$(abspath "$before")
drv=$build/bench/bench_runtime_start
[ -x "$drv" ] || { echo "build $drv first (cmake --build $build --target bench_runtime_start)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir "$out/t"
# "wall cpu" per call of one run of the driver: its median wall time and the
# children's CPU time per call
one() { sed -n 's/.*median \([0-9]*\) us, min [0-9]* us per process; CPU \([0-9]*\) us.*/\1 \2/p'; }
without() { env -u LD_PRELOAD "$drv" "$@" 2>/dev/null | one; }
# with LIB CASE: the case's driver run with LIB, its traces counted and removed
with() {
	l=$1 c=$2
	if [ "$c" = true ]; then
		env -u LD_PRELOAD BENCH_CHILD_PRELOAD="$l" FOLD_OUTPUT="$out/t/" "$drv" spawn "$n" 2>/dev/null | one
	else
		env LD_PRELOAD="$l" FOLD_OUTPUT="$out/t/" "$drv" "$c" "$n" 2>/dev/null | one
	fi
	find "$out/t" -name '*.trace' | wc -l >"$out/ntr"
	rm -f "$out"/t/*.trace
}
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# report CASE LABEL COLUMN: median and range of one column of $out/d
report() {
	col=$3
	d=$(cut -d' ' -f"$col" "$out/d" | med)
	lo=$(cut -d' ' -f"$col" "$out/d" | sort -g | head -1)
	hi=$(cut -d' ' -f"$col" "$out/d" | sort -g | tail -1)
	cpu=$(cut -d' ' -f$((col + 1)) "$out/d" | med)
	awk -v l="$2" -v d="$d" -v lo="$lo" -v hi="$hi" -v cpu="$cpu" 'BEGIN {
		printf "    %-7s adds %6.0f us per call (range %.0f .. %.0f), CPU %+.0f us\n", l, d, lo, hi, cpu }'
}
for case in true spawn system popen; do
	mode=$case
	[ "$case" = true ] && mode=spawn
	: >"$out/d"
	i=0
	while [ $i -lt "$rounds" ]; do
		a=$(without "$mode" "$n")
		b=$(with "$lib" "$case")
		c=0
		[ -z "$before" ] || c=$(with "$before" "$case")
		[ -n "$before" ] || c="0 0"
		e=$(without "$mode" "$n")
		# columns: base wall, after wall, after cpu, before wall, before cpu
		echo "$a $e $b $c" | awk '{ w = ($1 + $3) / 2; u = ($2 + $4) / 2
			print w, $5 - w, $6 - u, $7 - w, $8 - u }' >>"$out/d"
		i=$((i + 1))
	done
	per=1
	[ "$case" = system ] || [ "$case" = popen ] && per=2 # a shell and /bin/true
	base=$(cut -d' ' -f1 "$out/d" | med)
	awk -v c="$case" -v n="$n" -v b="$base" -v tr="$(cat "$out/ntr")" -v per="$per" 'BEGIN {
		printf "%-6s %d calls: %.0f us per call without fold; %d traces per run (%d per call)\n", c, n, b, tr, per }'
	report "$case" after 2
	[ -z "$before" ] || report "$case" before 4
done
echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "reproduce: bench/runtime-start.sh $build $rounds $n${before:+ $before}"
