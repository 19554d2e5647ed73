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

# status PROGRAM ARGS...: runs with libfold.so preloaded and prints the exit
# status (128+N for a signal), never failing itself.
status() { set +e; LD_PRELOAD="$LIBFOLD" "$@" >out.txt 2>err.txt; echo $?; set -e; }
ulimit -c 0 2>/dev/null || true

case $case_name in
regions)
	FOLD_SAMPLE=time@1ms preload "$PROGS/prog_regions" 200 >/dev/null || fail "program failed"
	t=$(only_trace)
	grep -q "^fold: wrote $PWD/$t" err.txt || fail "no exit summary naming $PWD/$t: $(cat err.txt)"
	check "$t" --regions outer=200 --regions inner=600 --app-counter items=4200 \
		--counter-in-samples items --min-samples 50 --stack-in-exe 0.9 --threads 1 \
		--info sample.source=time --info sample.period=1000000 --info-present clock.tick_hz \
		--info-present exe --info-present cmdline --stat "samples.taken>=50" --stat threads=1 \
		--stat "bytes.written>=100" --stat "chunks.written>=1"
	;;
software_events)
	# Each software event fold offers counts what the kernel counts for the
	# thread (getrusage, the program's own moves between CPUs): a context
	# switch or a migration happens in the kernel, and a page fault may too
	# (inside a system call); a user-space-only event reads 0 or half.
	FOLD_SAMPLE=time@5ms FOLD_COUNTERS=perf::CONTEXT-SWITCHES,perf::PAGE-FAULTS,perf::CPU-MIGRATIONS \
		preload "$PROGS/prog_swevents" >out.txt || fail "program failed"
	t=$(only_trace)
	if grep -q "perf_event_paranoid" err.txt; then
		echo "SKIP: this machine allows user-space counting only: $(cat err.txt)"
		exit 77
	fi
	sw=$(sed -n 's/.*switches=\([0-9]*\).*/\1/p' out.txt)
	pf=$(sed -n 's/.*faults=\([0-9]*\).*/\1/p' out.txt)
	mg=$(sed -n 's/.*migrations=\([0-9]*\).*/\1/p' out.txt)
	[ -n "$sw" ] && [ -n "$pf" ] && [ -n "$mg" ] || fail "no counts from the program: $(cat out.txt)"
	# 300 sleeps switch at least 300 times; 1000 fresh pages fault 1000
	# times (half of them in the kernel); fold counts from its start, so
	# at most what the thread's whole life counted (a little slack for
	# fold's own exit).
	check "$t" --counter-range "perf::CONTEXT-SWITCHES=270:$((sw + 50))" \
		--counter-range "perf::PAGE-FAULTS=900:$((pf + 50))" \
		--counter-range "perf::CPU-MIGRATIONS=$((mg * 9 / 10)):$((mg * 10 + 1000))"
	;;
software_events_unprivileged)
	# Where perf_event_paranoid allows user-space counting only, a
	# kernel-side event is not offered as a counter that reads 0: it is
	# missing, with the reason; page faults are still counted (user space).
	[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null ||
		{ echo "SKIP: needs root and setpriv to run as an unprivileged user"; exit 77; }
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ] ||
		{ echo "SKIP: perf_event_paranoid < 2: unprivileged users count kernel events"; exit 77; }
	chmod 777 "$work"
	FOLD_SAMPLE=time@5ms FOLD_COUNTERS=perf::CONTEXT-SWITCHES,perf::PAGE-FAULTS \
		setpriv --reuid=65534 --regid=65534 --clear-groups env LD_PRELOAD="$LIBFOLD" \
		"$PROGS/prog_swevents" >out.txt 2>err.txt || fail "program failed: $(cat err.txt)"
	t=$(only_trace)
	grep -q "CONTEXT-SWITCHES.*perf_event_paranoid" err.txt || fail "no reason given: $(cat err.txt)"
	check "$t" --counter-missing perf::CONTEXT-SWITCHES --counter-range "perf::PAGE-FAULTS=450:2000"
	;;
example_phases)
	preload "$EXAMPLES/phases" 50 >/dev/null || fail "program failed"
	t=$(only_trace)
	check "$t" --regions timestep=50 --app-counter flops=$((50 * 13200000)) --min-samples 5
	;;
threads_many)
	FOLD_SAMPLE=time@1ms preload "$PROGS/prog_threads" many 1000 || fail "program failed"
	t=$(only_trace)
	check "$t" --threads 1001 --regions work=1000 --app-counter items=1000 --stat threads=1001
	;;
threads_exit)
	FOLD_SAMPLE=time@1ms preload "$PROGS/prog_threads" exit 6 || fail "program failed"
	t=$(only_trace)
	check "$t" --threads 7 --regions work=120 --app-counter items=120 --min-samples 100 --stack-in-exe 0.9
	;;
example_threads)
	preload "$EXAMPLES/threads" 3 20 >/dev/null || fail "program failed"
	t=$(only_trace)
	check "$t" --threads 4 --regions work=60 --app-counter items=60
	;;
fork_exit | fork__exit)
	mode=exit; [ "$case_name" = fork__exit ] && mode=_exit
	FOLD_SAMPLE=time@1ms preload "$PROGS/prog_fork" $mode || fail "program failed"
	set -- *.trace
	[ $# -eq 2 ] || fail "expected 2 trace files, found: $*"
	ppid=""; parent=""; child=""
	for f in "$@"; do
		if "$TRACE_CHECK" "$f" --info-present fork.parent_pid 2>/dev/null; then child=$f; else parent=$f; fi
	done
	[ -n "$parent" ] && [ -n "$child" ] || fail "no child trace with fork.parent_pid"
	check "$parent" --regions parent=20 --regions child=0 --min-threads 2
	ppid=$(echo "$parent" | sed 's/.*\.\([0-9]*\)\.trace/\1/')
	check "$child" --regions child=5 --regions parent=0 --app-counter items=5 --threads 1 \
		--info fork.parent_pid="$ppid" --min-samples 20 --stack-in-exe 0.9
	;;
fork_stress)
	# Forks while three threads are inside fold_counter/fold_region/
	# fold_enter: no child may deadlock on a lock held at the fork.
	FOLD_QUIET=1 FOLD_SAMPLE=time@1ms preload "$PROGS/prog_forkstress" 40 >out.txt ||
		fail "$(cat out.txt err.txt)"
	n=$(ls fold.prog_forkstress.*.trace | wc -l)
	[ "$n" = 41 ] || fail "expected 41 traces (parent + 40 children), found $n"
	parent=""
	for f in fold.prog_forkstress.*.trace; do
		"$TRACE_CHECK" "$f" --info-present fork.parent_pid 2>/dev/null || parent=$f
	done
	check "$parent" --min-threads 4
	;;
exec_chain)
	preload "$PROGS/prog_exec" 3 || fail "program failed: $(cat err.txt)"
	n=0
	for g in 0 1 2 3; do
		found=""
		for f in fold.prog_exec.*.trace; do
			if "$TRACE_CHECK" "$f" --info exec.generation=$g 2>/dev/null; then found=$f; fi
		done
		[ -n "$found" ] || fail "no trace of exec generation $g: $(ls)"
		want=5; [ $g = 3 ] && want=6
		check "$found" --regions step=$want
		n=$((n + 1))
	done
	# system() ran a shell and posix_spawn ran true, both measured too.
	ls fold.*sh.*.trace >/dev/null 2>&1 || fail "no trace of the shell started by system()"
	ls fold.true.*.trace >/dev/null 2>&1 || fail "no trace of the posix_spawn child"
	;;
exec_clean)
	FOLD_SAMPLE=time@100us preload "$PROGS/prog_exec" clean 20 || fail "a child was disturbed: $(cat err.txt)"
	;;
dlopen)
	FOLD_SAMPLE=time@1ms preload "$PROGS/prog_dlopen" >out.txt || fail "program failed: $(cat err.txt)"
	t=$(only_trace)
	# The count of samples inside dlopen is judged only when the thread got
	# half a CPU there (75 ms of the constructor's 150): a 1 ms timer whose
	# thread waits for a CPU fires once for the periods it waited.
	cpu=$(sed -n 's/^dlopen_cpu_ms //p' out.txt)
	[ -n "$cpu" ] || fail "the program did not report its CPU time in dlopen: $(cat out.txt)"
	in_dlopen=30 in_loader=30 all=50 loaded=
	if [ "$cpu" -lt 75 ]; then
		loaded="the thread got $cpu ms of CPU in the constructor's 150 ms (machine loaded): all but the counts of samples checked"
		in_dlopen=1 in_loader=1 all=1
	fi
	check "$t" --module libfoldplugin.so --module-unloaded libfoldplugin.so \
		--frame-in-module libfoldplugin.so --regions plugin=1 --min-samples $all \
		--stat "samples.leaf_only.in_dlopen>=$in_dlopen" --max-sample-cpu-ms 20
	"$FOLD_CLI" dump "$t" | grep -q 'samples.dropped.in_dlopen' && fail "samples inside dlopen were dropped"
	# inside the loader the runtime does not unwind, but keeps the leaf: the
	# constructor's time is the plugin's work, under a root that says its
	# callers are unknown, and no sample carries another's CPU time
	"$FOLD_CLI" -q "$t" --json out.json 2>fold-err.txt || fail "fold failed: $(cat fold-err.txt)"
	python3 - out.json "$in_loader" <<'PY' || fail "the samples inside dlopen are misplaced"
import json, sys
d = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
hot = {h["function"]: h for h in d["hot_cpu"]}
assert "samples the runtime dropped" not in hot, hot["samples the runtime dropped"]
ct = d["call_tree"]
roots = {n["function"]: i for i, n in enumerate(ct) if n["parent"] == -1}
loader = roots.get("[not unwound: inside the dynamic loader]")
assert loader is not None and ct[loader]["total_samples"] >= want, sorted(roots)
kids = {n["function"]: n["total_samples"] for n in ct if n["parent"] == loader}
assert kids.get("plugin_work", 0) >= 0.7 * ct[loader]["total_samples"], kids
for f, h in hot.items():
    assert h["cpu_ns"] <= 2e6 * max(1, h["samples"]), (f, h)
PY
	[ -z "$loaded" ] || { echo "SKIP: $loaded"; exit 77; }
	;;
no_alloc_in_phdr)
	# No allocation of fold's inside dl_iterate_phdr (the loader's lock):
	# with the allocator's lock held by a thread whose sample unwinds (and
	# takes the loader's), the two wait for each other. Module scans at start,
	# dlopen and dlclose, and the filter reading every object's symbols.
	printf 'exclude plugin_*\n' >filter.txt
	for prog in prog_dlopen prog_dlopen_cyg; do
		FOLD_SAMPLE=time@1ms FOLD_FILTER=$PWD/filter.txt \
			LD_PRELOAD="$PROGS/libphdr_alloc_shim.so $LIBFOLD" "$PROGS/$prog" >out.txt 2>err.txt ||
			fail "$prog failed: $(cat err.txt)"
		line=$(grep '^phdr_alloc_shim:' err.txt) || fail "$prog: the shim did not report: $(cat err.txt)"
		case $line in
		"phdr_alloc_shim: 0 allocation(s)"*) ;;
		*) fail "$prog under fold: $line" ;;
		esac
	done
	rm -f fold.*.trace*
	;;
crash_segv)
	s=$(FOLD_SAMPLE=time@1ms status "$PROGS/prog_crash" segv)
	[ "$s" = 139 ] || fail "exit status $s, expected 139 (SIGSEGV)"
	t=$(only_trace)
	grep -q "fold: signal 11: trace flushed to $PWD/$t" err.txt || fail "no crash line: $(cat err.txt)"
	check "$t" --regions it=50 --min-samples 30 --stack-in-exe 0.9 --stat exit.signal=11
	;;
crash_abort)
	s=$(FOLD_SAMPLE=time@1ms status "$PROGS/prog_crash" abort)
	[ "$s" = 134 ] || fail "exit status $s, expected 134 (SIGABRT)"
	check "$(only_trace)" --regions it=50 --stat exit.signal=6
	;;
sigterm | sigint)
	sig=TERM; code=143; num=15
	[ "$case_name" = sigint ] && { sig=INT; code=130; num=2; }
	# A background job of a non-interactive shell starts with SIGINT ignored
	# (and fold leaves ignored signals alone): restore the default first.
	# env execs the program (same pid), preloaded only there.
	env --default-signal=$sig LD_PRELOAD="$LIBFOLD" FOLD_SAMPLE=time@1ms \
		"$PROGS/prog_crash" loop >out.txt 2>err.txt &
	pid=$!
	i=0; while ! grep -q ready out.txt 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	sleep 0.3
	kill -$sig $pid
	set +e; wait $pid; s=$?; set -e
	[ "$s" = $code ] || fail "exit status $s, expected $code (SIG$sig)"
	check "$(only_trace)" --min-samples 20 --stat exit.signal=$num --allow-unbalanced
	;;
own_signals)
	if ! FOLD_SAMPLE=time@1ms preload "$PROGS/prog_signals" >out.txt; then
		# The kernel checks ITIMER_PROF at scheduler ticks that find the
		# program running: on a busy machine it delivers a few ticks for
		# 300 ms of CPU with or without fold. Only then does a short count
		# not judge fold: the same program without fold must have got as few.
		grep -q "usr1=1 rt=1 same=1" out.txt || fail "program's handlers broken: $(cat out.txt err.txt)"
		"$PROGS/prog_signals" >plain.txt || {
			echo "SKIP: the kernel delivered few ITIMER_PROF ticks for 300 ms of CPU with fold ($(cat out.txt))" \
				"and without it ($(cat plain.txt)); load average $(cut -d' ' -f1 /proc/loadavg):" \
				"the program's own profiling timer cannot be judged on a machine this busy"
			exit 77
		}
		rm -f ./*.trace
		if ! FOLD_SAMPLE=time@1ms LD_PRELOAD="$LIBFOLD" "$PROGS/prog_signals" >out.txt 2>err.txt; then
			grep -q "usr1=1 rt=1 same=1" out.txt || fail "program's handlers broken: $(cat out.txt err.txt)"
			# The profiling ticks alone came short again: with more runnable
			# threads than CPUs the count varies from run to run (27 without
			# fold, then 11 with it, seen here); that judges the machine.
			load=$(cut -d' ' -f1 /proc/loadavg)
			if awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l >= n) }'; then
				echo "SKIP: ITIMER_PROF ticks with fold $(cat out.txt), without $(cat plain.txt), at load average $load on $(nproc) CPUs: too busy to judge the program's own profiling timer"
				exit 77
			fi
			fail "program's handlers broken: $(cat out.txt err.txt); without fold: $(cat plain.txt)"
		fi
	fi
	check "$(only_trace)" --min-samples 100
	;;
eintr_calls)
	# Every blocking call lasts its full timeout and returns what it returns
	# without fold, while 1 ms samples keep interrupting it.
	"$PROGS/prog_eintr" calls >plain.txt 2>plain-times.txt || fail "without fold: $(cat plain.txt plain-times.txt)"
	FOLD_SAMPLE=time@1ms preload "$PROGS/prog_eintr" calls >fold.txt ||
		fail "a call ended early under fold: $(cat fold.txt err.txt)"
	diff plain.txt fold.txt >diff.txt || fail "calls differ under fold: $(cat diff.txt)"
	# The waits were sampled (wall time), not skipped.
	check "$(only_trace)" --min-samples 2000 --threads 1
	;;
eintr_own)
	FOLD_SAMPLE=time@1ms preload "$PROGS/prog_eintr" own >out.txt ||
		fail "the program's own signals no longer interrupt: $(cat out.txt err.txt)"
	"$PROGS/prog_eintr" own >plain.txt || fail "without fold: $(cat plain.txt)"
	;;
nomalloc)
	FOLD_SAMPLE=time@100us preload "$PROGS/prog_nomalloc" >out.txt || fail "$(cat out.txt err.txt)"
	check "$(only_trace)" --min-samples 1000 --regions work=400 --app-counter items=400 --app-counter late=4 \
		--stat "chunks.written>=3"
	;;
unbalanced)
	FOLD_SAMPLE=time@1ms preload "$PROGS/prog_unbalanced" >/dev/null || fail "program failed: $(cat err.txt)"
	check "$(only_trace)" --allow-unbalanced --marker "unbalanced: exit without enter" \
		--marker "exit skipping inner regions" --marker "not open" --marker "thread ended inside" \
		--marker fold_pause --marker fold_resume --stat "regions.unbalanced>=5" \
		--stat "samples.dropped.paused>=50" --regions quiet=0 --regions after=1 \
		--stat "samples.dropped_cpu_ns.paused>=50000000" --max-sample-cpu-ms 20
	;;
bad_config)
	FOLD_SAMPLE=fast FOLD_STACK_DEPTH=-3 FOLD_JITTER=2 FOLD_SIGNAL=SIGKILL FOLD_ZLIB_LEVEL=x FOLD_CLOCK=sundial \
		preload "$PROGS/prog_regions" 5 >/dev/null || fail "program failed"
	for v in 'FOLD_SAMPLE="fast"' 'FOLD_STACK_DEPTH="-3"' 'FOLD_JITTER="2"' 'FOLD_SIGNAL="SIGKILL"' \
		'FOLD_ZLIB_LEVEL="x"' 'FOLD_CLOCK="sundial"'; do
		n=$(grep -c "^fold: $v is not valid: .*; using " err.txt || true)
		[ "$n" = 1 ] || fail "expected one line for $v, got $n: $(cat err.txt)"
	done
	check "$(only_trace)" --info sample.period=10000000 --info stack.depth=64 --info sample.signal=38 \
		--regions outer=5
	rm -f ./*.trace
	FOLD_SAMPLE=time@10us preload "$PROGS/prog_regions" 2 >/dev/null || fail "program failed"
	grep -q '^fold: FOLD_SAMPLE="time@10us" is not valid: period below the safe floor' err.txt ||
		fail "no floor message: $(cat err.txt)"
	rm -f ./*.trace
	FOLD_QUIET=1 preload "$PROGS/prog_regions" 2 >/dev/null || fail "program failed"
	[ ! -s err.txt ] || fail "FOLD_QUIET=1 but stderr has: $(cat err.txt)"
	;;
output_naming)
	FOLD_OUTPUT=trace.bin preload "$PROGS/prog_regions" 2 >/dev/null || fail "program failed"
	# Reported (and written) as an absolute path: the directory at start.
	grep -q "^fold: wrote $PWD/trace.bin " err.txt || fail "$(cat err.txt)"
	FOLD_OUTPUT=trace.bin preload "$PROGS/prog_regions" 2 >/dev/null || fail "program failed"
	grep -q "^fold: wrote $PWD/trace.1.bin " err.txt || fail "collision: $(cat err.txt)"
	check trace.bin --regions outer=2
	check trace.1.bin --regions outer=2
	FOLD_OUTPUT='x-%e-%h-%n.t' preload "$PROGS/prog_regions" 1 >/dev/null || fail "program failed"
	FOLD_OUTPUT='x-%e-%h-%n.t' preload "$PROGS/prog_regions" 1 >/dev/null || fail "program failed"
	h=$(hostname)
	[ -f "x-prog_regions-$h-0.t" ] && [ -f "x-prog_regions-$h-1.t" ] || fail "%n/%h/%e: $(ls)"
	OMPI_COMM_WORLD_RANK=3 preload "$PROGS/prog_regions" 1 >/dev/null || fail "program failed"
	ls fold.prog_regions.3.*.trace >/dev/null || fail "rank not in the default name: $(ls)"
	check fold.prog_regions.3.*.trace --info mpi.rank=3
	FOLD_OUTPUT='r%r-%p.bin' preload "$PROGS/prog_regions" 1 >/dev/null || fail "program failed"
	ls rnorank-*.bin >/dev/null || fail "%r without a rank: $(ls)"
	FOLD_OUTPUT=/nonexistent/dir/t.bin preload "$PROGS/prog_regions" 1 >/dev/null ||
		fail "an unwritable output must not fail the program"
	grep -q '^fold: cannot create the trace file' err.txt || fail "$(cat err.txt)"
	;;
counters_default)
	preload "$PROGS/prog_regions" 50 >/dev/null || fail "program failed"
	t=$(only_trace)
	mode=$("$TRACE_CHECK" "$t" --print | sed -n 's/^  info counters.mode = //p')
	case $mode in
	software)
		check "$t" --counter-def perf::TASK-CLOCK --counter-def perf::PAGE-FAULTS \
			--counter-def perf::CONTEXT-SWITCHES --counter-missing PAPI_TOT_INS \
			--counter-in-samples perf::TASK-CLOCK --counter-in-samples items
		grep -q "^fold: no requested counter can be counted here (PAPI_TOT_INS: .*); recording software counters" err.txt ||
			fail "fallback not said on stderr: $(cat err.txt)"
		;;
	hardware) check "$t" --counter-def PAPI_TOT_INS --counter-in-samples PAPI_TOT_INS ;;
	none) check "$t" --counter-missing PAPI_TOT_INS --counter-missing perf::TASK-CLOCK ;;
	*) fail "counters.mode is \"$mode\"" ;;
	esac
	;;
counters_requested)
	FOLD_COUNTERS='perf::PAGE-FAULTS, bogus::EVENT' preload "$PROGS/prog_regions" 20 >/dev/null ||
		fail "program failed"
	check "$(only_trace)" --counter-def perf::PAGE-FAULTS --counter-in-samples perf::PAGE-FAULTS \
		--counter-missing bogus::EVENT --info counters.mode=software --regions outer=20
	n=$(grep -c '^fold: counter bogus::EVENT: unknown event' err.txt || true)
	[ "$n" = 1 ] || fail "expected one line about bogus::EVENT: $(cat err.txt)"
	rm -f ./*.trace
	FOLD_COUNTERS=none preload "$PROGS/prog_regions" 5 >/dev/null || fail "program failed"
	check "$(only_trace)" --info counters.mode=none --counter-def items
	;;
sample_delivery)
	# A wall-clock timer's samples record their delivery (deadline to the
	# handler's entry; left out when a preemption pushed it past a period),
	# CPU-time timers' never (they expire at the scheduler's ticks).
	FOLD_SAMPLE=time@1ms preload "$PROGS/prog_regions" 200 >/dev/null || fail "program failed (time)"
	t=$(only_trace)
	check "$t" --min-samples 50 --delivery-share 0.5:1
	# and the stop probe answered: the onset within 50 us of the deadline,
	# the return after the handler under 50 us (-0.9 and 0.4 us on a VM)
	check "$t" --info-range sample.stop_onset_ns=-50000:50000 --info-range sample.return_ns=0:50000 \
		--info-range sample.stop_probes=8:16
	rm -f ./*.trace
	FOLD_SAMPLE=cputime@1ms preload "$PROGS/prog_regions" 200 >/dev/null || fail "program failed (cputime)"
	t=$(only_trace)
	check "$t" --min-samples 50 --delivery-share 0:0
	;;
cpu_time)
	# A sample's cpu_ns adds up to the program's CPU time (~160 ms) whichever
	# way it is read: TASK-CLOCK among the counters, the group's enabled time
	# (PAGE-FAULTS only), clock_gettime (no counters).
	for c in default perf::PAGE-FAULTS none; do
		if [ $c = default ]; then unset FOLD_COUNTERS; else export FOLD_COUNTERS=$c; fi
		FOLD_SAMPLE=time@1ms preload "$PROGS/prog_regions" 100 >/dev/null || fail "program failed ($c)"
		t=$(only_trace)
		check "$t" --cpu-ms 100:400 --min-samples 50
		[ $c = none ] || check "$t" --info-present counters.read
		[ $c = perf::PAGE-FAULTS ] && check "$t" --info counters.read=read # software: never rdpmc
		rm -f ./*.trace
	done
	unset FOLD_COUNTERS
	;;
sample_perf)
	FOLD_SAMPLE=perf::TASK-CLOCK@1000000 preload "$PROGS/prog_threads" exit 4 || fail "program failed"
	check "$(only_trace)" --info sample.source=papi --info sample.backend=perf_event --info sample.period=1000000 \
		--min-samples 80 --threads 5 --regions work=80 --stack-in-exe 0.9
	;;
foldrun)
	foldrun=$(dirname "$LIBFOLD")/foldrun
	"$foldrun" -e time@2ms -c perf::PAGE-FAULTS -o 'run-%n.bin' -- "$PROGS/prog_regions" 30 >/dev/null 2>err.txt ||
		fail "foldrun failed: $(cat err.txt)"
	check run-0.bin --info sample.period=2000000 --info counters.requested=perf::PAGE-FAULTS --regions outer=30
	set +e; "$foldrun" -e time@1us true 2>err.txt; s=$?; set -e
	[ "$s" = 2 ] && grep -q '^foldrun: -e "time@1us": period below the safe floor' err.txt || fail "bad -e: $s $(cat err.txt)"
	set +e; "$foldrun" ./no-such-program 2>err.txt; s=$?; set -e
	[ "$s" = 127 ] || fail "missing program: status $s"
	"$foldrun" --list-events >events.txt || fail "--list-events failed"
	grep -q '^  perf::TASK-CLOCK  *\(yes\|no\) ' events.txt || fail "--list-events: $(cat events.txt)"
	# Installed layout: bin/foldrun finds ../lib/libfold.so.
	mkdir -p p/bin p/lib
	cp "$foldrun" p/bin/ && cp "$LIBFOLD" p/lib/
	p/bin/foldrun -q -o inst.bin "$PROGS/prog_regions" 3 >/dev/null 2>err.txt || fail "installed foldrun: $(cat err.txt)"
	check inst.bin --regions outer=3
	;;
exit_status)
	s=$(status sh -c 'exit 7')
	[ "$s" = 7 ] || fail "exit status $s of sh -c 'exit 7'"
	s=$(status "$PROGS/prog_crash" none)
	[ "$s" = 3 ] || fail "exit status $s, expected 3"
	;;
stop_once)
	# The stop probe (~1.5 ms: 16 timer signals) runs once per run, in a
	# process that takes wall-clock samples (issue 28). A process that ends
	# before its first sample measures nothing and says why.
	# (one sample a second: a /bin/true on a busy machine takes none either)
	FOLD_SAMPLE=time@1s preload /bin/true || fail "/bin/true failed: $(cat err.txt)"
	t=$(only_trace)
	check "$t" --info "sample.stop_from=none: no wall-clock sample was taken (the probe runs once one is)" \
		--info-absent sample.stop_onset_ns
	rm -f ./*.trace
	# A parent sampled for 200 ms starts 4 children that are sampled for 20 ms
	# each and each start a /bin/true: the parent measures once, before its
	# first child (it has lived long enough for the probe to be under 1% of
	# its time); the children take its figure; a /bin/true needs none (or,
	# sampled on a busy machine, takes its parent's).
	FOLD_SAMPLE=time@2ms preload "$PROGS/prog_spawn" -w 200 4 "$PROGS/prog_spawn" -w 20 1 /bin/true >/dev/null ||
		fail "prog_spawn failed: $(cat err.txt)"
	probe=0 parent=0 true=0 truexe=$(readlink -f /bin/true)
	for f in *.trace; do
		if "$TRACE_CHECK" "$f" --info exe="$truexe" 2>/dev/null; then
			"$TRACE_CHECK" "$f" --max-samples 0 --info-absent sample.stop_onset_ns 2>/dev/null ||
				"$TRACE_CHECK" "$f" --info sample.stop_from=parent --info-range sample.stop_probes=8:16 ||
				fail "$f: a /bin/true with samples and without its parent's figure"
			true=$((true + 1))
		elif "$TRACE_CHECK" "$f" --info sample.stop_from=probe --info-range sample.stop_probes=8:16 2>/dev/null; then
			probe=$((probe + 1))
		elif "$TRACE_CHECK" "$f" --info sample.stop_from=parent --info-range sample.stop_probes=8:16 2>/dev/null; then
			parent=$((parent + 1))
		else
			"$TRACE_CHECK" "$f" --print >&2 || true
			fail "$f: a sampled process with no stop figure, probed or from its parent"
		fi
	done
	[ "$probe/$parent/$true" = 1/4/4 ] ||
		fail "expected 1 process that probed, 4 with the parent's figure, 4 /bin/true; got $probe/$parent/$true"
	# The children's environment is the one they get without fold.
	FOLD_SAMPLE=time@2ms "$PROGS/prog_spawn" 1 /usr/bin/env >env-plain.txt || fail "env without fold"
	FOLD_SAMPLE=time@2ms preload "$PROGS/prog_spawn" -w 200 1 /usr/bin/env >env-fold.txt || fail "env under fold"
	grep -v '^LD_PRELOAD=' env-fold.txt | grep -v '^wall_us=' >a.txt
	grep -v '^wall_us=' env-plain.txt >b.txt
	diff b.txt a.txt >diff.txt || fail "a child's environment differs under fold: $(cat diff.txt)"
	rm -f ./*.trace
	# A process killed after living one flush interval (at least 150 ms)
	# keeps the figure, measured in a sample's handler.
	FOLD_FLUSH_INTERVAL=50ms FOLD_SAMPLE=time@2ms LD_PRELOAD="$LIBFOLD" "$PROGS/prog_spawn" -w 5000 1 /bin/true \
		>/dev/null 2>err.txt &
	pid=$!
	sleep 1
	kill -KILL $pid
	wait $pid 2>/dev/null || true
	check "$(only_trace)" --info sample.stop_from=probe --info-range sample.stop_probes=8:16 --min-samples 10
	;;
start_cost)
	# What fold adds to a process that does nothing, from its start to its
	# reaping, alone and as a child of a measured process's posix_spawn loop
	# (issue 28). Page faults are counted exactly, however busy the machine:
	# each costs 10-90 us on a VM, and what made a process cost milliseconds
	# (a 1 MiB table read at every exit, buffers touched page by page)
	# showed there first. The children's CPU time is compared with their
	# CPU time without fold (a busy machine slows both alike): fold may add
	# at most 2.5 times it (it added 3.7 times, the stop probe and those
	# faults). The wall time is judged on a machine quiet enough to time a
	# /bin/true: fold adds at most 1 ms there, or twice the /bin/true's own
	# time if that is more (a /bin/true of 0.6 ms cost 2.3-2.7 ms more).
	n=40
	field() { echo "$1" | sed -n "s/.*$2=\([0-9.]*\).*/\1/p"; }
	# judge WHAT A1 A2 B C LIMIT: B and C against the mean of A1 and A2
	judge() {
		awk -v w="$1" -v a1="$2" -v a2="$3" -v b="$4" -v c="$5" -v lim="$6" 'BEGIN { a = (a1 + a2) / 2
			printf "%s per process: %.1f without fold, +%.1f under fold, +%.1f in a measured parent'"'"'s loop (at most %s)\n", w, a, b - a, c - a, lim >"/dev/stderr"
			exit !(b - a <= lim && c - a <= lim) }'
	}
	# Up to three rounds of without / under / under / without: the page
	# faults are judged in each (exact), the CPU time in the best round (a
	# burst of other work during one measurement (CI: 4.3 times, then 1.6-2
	# times alone) is not fold's cost; a cost fold adds shows in every round).
	for round in 1 2 3; do
		rm -f ./*.trace ./*.trace.live
		a1=$("$PROGS/prog_spawn" $n /bin/true) || fail "prog_spawn without fold"
		b=$(CHILD_PRELOAD="$LIBFOLD" FOLD_QUIET=1 "$PROGS/prog_spawn" $n /bin/true) || fail "prog_spawn, children under fold"
		c=$(LD_PRELOAD="$LIBFOLD" FOLD_QUIET=1 "$PROGS/prog_spawn" $n /bin/true) || fail "prog_spawn under fold"
		a2=$("$PROGS/prog_spawn" $n /bin/true) || fail "prog_spawn without fold"
		[ "$(ls ./*.trace | wc -l)" -eq $((2 * n + 1)) ] || fail "expected $((2 * n + 1)) traces, found $(ls ./*.trace | wc -l)"
		echo "round $round: without fold: $a1 / $a2; children under fold: $b; parent and children under fold: $c" >&2
		judge "page faults" "$(field "$a1" faults)" "$(field "$a2" faults)" "$(field "$b" faults)" "$(field "$c" faults)" 150 ||
			fail "a process under fold takes more than 150 page faults more than without (see above)"
		ca1=$(field "$a1" cpu_us) ca2=$(field "$a2" cpu_us)
		if awk -v x="$ca1" -v y="$ca2" 'BEGIN { exit !(x > 1.5 * y || y > 1.5 * x) }'; then
			[ $round -lt 3 ] && continue
			echo "SKIP ($case_name): the CPU time cannot be judged here: a /bin/true without fold took $ca1 us, then $ca2 us (medians of $n; load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
			exit 77
		fi
		lim=$(awk -v x="$ca1" -v y="$ca2" 'BEGIN { printf "%.0f", 2.5 * (x + y) / 2 }')
		judge "CPU us" "$ca1" "$ca2" "$(field "$b" cpu_us)" "$(field "$c" cpu_us)" "$lim" && break
		[ $round -lt 3 ] || fail "a process under fold costs more than 2.5 times its own CPU time more, in three rounds (see above)"
	done
	base=$(awk -v a1="$(field "$a1" wall_us)" -v a2="$(field "$a2" wall_us)" 'BEGIN { print (a1 + a2) / 2 }')
	if awk -v b="$base" 'BEGIN { exit !(b > 1500) }'; then
		echo "SKIP ($case_name): page faults and CPU time as judged above; the wall time cannot be judged here: a /bin/true without fold took ${base} us from its start to its reaping (median of $n, under 1500 us on a quiet machine; load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
		exit 77
	fi
	lim=$(awk -v b="$base" 'BEGIN { printf "%.0f", 2 * b > 1000 ? 2 * b : 1000 }')
	judge "wall us" "$(field "$a1" wall_us)" "$(field "$a2" wall_us)" "$(field "$b" wall_us)" "$(field "$c" wall_us)" "$lim" ||
		fail "a process under fold costs more than $lim us more than without (see above)"
	;;
*)
	fail "unknown case"
	;;
esac
