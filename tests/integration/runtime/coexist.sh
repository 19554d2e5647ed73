#!/bin/sh
# coexist.sh CASE: libfold.so lives inside a program without changing what
# the program sees (issue 12). Each case runs a small program without and
# with fold preloaded and compares its output and exit status, then checks
# what the trace kept. Needs LIBFOLD, TRACE_CHECK, PROGS, FOLD_CLI.
# Exit 77: skipped (the reason is printed).
set -eu
case_name=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/fold-coexist-$case_name.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
unset FOLD_SAMPLE FOLD_COUNTERS FOLD_OUTPUT FOLD_QUIET FOLD_STACK_DEPTH FOLD_SIGNAL FOLD_JITTER \
	FOLD_FLUSH_INTERVAL 2>/dev/null || true
ulimit -c 0 2>/dev/null || true

fail() { echo "FAIL ($case_name): $*" >&2; exit 1; }
skip() { echo "SKIP ($case_name): $*" >&2; exit 77; }
check() { "$TRACE_CHECK" "$@" || fail "trace_check $*"; }
only_trace() {
	set -- *.trace
	[ $# -eq 1 ] && [ -f "$1" ] || fail "expected exactly one trace file, found: $*"
	echo "$1"
}
# same NAME PROGRAM ARGS...: runs PROGRAM without and with fold (the
# environment's FOLD_* apply); stdout and exit status must match. The fold
# run's stderr is in NAME.err.
same() {
	name=$1
	shift
	set +e
	"$@" >"$name.plain" 2>"$name.plain.err"
	s1=$?
	LD_PRELOAD="$LIBFOLD" "$@" >"$name.fold" 2>"$name.err"
	s2=$?
	set -e
	[ "$s1" = "$s2" ] || fail "$name: exit status $s1 without fold, $s2 with: $(cat "$name.fold" "$name.err")"
	cmp -s "$name.plain" "$name.fold" || fail "$name: output differs: $(diff "$name.plain" "$name.fold")"
}

case $case_name in
cxx_throw)
	# Nothing the program or its libraries look up may bind to libunwind.
	LD_DEBUG=bindings LD_DEBUG_OUTPUT=bind FOLD_SAMPLE=time@1ms LD_PRELOAD="$LIBFOLD" "$PROGS/prog_throw" 200 \
		>/dev/null 2>&1 || fail "program failed under LD_DEBUG"
	# (libfold.so's own dlsym of its three functions is the only exception.)
	sed -n 's/.*binding file \([^ ]*\) .* to \([^ ]*\) .*symbol `\([^'"'"']*\).*/\1 \2 \3/p' bind.* >pairs.txt
	[ -s pairs.txt ] || fail "LD_DEBUG=bindings gave nothing to check"
	if awk '$1 !~ /libunwind/ && $1 !~ /libfold/ && $2 ~ /libunwind/' pairs.txt | grep .; then
		fail "symbols of the program bind to libunwind (above)"
	fi
	rm -f bind.* ./*.trace
	FOLD_SAMPLE=time@1ms same sampled "$PROGS/prog_throw" 20000
	check "$(only_trace)" --min-samples 20 --stack-in-exe 0.9
	rm -f ./*.trace
	FOLD_SAMPLE=off same unsampled "$PROGS/prog_throw" 20000
	;;
*)
	fail "unknown case"
	;;
esac
