#!/bin/sh
# run.sh CASE: one coexistence test. Runs a program without and with
# LD_PRELOAD=libfold.so in a scratch directory, compares what the program
# saw, and checks the trace with trace_check. Needs LIBFOLD, TRACE_CHECK and
# PROGS (directory of the test programs) in the environment. Exit 77: the
# machine is too loaded to judge timing (the measured reason is printed).
set -eu
case_name=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/fold-coexist-$case_name.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
unset FOLD_SAMPLE FOLD_COUNTERS FOLD_OUTPUT FOLD_QUIET FOLD_STACK_DEPTH FOLD_SIGNAL FOLD_JITTER 2>/dev/null || true
ulimit -c 0 2>/dev/null || true

fail() { echo "FAIL ($case_name): $*" >&2; exit 1; }
skip() { echo "SKIP ($case_name): $*"; exit 77; }
check() { "$TRACE_CHECK" "$@" || fail "trace_check $*"; }
# timed_check ARGS...: a trace check whose counts depend on timely wake-ups:
# on a failure, a machine with more runnable work than twice its cores skips.
timed_check() {
	"$TRACE_CHECK" "$@" && return 0
	load=$(cut -d' ' -f1 /proc/loadavg)
	cores=$(nproc)
	awk -v l="$load" -v c="$cores" 'BEGIN { exit !(l > 2 * c) }' &&
		skip "loaded machine: load average $load on $cores cores"
	fail "trace_check $*"
}
only_trace() {
	set -- *.trace
	[ $# -eq 1 ] && [ -f "$1" ] || fail "expected exactly one trace file, found: $*"
	echo "$1"
}
# both PROGRAM ARGS...: runs it without fold (plain.*) and with (fold.*):
# stdout, stderr and exit status of each.
both() {
	set +e
	"$@" >plain.out 2>plain.err
	echo $? >plain.status
	LD_PRELOAD="$LIBFOLD" "$@" >fold.out 2>fold.err
	echo $? >fold.status
	set -e
}
# The program saw the same: exit status and stdout.
same() {
	[ "$(cat plain.status)" = "$(cat fold.status)" ] ||
		fail "exit status $(cat fold.status) with fold, $(cat plain.status) without: $(cat fold.err)"
	cmp -s plain.out fold.out || fail "output differs (< without fold, > with):
$(diff plain.out fold.out)
$(cat fold.err)"
}

case $case_name in
sigwait)
	FOLD_SAMPLE=time@1ms both "$PROGS/prog_sigmask" sigwait
	same
	grep -q '^sigwait rc=0 sig=SIGUSR1$' fold.out || fail "$(cat fold.out fold.err)"
	grep -q '^sigtimedwait rc=-1 errno=Resource temporarily unavailable$' fold.out || fail "$(cat fold.out)"
	check "$(only_trace)" --min-samples 100 --threads 2
	;;
signalfd)
	FOLD_SAMPLE=time@1ms both "$PROGS/prog_sigmask" signalfd
	same
	grep -q '^signalfd read=128 first=SIGUSR1$' fold.out || fail "$(cat fold.out fold.err)"
	check "$(only_trace)" --min-samples 100
	;;
sigmask)
	# Query round-trips, and a thread that blocks everything is sampled.
	FOLD_SAMPLE=time@1ms both "$PROGS/prog_sigmask" mask
	same
	grep -q '^all: .* SIGRTMIN+4 blocked$' fold.out || fail "$(cat fold.out)"
	check "$(only_trace)" --min-samples 150 --stack-in-exe 0.8
	;;
sig_pause)
	FOLD_SAMPLE=time@1ms both "$PROGS/prog_sigmask" sigpause
	same
	grep -q '^sigpause rc=-1 errno=Interrupted system call full=1$' fold.out || fail "$(cat fold.out)"
	;;
sig_longjmp)
	# The program's SIGALRM handler siglongjmps out every 200 us: sampling
	# must go on for the whole 1.5 s (a one-shot timer re-armed after the
	# sample's work, or a guard left raised, would stop it).
	# The samples' CPU time must cover the program's (load-independent).
	FOLD_SAMPLE=time@1ms both "$PROGS/prog_sigmask" longjmp
	same
	cpu=$(sed -n 's/^cpu_ms //p' fold.err)
	[ -n "$cpu" ] || fail "no cpu_ms: $(cat fold.err)"
	check "$(only_trace)" --cpu-ms $((cpu * 8 / 10)):$((cpu + 100)) --min-samples 100
	;;
sig_rawblock)
	# Blocked behind our wrappers' back: the lost samples are reported.
	FOLD_SAMPLE=time@1ms both "$PROGS/prog_sigmask" rawblock
	same
	check "$(only_trace)" --stat "samples.dropped.signal_blocked>=100"
	grep -q '^fold: thread [0-9]* kept the sampling signal blocked' fold.err || fail "not said: $(cat fold.err)"
	grep -q '^fold: wrote .* dropped: .*signal_blocked' fold.err || fail "not in the summary: $(cat fold.err)"
	;;
coroutines)
	FOLD_SAMPLE=time@1ms both "$PROGS/prog_coro" coro
	same
	grep -q '^coroutines: 4 stacks, 0 guard zones touched, many switches$' fold.out || fail "$(cat fold.out)"
	check "$(only_trace)" --min-samples 200
	;;
altstack)
	FOLD_SAMPLE=time@1ms both "$PROGS/prog_coro" altstack
	same
	grep -q '^SA_ONSTACK handler on my stack: 1, saw SS_ONSTACK: 1$' fold.out || fail "$(cat fold.out)"
	check "$(only_trace)" --min-samples 100
	;;
sleeps)
	# Each call lasts, with fold, within 2 ms of what it lasts without
	# (default period and 1 ms sampling); return values are the same.
	ms=300
	# A loaded machine makes every wake-up late (see the retries below).
	"$PROGS/prog_wait" sleeps $ms >plain.out
	for s in default time@1ms; do
		if [ $s = default ]; then unset FOLD_SAMPLE; else export FOLD_SAMPLE=$s; fi
		LD_PRELOAD="$LIBFOLD" "$PROGS/prog_wait" sleeps $ms >fold.out 2>fold.err || fail "program failed: $(cat fold.err)"
		awk '{ print $1, $3, $4 }' plain.out >a.txt
		awk '{ print $1, $3, $4 }' fold.out >b.txt
		cmp -s a.txt b.txt || fail "results differ ($s): $(diff a.txt b.txt)"
		# A wake-up made late by another job's burst is no fold error: a
		# call over the tolerance is judged again on up to two more pairs
		# of runs, without and with fold. fold fails only when it
		# overshoots every time and the runs without fold never do
		# (a real fold delay shows in every run).
		try=1
		until paste plain.out fold.out | awk -v s=$s '$6 > $2 + 2000 { print "over: " $1 " overshot by " $6 " us with fold (" s "), " $2 " us without"; bad = 1 } END { exit bad }'; do
			"$PROGS/prog_wait" sleeps $ms >plain.out
			worst=$(awk '{ if ($2 > w) w = $2 } END { print w + 0 }' plain.out)
			[ "$worst" -le 1000 ] ||
				skip "loaded machine: a sleep overshot by ${worst} us without fold (load average $(cut -d' ' -f1 /proc/loadavg))"
			[ $try -lt 3 ] || fail "$(paste plain.out fold.out)"
			try=$((try + 1))
			LD_PRELOAD="$LIBFOLD" "$PROGS/prog_wait" sleeps $ms >fold.out 2>fold.err || fail "program failed: $(cat fold.err)"
		done
		rm -f ./*.trace
	done
	;;
sems)
	FOLD_SAMPLE=time@1ms both "$PROGS/prog_wait" sems
	same
	grep -q '^sem_timedwait rc=-1 errno=Connection timed out$' fold.out || fail "$(cat fold.out)"
	;;
crash_reporter)
	for mode in reraise exit abort; do
		FOLD_SAMPLE=time@1ms both "$PROGS/prog_crashrep" $mode
		same
		grep -q '^reporter: signal' fold.out || fail "$mode: the reporter did not run: $(cat fold.out fold.err)"
		sig=11; [ $mode = abort ] && sig=6
		# The trace is written before the handler runs; it says the
		# process died of the signal only when it does: not when the
		# handler ends it with _exit (the exit status is 42, not a signal).
		check "$(only_trace)" --min-samples 50 --marker "signal $sig (to the program's handler)"
		if [ $mode = exit ]; then
			grep -q "^fold: signal" fold.err && fail "$mode: a crash flush for a process that exited: $(cat fold.err)"
			grep -q "^fold: wrote" fold.err || fail "$mode: no final flush: $(cat fold.err)"
			check "$(only_trace)" --stat-absent exit.signal
		else
			grep -q "^fold: signal $sig: trace flushed" fold.err || fail "$mode: no flush: $(cat fold.err)"
			check "$(only_trace)" --stat exit.signal=$sig
		fi
		rm -f ./*.trace
	done
	;;
crash_gfortran)
	FOLD_SAMPLE=time@1ms both "$PROGS/prog_fcrash"
	same
	grep -q '^Program received signal SIGSEGV' plain.err || fail "libgfortran's handler did not run without fold: $(cat plain.err)"
	grep -q '^Program received signal SIGSEGV' fold.err || fail "libgfortran's handler did not run: $(cat fold.err)"
	grep -q '^fold: signal 11: trace flushed' fold.err || fail "no flush: $(cat fold.err)"
	check "$(only_trace)" --min-samples 50 --stat exit.signal=11
	;;
idle_threads)
	# 64 threads blocked for 1 s at 1 ms sampling: not woken. Woken, each
	# sample (~20 us) would cost them ~1.3 s of CPU; the main thread alone
	# is still sampled on wall time (~20 ms).
	FOLD_SAMPLE=time@1ms both "$PROGS/prog_idle" idle 64 1000
	same
	cpu=$(sed -n 's/^cpu_ms //p' fold.err)
	[ -n "$cpu" ] && [ "$cpu" -le 100 ] || fail "64 idle threads cost ${cpu} ms of CPU in 1 s under fold: $(cat fold.err)"
	check "$(only_trace)" --info sample.outside=cpu
	;;
idle_region)
	# Wall time inside a region (its waits are sampled), CPU time outside
	# (a sleeping thread is not woken); FOLD_SAMPLE_OUTSIDE=wall: both.
	FOLD_SAMPLE=time@2ms both "$PROGS/prog_idle" region 600
	same
	timed_check "$(only_trace)" --samples-in-region 100 --samples-outside 0:5
	rm -f ./*.trace
	FOLD_SAMPLE_OUTSIDE=wall FOLD_SAMPLE=time@2ms both "$PROGS/prog_idle" region 600
	same
	timed_check "$(only_trace)" --samples-in-region 100 --samples-outside 100:400 --info sample.outside=wall
	rm -f ./*.trace
	# Regions (0.3 ms) shorter than the period (1 ms): the wall clock keeps
	# what was left of its period across them, so ~450 ms inside regions
	# give ~450 samples (a fresh period at each switch would give none).
	FOLD_SAMPLE=time@1ms both "$PROGS/prog_idle" short 1500
	same
	timed_check "$(only_trace)" --samples-in-region 150 --regions short=1500
	rm -f ./*.trace
	FOLD_SAMPLE_OUTSIDE=bogus LD_PRELOAD="$LIBFOLD" "$PROGS/prog_idle" region 10 >/dev/null 2>fold.err ||
		fail "program failed"
	grep -q '^fold: FOLD_SAMPLE_OUTSIDE="bogus" is not valid: expected cpu or wall; using cpu' fold.err ||
		fail "no message for a bad value: $(cat fold.err)"
	;;
*)
	fail "unknown case"
	;;
esac
