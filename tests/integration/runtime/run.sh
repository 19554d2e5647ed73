#!/bin/sh
# run.sh CASE: one runtime integration test. Runs real programs under
# LD_PRELOAD=libfold.so in a scratch directory and checks their traces with
# trace_check. Needs LIBFOLD, TRACE_CHECK, PROGS (directory of test programs),
# EXAMPLES (directory of example programs) in the environment.
set -eu
case_name=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/fold-rt-$case_name.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
unset FOLD_SAMPLE FOLD_COUNTERS FOLD_OUTPUT FOLD_QUIET FOLD_STACK_DEPTH FOLD_SIGNAL FOLD_JITTER 2>/dev/null || true

fail() { echo "FAIL ($case_name): $*" >&2; exit 1; }
check() { "$TRACE_CHECK" "$@" || fail "trace_check $*"; }
# preload PROGRAM ARGS...: runs with libfold.so preloaded, stderr to err.txt.
preload() { LD_PRELOAD="$LIBFOLD" "$@" 2>err.txt; }
only_trace() {
	set -- *.trace
	[ $# -eq 1 ] && [ -f "$1" ] || fail "expected exactly one trace file, found: $*"
	echo "$1"
}

case $case_name in
regions)
	FOLD_SAMPLE=time@1ms preload "$PROGS/prog_regions" 200 >/dev/null || fail "program failed"
	t=$(only_trace)
	grep -q "^fold: wrote $t" err.txt || fail "no exit summary naming $t: $(cat err.txt)"
	check "$t" --regions outer=200 --regions inner=600 --app-counter items=4200 \
		--counter-in-samples items --min-samples 50 --stack-in-exe 0.9 --threads 1 \
		--info sample.source=time --info sample.period=1000000 --info-present clock.tick_hz \
		--info-present exe --info-present cmdline --stat "samples.taken>=50" --stat threads=1
	;;
example_phases)
	preload "$EXAMPLES/phases" 50 >/dev/null || fail "program failed"
	t=$(only_trace)
	check "$t" --regions timestep=50 --app-counter flops=$((50 * 13200000)) --min-samples 5
	;;
*)
	fail "unknown case"
	;;
esac
