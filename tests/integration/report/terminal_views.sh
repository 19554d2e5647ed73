#!/bin/sh
# terminal_views.sh CASE: the terminal summary of real runs, as a user reads
# it at 80 and 100 columns (COLUMNS), checked for the answer it must give.
#   plain: a program without regions, beside an idle poll() helper thread:
#          where the CPUs worked (its functions, with lines and sample
#          counts), the helper classed idle and kept out of that list, how
#          to record a region; the same from `fold profile`.
#   openmp: examples/openmp_stencil on 2 threads: outlined regions named
#          "parallel region N in main", the worker classed, the thread
#          doing twice the work named slowest; a parallel region's routine
#          timeline starting at its own code (prog_omp_calls), an API
#          region's inside it too, and an API region's at its own calls
#          when one callee holds 98% of its time.
#   mpi:   2 ranks with a planted 3x compute imbalance: the imbalance table
#          names rank 1 as the slowest, with a load balance (mean/max) well
#          below 1.
#          The HTML report of that run in Chromium: the CPU view, its
#          thread selector and the imbalance table naming rank 1. A
#          singleton run with its orted: 1 MPI rank among 3 processes.
# Needs FOLD_CLI, FOLDRUN, PROGS, EXAMPLES, CPU_SHARE, PYTHON, CHECK_HTML.
set -eu
case_name=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/fold-term-$case_name.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
unset FOLD_SAMPLE FOLD_COUNTERS FOLD_OUTPUT FOLD_FILTER FOLD_SAMPLE_OUTSIDE 2>/dev/null || true
export FOLD_QUIET=1

fail() {
	echo "FAIL ($case_name): $*" >&2
	for f in out*.txt; do [ -f "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }; done
	exit 1
}
has() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2'"; }
# fits FILE WIDTH: no line wider than WIDTH columns (code points: fold writes UTF-8)
fits() {
	"$PYTHON" -c 'import sys
w = int(sys.argv[2])
bad = [l for l in open(sys.argv[1], encoding="utf-8").read().split("\n") if len(l) > w]
for l in bad: print("%d columns (> %d): %s" % (len(l), w, l), file=sys.stderr)
sys.exit(1 if bad else 0)' "$1" "$2" || fail "$1: lines wider than $2 columns"
}
# section FILE HEADING: the lines of the section starting at HEADING, up to the next blank line
section() { awk -v h="$2" 'index($0, h) == 1 { on = 1 } on && /^$/ { exit } on' "$1"; }

case $case_name in
plain)
	"$PYTHON" "$CPU_SHARE" --min-share 0.3 --judge "where the CPUs worked" -- FOLD_SAMPLE_OUTSIDE=wall \
		"$FOLDRUN" -q -o plain.trace "$PROGS/prog_idle_helper" 40 >/dev/null || exit $?
	for w in 80 100; do
		COLUMNS=$w LC_ALL=C.UTF-8 "$FOLD_CLI" -q plain.trace >out$w.txt 2>err.txt || fail "fold: $(cat err.txt)"
		fits out$w.txt $w
		has out$w.txt "Where the CPUs worked"
		has out$w.txt "No region was recorded"
		has out$w.txt "fold_enter()"
		# the hottest function first, with its CPU time, samples and line
		row=$(section out$w.txt "Where the CPUs worked" | sed -n 3p)
		echo "$row" | grep -q "divide_chain.*prog_idle_helper.c:[0-9]" ||
			fail "the first function where the CPUs worked is not divide_chain at its line: '$row'"
		echo "$row" | grep -Eq "^ +[0-9.]+ (s|ms) +[0-9.]+% +[0-9]+ " ||
			fail "no CPU time, share and sample count in '$row'"
		section out$w.txt "Where the CPUs worked" | grep -q multiply_chain || fail "multiply_chain not listed"
		# the poll() helper: classed idle, summarised, never among the functions
		has out$w.txt "1 idle helper thread"
		if section out$w.txt "Where the CPUs worked" | grep -qi poll; then
			fail "the idle helper's poll is listed where the CPUs worked"
		fi
	done
	COLUMNS=80 "$FOLD_CLI" profile -q plain.trace >outp.txt 2>err.txt || fail "fold profile: $(cat err.txt)"
	fits outp.txt 80
	has outp.txt "No region was recorded"
	has outp.txt "divide_chain"
	# 1 ms of work, 3 ms of sleep: a sample in the sleep carries the CPU
	# time the work used since the previous sample; the sleep is not where
	# the CPU worked (it read 30-50% of the thread's CPU time)
	"$PYTHON" "$CPU_SHARE" --min-share 0.1 --judge "CPU before waits" -- FOLD_SAMPLE=time@1ms \
		"$FOLDRUN" -q -o bursty.trace "$PROGS/prog_idle_helper" 300 bursty >/dev/null || exit $?
	"$FOLD_CLI" -q bursty.trace --json bursty.json 2>err.txt || fail "fold --json: $(cat err.txt)"
	"$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
hot = {h["function"]: h for h in d["hot_cpu"]}
total = sum(h["cpu_ns"] for h in d["hot_cpu"])
sleep = sum(h["cpu_ns"] for f, h in hot.items() if "nanosleep" in f)
before = hot.get("[not sampled: before a wait]", {}).get("cpu_ns", 0)
work = hot.get("divide_chain", {}).get("cpu_ns", 0)
print("CPU: divide_chain %.1f ms, before a wait %.1f ms, in the sleep %.1f ms, of %.1f ms" %
      (work / 1e6, before / 1e6, sleep / 1e6, total / 1e6))
if not total or sleep > 0.05 * total:
    sys.exit("the sleep holds %.0f%% of the CPU time" % (100 * sleep / max(total, 1)))
if before <= 0 or work + before < 0.9 * total:
    sys.exit("the work and the time before the waits hold %.0f%% of the CPU time" % (100 * (work + before) / total))
# the list of the main thread (the thread selector) adds up to its CPU time:
# it has the before-wait row too, which is not its top function
main = [t for t in d["threads"] if t["index"] == 0][0]
rows = {h["function"]: h["cpu_ns"] for h in main["top"]}
if "[not sampled: before a wait]" not in rows:
    sys.exit("the main thread has no before-wait row: %s" % sorted(rows))
if sum(rows.values()) < 0.95 * main["cpu_ns"]:
    sys.exit("the rows of the main thread hold %.1f of its %.1f ms" % (sum(rows.values()) / 1e6, main["cpu_ns"] / 1e6))
if main["top_function"] != "divide_chain":
    sys.exit("the top function of the main thread is %r" % main["top_function"])' \
		bursty.json || fail "CPU time before waits"
	# the HTML's shares are of all the CPU time (of the thread's, in its
	# own list), not of the rows the list keeps
	"$FOLD_CLI" -q bursty.trace -o bursty.html 2>err.txt || fail "fold -o: $(cat err.txt)"
	"$PYTHON" -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
html = open(sys.argv[2]).read()
table = html[html.index("id=\"hot-cpu\""):]
table = table[:table.index("</table>")]
main = [k for k, t in enumerate(d["threads"]) if t["index"] == 0][0]
want = {"all": d["hot_cpu_total_ns"], str(main): d["threads"][main]["cpu_ns"]}
for key, total in want.items():
    body = re.search(r"<tbody data-thread=\"%s\"[^>]*>(.*?)</tbody>" % key, table, re.S).group(1)
    row = re.search(r">divide_chain<.*?data-v=\"([0-9.e+-]+)\".*?data-v=\"([0-9.e+-]+)\"", body, re.S)
    cpu, share = float(row.group(1)), float(row.group(2))
    print("%s: divide_chain %.1f ms, shown as %.1f%% (%.1f%% of %.1f ms)" % (key, cpu / 1e6, 100 * share,
          100 * cpu / total, total / 1e6))
    if abs(share - cpu / total) > 0.002:
        sys.exit("thread %s: divide_chain shown as %.1f%% of the CPU time, is %.1f%%" % (key, 100 * share,
                 100 * cpu / total))' bursty.json bursty.html || fail "CPU shares in the HTML"
	;;
mpi)
	command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
	"$PYTHON" "$CPU_SHARE" --threads 2 --min-share 0.3 --judge "the imbalance of 2 ranks" -- \
		mpirun --allow-run-as-root --oversubscribe -np 2 "$FOLDRUN" -q -o 'rank%r.trace' \
		"$PROGS/prog_mpi_imbalance" 30 >/dev/null || exit $?
	for w in 80 100; do
		COLUMNS=$w "$FOLD_CLI" -q rank0.trace rank1.trace >out$w.txt 2>err.txt || fail "fold: $(cat err.txt)"
		fits out$w.txt $w
		has out$w.txt "Imbalance over ranks"
		row=$(grep "^  computation (outside MPI)" out$w.txt) || fail "no computation row"
		echo "$row" | grep -q "rank 1$" || fail "rank 1 (3x the work) not named slowest: '$row'"
		# LB = mean/max: 2/3 planted; well below 1 even on a busy machine
		lb=$(echo "$row" | awk '{ print $(NF - 2) }')
		awk -v lb="$lb" 'BEGIN { exit !(lb > 0.4 && lb < 0.85) }' || fail "load balance $lb, expected about 0.67"
		row=$(grep "MPI_Allreduce in main:" out$w.txt | grep "rank" | head -n 1)
		echo "$row" | grep -q "rank 1$" || fail "the compute burst's slowest rank is not rank 1: '$row'"
		has out$w.txt "rank 1 #0"
	done
	# A singleton run (no mpirun): Open MPI starts its orted, which the
	# preload follows; 3 processes are 1 MPI rank, not "MPI ranks".
	"$FOLDRUN" -q -o 'single.%p.trace' "$PROGS/prog_mpi_imbalance" 3 >/dev/null 2>&1 || fail "singleton run failed"
	if [ "$(ls single.*.trace | wc -l)" -gt 1 ]; then
		COLUMNS=100 "$FOLD_CLI" -q single.*.trace >outs.txt 2>err.txt || fail "fold singleton: $(cat err.txt)"
		has outs.txt "(1 MPI rank)"
		# the orted did none of the rank's work: no imbalance over ranks
		# (it read "MPI_Init 0 ns .. 310 ms, LB 0.33" with the orted as
		# ranks of 0 ns)
		! grep -q "Imbalance over ranks" outs.txt || fail "a singleton's orted is compared as a rank"
		# nor is it the program's threads: helpers, named by their program
		! grep -q "rank -1" outs.txt || fail "the orted's threads are listed as 'rank -1'"
		has outs.txt "helper threads"
		# the program's fork that became the orted: the same pid as the
		# orted, and said to be the image before its exec
		"$FOLD_CLI" -q single.*.trace --json single.json 2>err.txt || fail "fold --json singleton: $(cat err.txt)"
		"$PYTHON" -c 'import json, os, sys
ps = json.load(open(sys.argv[1]))["processes"]
pre = [p for p in ps if p["exec_replaced"]]
orted = [p for p in ps if os.path.basename(p["exe"] or "") == "orted"]
if not orted:
    sys.exit("no orted among %r" % [(p["exe"], p["pid"]) for p in ps])
if len(pre) != 1 or pre[0]["pid"] != orted[0]["pid"] or orted[0]["exec_replaced"]:
    sys.exit("the image before the orted exec: %r" % [(p["exe"], p["pid"], p["exec_replaced"]) for p in ps])' \
			single.json || fail "the fork before its exec is not told apart"
		"$FOLD_CLI" -q single.*.trace -o single.html 2>err.txt || fail "fold -o singleton: $(cat err.txt)"
		grep -q "prog_mpi_imbalance (pid [0-9]*, before its exec), thread #0" single.html ||
			fail "the report does not say which image was before its exec"
	fi
	# fold profile fits 80 columns with the run's region names readable (a
	# burst loses its word "burst" first, never its call and place)
	COLUMNS=80 "$FOLD_CLI" profile -q rank0.trace rank1.trace >outp.txt 2>err.txt || fail "fold profile: $(cat err.txt)"
	fits outp.txt 80
	has outp.txt "after MPI_Allreduce in main:"
	# MPI libraries without debug info: said in one line, not one per library
	"$FOLD_CLI" rank0.trace rank1.trace >/dev/null 2>diag.txt || fail "fold: $(cat diag.txt)"
	! grep -q "no DWARF debug info" diag.txt || fail "per-module DWARF notices: $(cat diag.txt)"
	[ "$(grep -c "without debug info" diag.txt)" -le 2 ] || fail "DWARF notices not summarised: $(cat diag.txt)"
	# the same answers in the HTML report, rendered in Chromium (skipped without it)
	"$FOLD_CLI" -q rank0.trace rank1.trace -o mpi.html 2>err.txt || fail "fold -o: $(cat err.txt)"
	"$PYTHON" "$CHECK_HTML" mpi.html --interact --screenshot mpi.png --expect "Where the CPUs worked" \
		--expect "Imbalance" --expect "computation (outside MPI)" --expect "rank 1" --expect "application" \
		>chromium.txt 2>&1 || { rc=$?; cat chromium.txt; [ $rc -eq 77 ] || fail "the HTML report: see above"; }
	grep -q '<td class="slowest"><b>rank 1</b></td>' mpi.html || fail "the report does not name rank 1 slowest"
	# a region that was not folded does not say its instances were folded
	"$PYTHON" - mpi.html <<'PY' || fail "the HTML report: see above"
import re, sys
html = open(sys.argv[1]).read()
sections = re.findall(r'<section class="region".*?</h2>\s*<p class="sub">([^<]*)', html, re.S)
heads = re.findall(r'<section class="region".*?</h2>', html, re.S)
bad = [sub for head, sub in zip(heads, sections) if "not folded" in head and re.search(r"\([1-9][0-9]* folded\)", sub)]
if not sections or bad:
    sys.exit("not-folded regions whose line says folded: %r (of %d regions)" % (bad[:3], len(sections)))
if not any("not folded" in h for h in heads):
    sys.exit("no region that was not folded to check")
PY
	;;
openmp)
	# examples/openmp_stencil: a balanced parallel for, then a region whose
	# work grows with the thread number (thread #1 does twice thread #0's)
	OMP_NUM_THREADS=2 "$PYTHON" "$CPU_SHARE" --threads 2 --min-share 0.3 --judge "OpenMP threads" -- \
		"$FOLDRUN" -q -o omp.trace "$EXAMPLES/openmp_stencil" 100 >/dev/null || exit $?
	for w in 80 100; do
		COLUMNS=$w "$FOLD_CLI" -q omp.trace >out$w.txt 2>err.txt || fail "fold: $(cat err.txt)"
		fits out$w.txt $w
		# outlined regions named for people, the worker classed, the main thread an application thread
		has out$w.txt "parallel region 0 in main"
		has out$w.txt "parallel region 1 in main"
		grep -q "^  #0 .*application" out$w.txt || fail "the main thread is not classed application"
		grep -q "^  #1 .*OpenMP worker" out$w.txt || fail "the second thread is not classed OpenMP worker"
		has out$w.txt "Imbalance over threads"
		row=$(grep "^  parallel region 1 in main " out$w.txt | head -n 1)
		echo "$row" | grep -q "thread #1$" || fail "thread #1 (twice the work) not named slowest: '$row'"
	done
	# the same answers in the HTML report, rendered in Chromium (skipped without it)
	"$FOLD_CLI" -q omp.trace -o omp.html 2>err.txt || fail "fold -o: $(cat err.txt)"
	"$PYTHON" "$CHECK_HTML" omp.html --screenshot omp.png --expect "Where the CPUs worked" \
		--expect "parallel region 1 in main" --expect "OpenMP worker" --expect "Imbalance" \
		>chromium.txt 2>&1 || { rc=$?; cat chromium.txt; [ $rc -eq 77 ] || fail "the HTML report: see above"; }
	# the same views as tidy CSV
	"$FOLD_CLI" -q omp.trace --csv csv 2>err.txt || fail "fold --csv: $(cat err.txt)"
	grep -q "^0,-1,[0-9]*,1,openmp," csv/threads.csv || fail "threads.csv: no OpenMP worker: $(cat csv/threads.csv)"
	grep -q "^0,-1,[0-9]*,0,application," csv/threads.csv || fail "threads.csv: no application thread"
	grep -q "^1,.*openmp_stencil" csv/hot_cpu.csv || grep -q "^1,libgomp" csv/hot_cpu.csv ||
		fail "hot_cpu.csv: $(head -3 csv/hot_cpu.csv)"
	worker=$(tr -d '\r' <csv/threads.csv | awk -F, '$4 == 1 { print $3 }')
	tr -d '\r' <csv/imbalance.csv | grep -q "^main._omp_fn.1,4,thread,0,$worker,.*,1$" ||
		fail "imbalance.csv: the worker (stream $worker) is not the slowest in main._omp_fn.1: $(cat csv/imbalance.csv)"
	# a parallel region's routine timeline starts at the region's own code,
	# on the main thread and the worker alike (not at the threads' roots)
	OMP_NUM_THREADS=2 "$PYTHON" "$CPU_SHARE" --threads 2 --min-share 0.3 --judge "an OpenMP timeline" -- \
		"$FOLDRUN" -q -o calls.trace "$PROGS/prog_omp_calls" 60 >/dev/null || exit $?
	"$FOLD_CLI" -q calls.trace --json calls.json 2>err.txt || fail "fold --json: $(cat err.txt)"
	# an API region inside it alike: no frame is named after it
	"$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
for name in ("main._omp_fn.0", "work"):
    r = [r for r in d["regions"] if r["name"] == name]
    if not r or not r[0]["folded"]:
        sys.exit("region %s was not folded: %r" % (name, [(x["name"], x["reason"]) for x in d["regions"]]))
    tl = r[0]["timeline"]
    top = [s["function"] for s in tl[0]["spans"]] if tl else []
    # first_part then second_part (a busy machine may flip a slice in between); never the threads roots
    if not top or top[0] != "first_part" or top[-1] != "second_part" or set(top) != {"first_part", "second_part"}:
        sys.exit("timeline of region %s is %r, expected first_part then second_part" % (name, top))
# fold'"'"'s own trampolines and wrappers are not the program'"'"'s calls
ct = d["call_tree"]
own = sorted({n["function"] for n in ct if n["function"] in ("trampoline", "omp_trampoline")} |
             {"GOMP_parallel twice" for n in ct if n["function"] == "GOMP_parallel" and
              n["parent"] >= 0 and ct[n["parent"]]["function"] == "GOMP_parallel"})
if own:
    sys.exit("the call tree shows fold'"'"'s own frames: %s" % own)' \
		calls.json || fail "OpenMP timeline"
	# a callee holding 98% of an API region is not where its timeline starts
	"$PYTHON" "$CPU_SHARE" --min-share 0.3 --judge "a timeline under a dominant callee" -- \
		FOLD_SAMPLE=time@1ms "$FOLDRUN" -q -o serial.trace "$PROGS/prog_omp_calls" 60 serial >/dev/null || exit $?
	"$FOLD_CLI" -q serial.trace --json serial.json 2>err.txt || fail "fold --json: $(cat err.txt)"
	"$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d["regions"] if r["name"] == "serial"]
if not r or not r[0]["folded"]:
    sys.exit("region serial was not folded: %r" % [(x["name"], x["reason"]) for x in d["regions"]])
tl = r[0]["timeline"]
top = [s["function"] for s in tl[0]["spans"]] if tl else []
if not top or top[-1] != "both_parts" or "second_part" in top:
    sys.exit("timeline of region serial starts at %r, expected first_part then both_parts" % top)' \
		serial.json || fail "timeline under a dominant callee"
	;;
*)
	fail "unknown case"
	;;
esac
echo "PASS ($case_name)"
