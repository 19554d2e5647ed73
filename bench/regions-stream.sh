#!/bin/sh
# regions-stream.sh BUILD_DIR [RUNS] [CALLS]: fold's exact profile of a
# memory-streaming leaf (prog_calls stream: ~14 us of WAXPBY-like streaming
# per call, the program's own streaming between calls, each call timed with
# the TSC right around it, less the timer's own cost) against that timer.
# Prints, per run, fold's inclusive + the calls' own hooks (hooks_ns) minus
# the program's, in % and ns per call, then the median. What is measured and
# what is not: docs/regions.md, "Cold hooks". With more than about 6000
# calls a trace buffer fills inside a hook and is written there, after the
# timestamp and unmeasured (about 1 ms per 64 KB).
#   sh bench/regions-stream.sh build 10
set -eu
build=$(cd "${1:?usage: regions-stream.sh BUILD_DIR [RUNS] [CALLS]}" && pwd)
runs=${2:-10}
calls=${3:-2000}
[ "$(uname -m)" = x86_64 ] || { echo "the program's timer reads the TSC (x86_64 only)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
i=0
while [ $i -lt "$runs" ]; do
	i=$((i + 1))
	rm -f ./*.trace
	FOLD_QUIET=1 FOLD_THROTTLE=off LD_PRELOAD="$build/src/runtime/libfold.so" \
		"$build/tests/integration/regions/prog_calls" stream "$calls" >own.txt
	"$build/src/cli/fold" -q ./*.trace --json out.json
	python3 - "$i" >>figures.txt <<'PY'
import json, sys
a = json.load(open("out.json"))
info = a["processes"][0]["info"]
w = open("own.txt").read().split()
ticks, calls, timer = int(w[2]), int(w[4]), int(w[6])
own = (ticks - calls * timer) * 1e9 / float(info["clock.tick_hz"])
p = next(x for x in a["profile"] if x["name"] == "stream_leaf")
f = p["inclusive_ns"] + p["hooks_ns"]
print("%+.3f %+.1f" % (100 * (f - own) / own, (f - own) / calls))
PY
	echo "run $i: $(tail -1 figures.txt | awk '{print $1 "% (" $2 " ns per call)"}')"
done
sort -n figures.txt | awk '{v[NR] = $1} END {print "median: " v[int((NR + 1) / 2)] "% (fold inclusive + hooks_ns against the program TSC timer, " NR " runs)"}'
echo "command: sh bench/regions-stream.sh $1 $runs $calls"
