#!/bin/sh
# runtime-start.sh BUILD_DIR [PAIRS] [N]: what libfold.so adds to the cost of
# a process, start to exit, at the default configuration (issue 28).
#
#  - true:   N runs of /bin/true, each started with LD_PRELOAD=libfold.so by
#            a process that is not measured (each is the first process of
#            its run, like `LD_PRELOAD=... /bin/true` from a shell);
#  - spawn:  a measured process (itself under LD_PRELOAD) starting
#            /bin/true N times with posix_spawn + waitpid: the children
#            inherit LD_PRELOAD and each writes its own trace;
#  - system: the same with system("/bin/true") (a shell and /bin/true per
#            call, both measured);
#  - popen:  the same with popen("/bin/true") + pclose.
# Each figure is the time from starting the process to reaping it (median
# over the N processes of a run) with fold minus without, per process, and
# the CPU time (user + system of the children) with minus without. Runs
# with and without libfold.so are interleaved; the figures are the median
# and the range over PAIRS pairs (the machine is shared: a load change hits
# both runs of a pair). LIBFOLD=path measures another libfold.so (a build
# before a change).
set -eu
build=${1:?usage: runtime-start.sh BUILD_DIR [PAIRS] [N]}
pairs=${2:-7}
n=${3:-200}
lib=${LIBFOLD:-$build/src/runtime/libfold.so}
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
drv=$build/bench/bench_runtime_start
[ -x "$drv" ] || { echo "build $drv first (cmake --build $build --target bench_runtime_start)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# "median min cpu" of one run of the driver
one() { sed -n 's/.*median \([0-9]*\) us, min \([0-9]*\) us per process; CPU \([0-9]*\) us.*/\1 \2 \3/p'; }
without() { env -u LD_PRELOAD "$drv" "$@" 2>/dev/null | one; }
with_child() { env -u LD_PRELOAD BENCH_CHILD_PRELOAD="$lib" FOLD_OUTPUT="$out/t/" "$drv" "$@" 2>/dev/null | one; }
with_parent() { env LD_PRELOAD="$lib" FOLD_OUTPUT="$out/t/" "$drv" "$@" 2>/dev/null | one; }
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mkdir "$out/t"
for case in true spawn system popen; do
	: >"$out/d"
	i=0
	while [ $i -lt "$pairs" ]; do
		mode=$case
		[ "$case" = true ] && mode=spawn
		a=$(without "$mode" "$n")
		if [ "$case" = true ]; then b=$(with_child spawn "$n"); else b=$(with_parent "$mode" "$n"); fi
		c=$(without "$mode" "$n")
		ntr=$(find "$out/t" -name '*.trace' | wc -l)
		rm -f "$out"/t/*.trace
		# with minus the mean of the runs without around it (A/B/A)
		echo "$a $b $c $ntr" | awk '{ print $4 - ($1 + $7) / 2, $1, $4, $6 - ($3 + $9) / 2, $10 }' >>"$out/d"
		i=$((i + 1))
	done
	d=$(cut -d' ' -f1 "$out/d" | med)
	lo=$(cut -d' ' -f1 "$out/d" | sort -g | head -1)
	hi=$(cut -d' ' -f1 "$out/d" | sort -g | tail -1)
	base=$(cut -d' ' -f2 "$out/d" | med)
	cpu=$(cut -d' ' -f4 "$out/d" | med)
	traces=$(cut -d' ' -f5 "$out/d" | med)
	per=1
	[ "$case" = system ] || [ "$case" = popen ] && per=2 # a shell and /bin/true
	awk -v c="$case" -v d="$d" -v lo="$lo" -v hi="$hi" -v b="$base" -v cpu="$cpu" -v n="$n" -v tr="$traces" -v per="$per" 'BEGIN {
		printf "%-6s %4d x: %6.0f us per call without fold; fold adds %5.0f us per call (range %.0f .. %.0f), CPU %+.0f us; %d traces per run (%d per call)\n",
			c, n, b, d, lo, hi, cpu, tr, per }'
done
echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "reproduce: bench/runtime-start.sh $build $pairs $n"
