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
dlopen_origin)
	# A library's dlopen("$ORIGIN/plugin.so") finds the plugin next to that
	# library, as without fold (whose wrapper calls the real dlopen).
	FOLD_SAMPLE=time@1ms same origin "$PROGS/prog_origin"
	grep -q "plugin answers 42" origin.fold || fail "$(cat origin.fold origin.err)"
	check "$(only_trace)" --module liborigin_plugin.so --module-unloaded liborigin_plugin.so
	;;
fd_closeall)
	# A daemon-like program closes 3..1023, then opens a pipe and a file at
	# the numbers it always gets; fold's handler (1 ms samples) must neither
	# read the program's pipe nor write into its file.
	FOLD_SAMPLE=time@1ms same closeall "$PROGS/prog_coexist" closeall
	grep -q "^pipe 3 4$" closeall.fold || fail "unexpected numbers: $(cat closeall.fold)"
	check "$(only_trace)" --min-samples 50 --threads 1 --stat "chunks.written>=1"
	;;
fd_dup2)
	# dup2 and F_DUPFD onto the numbers near the limit, where fold keeps its
	# descriptors: the program sees what it sees without fold, and fold's
	# trace survives (its descriptors moved out of the way).
	ulimit -n 1024 || skip "cannot set ulimit -n 1024"
	FOLD_SAMPLE=time@1ms same dup2 "$PROGS/prog_coexist" dup2
	grep -q "dup2 onto the top 200: 200 ok" dup2.fold || fail "$(cat dup2.fold)"
	check "$(only_trace)" --min-samples 50 --threads 1
	;;
fd_threads)
	# 600 threads each holding a file under ulimit -n 1024: no EMFILE under
	# fold either; fold counts the threads beyond its descriptor budget
	# without counters and says so once.
	ulimit -n 1024 || skip "cannot set ulimit -n 1024"
	same threads "$PROGS/prog_coexist" threads 600
	grep -q "600 threads opened a file, 0 EMFILE" threads.fold || fail "$(cat threads.fold)"
	t=$(only_trace)
	check "$t" --threads 601
	mode=$("$TRACE_CHECK" "$t" --print | sed -n 's/^  info counters.mode = //p')
	if [ "$mode" != none ]; then
		n=$(grep -c "^fold: more than 128 threads alive at once: the threads beyond that record no counters" \
			threads.err || true)
		[ "$n" = 1 ] || fail "expected one line about the counter budget: $(cat threads.err)"
	fi
	;;
fd_select)
	# A select() server with 400 threads: its listening socket stays at the
	# number it gets without fold, below FD_SETSIZE.
	ulimit -n 1024 || skip "cannot set ulimit -n 1024"
	same select "$PROGS/prog_coexist" select 400
	grep -q "below FD_SETSIZE: yes" select.fold || fail "$(cat select.fold)"
	check "$(only_trace)" --threads 401
	;;
pthread_exit)
	# main ends with pthread_exit: the process ends when its last thread does
	# (fold has no thread of its own to keep it alive).
	if ! command -v timeout >/dev/null; then skip "no timeout(1)"; fi
	set +e
	timeout 20 env LD_PRELOAD="$LIBFOLD" FOLD_SAMPLE=time@1ms "$PROGS/prog_coexist" pthread_exit >out.txt 2>err.txt
	s=$?
	set -e
	[ "$s" = 124 ] && fail "the process did not end after main's pthread_exit"
	[ "$s" = 0 ] || fail "exit status $s: $(cat out.txt err.txt)"
	grep -q "last thread done" out.txt || fail "$(cat out.txt)"
	check "$(only_trace)" --threads 2 --stat threads=2
	;;
single_threaded)
	# A single-threaded program stays single-threaded, so unshare(CLONE_NEWUSER)
	# (rootless containers) works as it does without fold.
	"$PROGS/prog_coexist" single >plain.txt 2>&1 || fail "without fold: $(cat plain.txt)"
	grep -q "^threads: 1$" plain.txt || fail "without fold: $(cat plain.txt)"
	FOLD_SAMPLE=time@1ms same single "$PROGS/prog_coexist" single
	grep -q "^threads: 1$" single.fold || fail "$(cat single.fold)"
	if ! grep -q "unshare(CLONE_NEWUSER): ok" plain.txt; then
		echo "note: unshare(CLONE_NEWUSER) fails here without fold too ($(sed -n 's/^unshare[^:]*: //p' plain.txt)); compared as is"
	fi
	;;
kill9)
	# SIGKILL after a few seconds: the trace keeps the metadata written at
	# start (names, module map, clock) and the samples up to the last flush
	# (FOLD_FLUSH_INTERVAL=1s), and fold says the run was cut. CPU-time
	# sampling, so the samples expected follow from the CPU time the program
	# reports having burnt (10 ms a step), whatever the machine's load.
	LD_PRELOAD="$LIBFOLD" FOLD_SAMPLE=cputime@10ms "$PROGS/prog_coexist" run 60 >out.txt 2>err.txt &
	pid=$!
	i=0; while ! grep -q ready out.txt 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	sleep 4
	kill -9 $pid
	set +e; wait $pid; s=$?; set -e
	[ "$s" = 137 ] || fail "exit status $s, expected 137 (SIGKILL)"
	steps=$(sed -n 's/^steps //p' out.txt | tail -1)
	[ -n "$steps" ] || fail "the program reported no progress: $(cat out.txt)"
	# What the trace keeps is judged by the CPU time its samples cover (each
	# sample carries the thread's CPU time since the one before), not by
	# their number: a CPU-time timer checked at the scheduler's tick fires
	# once for several periods when the hypervisor stole the time between
	# two checks (CI, heavily loaded: 74 samples for 1.8 s of CPU). All
	# but the last interval: at most ~1 s (+ the 100 ms report lag) of CPU
	# time missing, 0.9 of the rest for the timer's grain (a 10 ms period
	# lasts 12 ms at HZ=250). A trace flushed only when a 64 KiB buffer
	# fills would hold none of it.
	ms=$((steps * 10))
	[ $ms -gt 1000 ] || skip "the program got only $ms ms of CPU in 4 s: machine too loaded"
	want_ms=$(( (ms - 1100) * 9 / 10 ))
	t=$(only_trace)
	# The live file next to the trace keeps what the buffers held: every
	# sample up to the kill (less the report lag), and fold says where
	# they came from.
	[ -f "$t.live" ] || fail "no live file left next to the trace"
	all_ms=$(( (ms - 100) * 9 / 10 ))
	# up to the kill: what the program reported, less the 100 ms report lag
	# (at most 1 s more: the start, and the steps after the last report)
	check "$t" --allow-damage --allow-unbalanced --cpu-ms $all_ms:$((ms + 1000)) --min-samples $((all_ms / 12 / 3)) \
		--module prog_coexist \
		--info-present clock.tick_hz --info sample.period=10000000 --stack-in-exe 0.9
	"$FOLD_CLI" "$t" >report.txt 2>&1 || fail "fold failed on the cut trace: $(cat report.txt)"
	grep -q "ended without fold's final flush" report.txt ||
		fail "fold does not say the process ended without its final flush: $(cat report.txt)"
	grep -q "recovered from its live file" report.txt || fail "fold does not say what it recovered: $(cat report.txt)"
	grep -q "step" report.txt || fail "fold does not name the region: $(cat report.txt)"
	# Without the live file (removed, or on another machine): what was
	# flushed, all but the last FOLD_FLUSH_INTERVAL.
	rm "$t.live"
	check "$t" --allow-damage --allow-unbalanced --cpu-ms $want_ms:$((ms + 1000)) --module prog_coexist
	"$FOLD_CLI" "$t" >report2.txt 2>&1 || fail "fold failed on the cut trace: $(cat report2.txt)"
	grep -q "the run was cut" report2.txt || fail "fold does not say the run was cut: $(cat report2.txt)"
	;;
enospc)
	# A full disk: the program is unaffected, the loss is counted and the
	# summary does not call lost samples written. A small tmpfs needs a
	# mount (root, or a user namespace); otherwise skip.
	mkdir -p small
	if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k fold-enospc small 2>/dev/null; then
		umount_cmd="umount small"
	else
		skip "cannot mount a small tmpfs (needs root) to fill a disk"
	fi
	# Fill it but leave room for the header and the first chunks.
	dd if=/dev/zero of=small/fill bs=1k count=60 2>/dev/null || true
	FOLD_SAMPLE=time@1ms FOLD_OUTPUT=small/t.trace FOLD_FLUSH_INTERVAL=100ms \
		same enospc "$PROGS/prog_coexist" closeall || { $umount_cmd; exit 1; }
	cat enospc.err
	grep -q "^fold: writing .*small/t.trace failed: No space left on device" enospc.err ||
		{ $umount_cmd; fail "no line about the full disk: $(cat enospc.err)"; }
	grep -q "could not be written (No space left on device)" enospc.err ||
		{ $umount_cmd; fail "summary does not count the loss: $(cat enospc.err)"; }
	$umount_cmd
	;;
output_paths)
	# A relative FOLD_OUTPUT is made absolute at start, for this process and
	# the ones it starts: a shell that changes directory and then runs a
	# program still has both traces written where it started, and says so.
	mkdir sub
	FOLD_OUTPUT=rel.trace LD_PRELOAD="$LIBFOLD" sh -c 'cd sub && "$1" single >/dev/null' sh "$PROGS/prog_coexist" \
		2>err.txt || true
	[ -z "$(ls sub)" ] || fail "a trace went into the new directory: $(ls sub)"
	n=$(ls rel*.trace | wc -l)
	[ "$n" = 2 ] || fail "expected 2 traces here, found: $(ls)"
	for f in $(sed -n 's/^fold: wrote \([^ ]*\) .*/\1/p' err.txt); do
		case $f in /*) ;; *) fail "summary names a relative path: $f" ;; esac
		[ -f "$f" ] || fail "summary names a file that does not exist: $f"
	done
	# FOLD_OUTPUT=dir/ and an existing directory: the default name inside it.
	mkdir out1 out2
	FOLD_OUTPUT=out1/ LD_PRELOAD="$LIBFOLD" "$PROGS/prog_coexist" single >/dev/null 2>err.txt
	ls out1/fold.prog_coexist.*.trace >/dev/null 2>&1 || fail "FOLD_OUTPUT=out1/: $(ls -R) $(cat err.txt)"
	FOLD_OUTPUT=out2 LD_PRELOAD="$LIBFOLD" "$PROGS/prog_coexist" single >/dev/null 2>err.txt
	ls out2/fold.prog_coexist.*.trace >/dev/null 2>&1 || fail "FOLD_OUTPUT=out2 (a directory): $(ls -R)"
	[ ! -e out2.1 ] || fail "FOLD_OUTPUT=out2 wrote out2.1"
	;;
bad_numbers)
	# nan, inf and negative periods and jitter: one clear line each, the
	# default used, the program unaffected.
	for v in 'FOLD_SAMPLE=time@nanms' 'FOLD_SAMPLE=time@infs' 'FOLD_SAMPLE=cputime@-5ms' \
		'FOLD_SAMPLE=time@NaNus' 'FOLD_JITTER=nan' 'FOLD_JITTER=-0.1' 'FOLD_JITTER=inf' \
		'FOLD_FLUSH_INTERVAL=nanms' 'FOLD_FLUSH_INTERVAL=1ms'; do
		var=${v%%=*}
		val=${v#*=}
		env "$v" LD_PRELOAD="$LIBFOLD" "$PROGS/prog_coexist" single >out.txt 2>err.txt || fail "$v: program failed"
		n=$(grep -c "^fold: $var=\"$val\" is not valid: .*; using " err.txt || true)
		[ "$n" = 1 ] || fail "expected one line for $v, got $n: $(cat err.txt)"
		t=$(only_trace)
		case $var in
		FOLD_SAMPLE) check "$t" --info sample.period=10000000 ;;
		FOLD_JITTER) check "$t" --info sample.jitter=0.1 ;;
		esac
		rm -f ./*.trace
	done
	;;
notice_once)
	# The counter notice is said once per run, not by every process: a
	# shell under fold runs two programs (each measured).
	FOLD_COUNTERS='bogus::EVENT,perf::PAGE-FAULTS' LD_PRELOAD="$LIBFOLD" \
		sh -c '"$1" single >/dev/null; "$1" single >/dev/null' sh "$PROGS/prog_coexist" 2>err.txt ||
		fail "program failed: $(cat err.txt)"
	n=$(grep -c "^fold: counter bogus::EVENT: unknown event" err.txt || true)
	[ "$n" = 1 ] || fail "expected the notice once, got $n: $(cat err.txt)"
	[ "$(ls ./*.trace | wc -l)" = 3 ] || fail "expected 3 traces: $(ls)"
	for f in ./*.trace; do check "$f" --counter-missing bogus::EVENT; done
	;;
*)
	fail "unknown case"
	;;
esac
