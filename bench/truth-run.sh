#!/usr/bin/env bash
# truth-run.sh: the randomized truth bench on real runs (issue 30). Runs
# bench_truth_prog (truth-prog.c: a region structure drawn from a seed,
# recording its own truth) under foldrun for K seeds, each quiet and beside
# two CPU hogs, at the sampling period the seed draws (1-5 ms or fold's
# default); folds each run with `fold --json` and judges it with
# truth_check.py (phases, starts, rates, CPU rates, their intervals, the
# fidelity verdict, the region's total against the program's own timer).
# Prints one line per run with the machine's load, then the figures, the
# command and the seeds.
#
# usage: truth-run.sh [--build DIR] [--seeds K] [--first S] [--keep DIR]
#                     [--conditions "quiet hogs"] [--seconds T]
#   --seeds K       seeds S .. S+K-1 (default 20); --first S (default: a new
#                   one from the clock, printed)
#   --keep DIR      keep traces, truths and fold's JSON in DIR
#   --seconds T     each run about T s instead of the drawn 1-3 s
# TRUTH_PROG, FOLDRUN, FOLD name the programs if not those under --build.
# Exit status: 0 whatever fold answered; 1 when a run of the harness failed
# (the program, foldrun or fold crashed, an output could not be read).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build seeds=20 first="" keep="" conditions="quiet hogs" seconds=""
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--seeds) seeds=$2; shift 2 ;;
	--first) first=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	--conditions) conditions=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	*) sed -n '2,/^set -e/p' "$0" | sed 's/^# \{0,1\}//;/^set -e/d' >&2; exit 2 ;;
	esac
done
build=$(cd "$build" 2>/dev/null && pwd || echo "$build")
prog=${TRUTH_PROG:-$build/bench/bench_truth_prog}
foldrun=${FOLDRUN:-$build/src/runtime/foldrun}
fold=${FOLD:-$build/src/cli/fold}
for f in "$prog" "$foldrun" "$fold"; do
	[ -x "$f" ] || { echo "truth-run.sh: $f not built (cmake --build $build)" >&2; exit 2; }
done
first=${first:-$(($(date +%s) % 1000000))}
last=$((first + seeds - 1))
if [ -n "$keep" ]; then
	out=$keep
	mkdir -p "$out"
else
	out=$(mktemp -d)
fi
hogs=""
cleanup() {
	for p in $hogs; do kill "$p" 2>/dev/null || true; done
	if [ -z "$keep" ]; then rm -rf "$out"; fi
}
trap cleanup EXIT
results=$out/results.jsonl
: >"$results"
defects=0 where=""
defect() {
	echo "HARNESS DEFECT: $where$*" >&2
	defects=$((defects + 1))
}

for seed in $(seq "$first" "$last"); do
	sample=$("$prog" --seed "$seed" --describe |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["sample"])')
	for cond in $conditions; do
		dir=$out/$seed.$cond where="seed $seed $cond: "
		mkdir -p "$dir"
		if [ "$cond" = hogs ]; then
			for _ in 1 2; do
				sh -c 'while :; do :; done' &
				hogs="$hogs $!"
			done
		fi
		load=$(cut -d' ' -f1 /proc/loadavg)
		ev=()
		[ "$sample" = default ] || ev=(-e "$sample")
		args=(--seed "$seed" --out "$dir/truth.json")
		[ -z "$seconds" ] || args+=(--seconds "$seconds")
		# cpu_share.py records the CPU the run got and the machine's load
		# (never skips: --min-share 0); the stall probe after it measures
		# the host's hidden stops.
		ok=1
		python3 "$here/../tests/tools/cpu_share.py" --min-share 0 --max-stalls 1000 \
			--report "$dir/cpu_share.txt" -- "$foldrun" -q "${ev[@]}" -o "$dir/run.trace" \
			"$prog" "${args[@]}" >"$dir/prog.out" 2>"$dir/prog.err" ||
			{ ok=0; defect "the program under foldrun failed: $(tail -n 3 "$dir/prog.err")"; }
		for p in $hogs; do
			kill "$p" 2>/dev/null || true
			wait "$p" 2>/dev/null || true
		done
		hogs=""
		[ $ok = 1 ] || continue
		"$fold" "$dir/run.trace" -q --json "$dir/fold.json" 2>"$dir/fold.err" ||
			{ defect "fold failed: $(tail -n 3 "$dir/fold.err")"; continue; }
		python3 - "$dir/meta.json" "$cond" "$sample" "$load" "$dir/cpu_share.txt" <<'PY'
import json, sys
path, cond, sample, load, cpu = sys.argv[1:]
line = open(cpu).read().strip() if cpu else ""
json.dump({"condition": cond, "sample": sample, "load": float(load), "cpu_share_line": line}, open(path, "w"))
PY
		python3 "$here/truth_check.py" judge --truth "$dir/truth.json" --fold "$dir/fold.json" \
			--meta "$dir/meta.json" --results "$results" ||
			{ defect "truth_check.py could not judge the run"; continue; }
		echo "    $(cat "$dir/cpu_share.txt")"
		[ -n "$keep" ] || rm -f "$dir/run.trace"
	done
done

where=""
judged=$(wc -l <"$results")
runs=$((seeds * $(echo "$conditions" | wc -w)))
[ "$judged" = "$runs" ] || defect "$judged of $runs runs were judged"
echo
echo "== the randomized truth bench on real runs: seeds $first-$last, conditions: $conditions"
python3 "$here/truth_check.py" summary "$results"
[ $defects = 0 ] || echo "harness defects: $defects (above)"
envs=""
[ -z "${TRUTH_PROG:-}" ] || envs="TRUTH_PROG=$prog "
[ -z "${FOLDRUN:-}" ] || envs="${envs}FOLDRUN=$foldrun "
[ -z "${FOLD:-}" ] || envs="${envs}FOLD=$fold "
echo "command: $envs$0 --build $build --seeds $seeds --first $first${seconds:+ --seconds $seconds}" \
	"--conditions \"$conditions\""
[ $defects = 0 ]
