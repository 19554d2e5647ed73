#!/bin/sh
# report-size.sh: size and write time of the HTML report, and export times.
#
# usage: bench/report-size.sh [BUILD_DIR]   (default: build)
# Figures: HTML bytes and write time for the fixture analysis (2 folded
# regions, 3 counters + 5 derived metrics each) at 600, 6000 and 60000
# folded samples per counter (the report draws at most 1500 per counter),
# then the three exports of a real run of examples/phases (300 timesteps),
# then the reports of a trace of 100,000 one-shot regions
# (bench_many_regions: what a report costs when almost nothing can be
# folded; the reports aggregate the regions they cannot fold, aggregate.h):
# bytes, wall time and peak memory (/usr/bin/time -v) of each output.
set -eu
build=$(cd "${1:-build}" && pwd)
fixture=$build/tests/integration/report/write_fixture_report
fold=$build/src/cli/fold
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
for points in 600 6000 60000; do
	t0=$(now)
	"$fixture" "$tmp/r.html" "$points"
	t1=$(now)
	printf 'html  fixture %6d samples/counter: %8d bytes  %.3f s   (%s %s %d)\n' "$points" \
		"$(stat -c %s "$tmp/r.html")" "$(echo "$t1 - $t0" | bc)" "$fixture" OUT.html "$points"
done

lib=$build/src/runtime/libfold.so
if [ -x "$build/examples/phases" ] && [ -f "$lib" ]; then
	(cd "$tmp" && FOLD_OUTPUT=t.bin LD_PRELOAD="$lib" "$build/examples/phases" 300 >/dev/null 2>&1)
	t0=$(now)
	"$fold" "$tmp/t.bin" -q -o "$tmp/real.html"
	t1=$(now)
	printf 'html  examples/phases 300: %d bytes, fold+report %.3f s   (%s TRACE -o report.html)\n' \
		"$(stat -c %s "$tmp/real.html")" "$(echo "$t1 - $t0" | bc)" "$fold"
	for f in pprof chrome folded; do
		t0=$(now)
		"$fold" export --format=$f -q -o "$tmp/out.$f" "$tmp/t.bin"
		t1=$(now)
		printf 'export %-6s examples/phases 300: %8d bytes  %.3f s   (%s export --format=%s -o OUT TRACE)\n' \
			"$f" "$(stat -c %s "$tmp/out.$f")" "$(echo "$t1 - $t0" | bc)" "$fold" "$f"
	done
fi

many=$build/bench/bench_many_regions
if [ -x "$many" ] && [ -x /usr/bin/time ]; then
	"$many" "$tmp/many.trace" 100000
	printf 'trace 100,000 one-shot regions: %d bytes   (%s OUT.trace 100000)\n' "$(stat -c %s "$tmp/many.trace")" "$many"
	measure() { # what, output file, fold args...
		local what=$1 out=$2
		shift 2
		/usr/bin/time -v "$fold" "$tmp/many.trace" -q "$@" >"$tmp/stdout" 2>"$tmp/time.txt"
		[ "$out" = - ] && out=$tmp/stdout
		printf '%-8s 100,000 regions: %10d bytes  %6.2f s  %7d KB peak   (%s TRACE -q %s)\n' "$what" \
			"$(stat -c %s "$out")" \
			"$(awk -F': ' '/Elapsed/{n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}' "$tmp/time.txt")" \
			"$(awk -F': ' '/Maximum resident/{print $2}' "$tmp/time.txt")" "$fold" "$*"
	}
	measure html "$tmp/many.html" -o "$tmp/many.html"
	measure json "$tmp/many.json" --json "$tmp/many.json"
	measure terminal -
fi
