#!/usr/bin/env bash
# cli_test.sh CASE FOLD MAKE_SEED_CORPUS: one user-visible behaviour of the CLI.
set -euo pipefail
case_name=$1 fold=$2 make_seed=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

case $case_name in
coreutils_handoff)
  # Our fold first on PATH, coreutils' after it: coreutils-style calls must
  # behave exactly like coreutils fold.
  mkdir "$tmp/bin" && ln -s "$fold" "$tmp/bin/fold"
  printf 'abcdefghij\nthe quick brown fox\n' >"$tmp/text.txt"
  export PATH="$tmp/bin:/usr/bin:/bin"
  [ "$(fold -w 3 "$tmp/text.txt")" = "$(/usr/bin/fold -w 3 "$tmp/text.txt")" ] || fail "fold -w 3 FILE"
  [ "$(fold -w3 -s "$tmp/text.txt")" = "$(/usr/bin/fold -w3 -s "$tmp/text.txt")" ] || fail "fold -w3 -s FILE"
  [ "$(fold -5 "$tmp/text.txt")" = "$(/usr/bin/fold -5 "$tmp/text.txt")" ] || fail "fold -5 FILE (obsolete width)"
  [ "$(fold --width=4 <"$tmp/text.txt")" = "$(/usr/bin/fold --width=4 <"$tmp/text.txt")" ] || fail "fold --width=4 <FILE"
  [ "$(cat "$tmp/text.txt" | fold)" = "$(/usr/bin/fold <"$tmp/text.txt")" ] || fail "... | fold"
  [ "$(fold "$tmp/text.txt")" = "$(/usr/bin/fold "$tmp/text.txt")" ] || fail "fold TEXTFILE"
  # A trace is ours: fold dump works through the same PATH entry.
  "$make_seed" "$tmp"
  out=$(fold dump "$tmp/seed-zlib.bin") || fail "fold dump TRACE via PATH failed"
  grep -q '^1 sample ' <<<"$out" || fail "fold dump TRACE via PATH: no samples listed"
  # Two copies of ours on PATH must not loop.
  mkdir "$tmp/bin2" && cp "$fold" "$tmp/bin2/fold"
  PATH="$tmp/bin:$tmp/bin2:/usr/bin:/bin" fold -w 3 "$tmp/text.txt" >/dev/null || fail "two copies on PATH"
  # No coreutils fold at all: a clear message, not a loop.
  if out=$(PATH="$tmp/bin" fold -w 3 "$tmp/text.txt" 2>&1); then fail "no other fold: should fail"; fi
  grep -q "no other fold is on PATH" <<<"$out" || fail "no other fold: message was: $out"
  ;;
bad_options)
  "$make_seed" "$tmp"
  t="$tmp/seed-zlib.bin"
  expect_error() { # expected-text, args...
    local want=$1
    shift
    local out rc=0
    out=$("$fold" "$@" 2>&1) || rc=$?
    [ "$rc" -ne 0 ] || fail "fold $* should fail"
    grep -qF -- "$want" <<<"$out" || fail "fold $*: expected '$want' in: $out"
  }
  expect_error "--fit expects 'kriging' or 'pwlr', got 'spline'" --fit spline "$t"
  expect_error "--grid expects" --grid abc "$t"
  expect_error "--outlier-k expects a number" --outlier-k -1 "$t"
  expect_error "no trace given" -q
  expect_error "$tmp/missing.bin: cannot open" "$tmp/missing.bin"
  expect_error "unknown option '--bogus'" dump --bogus "$t"
  help=$("$fold" --help) || fail "--help failed"
  grep -q "Usage: fold" <<<"$help" || fail "--help"
  version=$("$fold" --version) || fail "--version failed"
  grep -Eq '^fold [0-9]+\.[0-9]+' <<<"$version" || fail "--version"
  ;;
special_outputs)
  # -o, --json and --csv onto something that is not a regular file write
  # into it, never rename a temporary file over it (as root that replaced
  # /dev/null itself with a regular file).
  "$make_seed" "$tmp"
  t="$tmp/seed-zlib.bin"
  mkfifo "$tmp/fifo"
  cat "$tmp/fifo" >"$tmp/from-fifo" &
  reader=$!
  rc=0
  "$fold" "$t" -q --json "$tmp/fifo" || rc=$?
  if [ ! -p "$tmp/fifo" ]; then
    kill "$reader" 2>/dev/null || true
    fail "the FIFO was replaced by a $(stat -c %F "$tmp/fifo")"
  fi
  [ "$rc" -eq 0 ] || fail "fold --json FIFO failed ($rc)"
  wait "$reader"
  grep -q '"regions"' "$tmp/from-fifo" || fail "nothing read from the FIFO: $(head -c 200 "$tmp/from-fifo")"
  echo old >"$tmp/target.html"
  ln -s target.html "$tmp/link.html"
  "$fold" "$t" -q -o "$tmp/link.html" || fail "fold -o SYMLINK failed"
  [ -L "$tmp/link.html" ] || fail "the symlink was replaced by a $(stat -c %F "$tmp/link.html")"
  grep -q '<html' "$tmp/target.html" || fail "the symlink's target was not written"
  "$fold" "$t" -q -o /dev/null || fail "fold -o /dev/null failed"
  [ -c /dev/null ] || fail "/dev/null is no longer a character device"
  ! ls "$tmp"/*.tmp.* >/dev/null 2>&1 || fail "temporary files left behind: $(ls "$tmp")"
  ;;
damaged_trace)
  "$make_seed" "$tmp"
  t="$tmp/seed-zlib.bin"
  size=$(stat -c %s "$t")
  head -c $((size - 40)) "$t" >"$tmp/cut.bin"
  out=$("$fold" dump "$tmp/cut.bin" 2>"$tmp/err") || fail "fold dump on a truncated trace must still succeed"
  grep -q "$tmp/cut.bin: truncated" "$tmp/err" || fail "truncation not reported: $(cat "$tmp/err")"
  grep -q "salvaged" "$tmp/err" || fail "no salvage summary: $(cat "$tmp/err")"
  grep -q '^0 info "host"="seed"' <<<"$out" || grep -q '^1 ' <<<"$out" || fail "nothing salvaged"
  ;;
not_a_trace)
  # A directory or a program where a trace belongs gets fold's own error
  # (exit 2), not coreutils fold(1)'s "Is a directory" or the ELF bytes;
  # coreutils-style calls still hand over.
  mkdir "$tmp/bin" "$tmp/runs" && ln -s "$fold" "$tmp/bin/fold"
  cp "$make_seed" "$tmp/program"
  printf 'hello world, the quick brown fox jumps\n' >"$tmp/file.txt"
  export PATH="$tmp/bin:/usr/bin:/bin"
  expect_refused() { # expected-text, args...
    local want=$1 out rc=0
    shift
    out=$(cd "$tmp" && fold "$@" 2>&1) || rc=$?
    [ "$rc" -eq 2 ] || fail "fold $*: exit $rc, expected 2 (output: $(head -c 200 <<<"$out"))"
    grep -qF -- "$want" <<<"$out" || fail "fold $*: expected '$want' in: $(head -c 300 <<<"$out")"
    [ "$(wc -l <<<"$out")" -eq 1 ] || fail "fold $*: more than the one error line: $(head -c 300 <<<"$out")"
  }
  expect_refused "fold: runs is a directory: give the trace file(s) in it, e.g. fold runs/*.trace" runs
  expect_refused "fold: ./program is a program: run it under foldrun first (foldrun ./program), then fold the trace it writes" ./program
  expect_refused "fold: runs/ is a directory" profile runs/
  expect_refused "fold: ./program is a program" export --format=folded ./program
  expect_refused "fold: ./program is a program" -q ./program
  # Coreutils-style calls hand over as before.
  [ "$(echo hello world | fold -w 5)" = "$(echo hello world | /usr/bin/fold -w 5)" ] || fail "echo | fold -w 5"
  [ "$(fold -w 5 "$tmp/file.txt")" = "$(/usr/bin/fold -w 5 "$tmp/file.txt")" ] || fail "fold -w 5 file.txt"
  [ "$(fold -s -w 10 "$tmp/file.txt")" = "$(/usr/bin/fold -s -w 10 "$tmp/file.txt")" ] || fail "fold -s -w 10 FILE"
  [ "$(fold --width=10 "$tmp/file.txt")" = "$(/usr/bin/fold --width=10 "$tmp/file.txt")" ] || fail "fold --width=10 FILE"
  # ...including with a directory: coreutils' own error then.
  out=$(fold -w 5 "$tmp/runs" 2>&1) && fail "fold -w 5 DIR should fail as coreutils fails"
  grep -q "Is a directory" <<<"$out" || fail "fold -w 5 DIR did not hand over: $out"
  # An option's value that is a directory is not an operand.
  "$make_seed" "$tmp"
  fold -q --csv "$tmp/runs" "$tmp/seed-zlib.bin" || fail "fold --csv DIR TRACE refused"
  [ -s "$tmp/runs/regions.csv" ] || fail "fold --csv DIR TRACE wrote no regions.csv"
  ;;
not_a_trace_not_handed_over)
  # A file that is not text for coreutils fold(1) is ours to judge, never
  # handed over: a file named like a trace (*.trace), one given with fold's
  # own options, an empty file (a run that wrote nothing: a full disk at
  # start), a binary file. Each is an error that says what the file is and
  # what was expected; text files still hand over.
  mkdir "$tmp/bin" && ln -s "$fold" "$tmp/bin/fold"
  export PATH="$tmp/bin:/usr/bin:/bin"
  cd "$tmp"
  : >empty.trace
  : >empty.bin
  printf 'some notes\n' >notes.trace
  printf 'BIN\0\1\2\3binary' >blob.dat
  expect_error() { # exit-status expected-text args...
    local want_rc=$1 want=$2 out rc=0
    shift 2
    out=$(fold "$@" 2>&1) || rc=$?
    [ "$rc" -eq "$want_rc" ] || fail "fold $*: exit $rc, expected $want_rc (output: $(head -c 300 <<<"$out"))"
    grep -qF -- "$want" <<<"$out" || fail "fold $*: expected '$want' in: $(head -c 300 <<<"$out")"
  }
  empty="is empty (0 bytes): expected a fold trace; the run that wrote it recorded nothing (a full disk, or a run killed at its start?)"
  expect_error 1 "empty.trace $empty" empty.trace
  expect_error 1 "empty.bin $empty" empty.bin
  expect_error 1 "empty.bin $empty" -q empty.bin
  expect_error 1 "empty.bin $empty" dump empty.bin
  expect_error 1 "empty.bin $empty" profile empty.bin
  expect_error 1 "notes.trace: not a fold trace" notes.trace
  expect_error 1 "blob.dat: not a fold trace" blob.dat
  expect_error 2 "notes.trace is named like a fold trace: -w is an option of coreutils fold(1)" -w 5 notes.trace
  # Text still goes to coreutils, options and all.
  printf 'hello world\n' >text.txt
  [ "$(fold -w 5 text.txt)" = "$(/usr/bin/fold -w 5 text.txt)" ] || fail "fold -w 5 text.txt"
  [ "$(fold text.txt)" = "$(/usr/bin/fold text.txt)" ] || fail "fold text.txt"
  [ -z "$(fold -w 5 empty.bin)" ] || fail "fold -w 5 EMPTY (coreutils-style) should print nothing"
  ;;
run_end)
  # A run killed with SIGKILL or dead of a signal is said first, in the
  # terminal, the report and the JSON; the analysis of what was recovered
  # still succeeds; a run cut before anything was written is an error.
  libfold=${4:?libfold.so}
  cd "$tmp"
  loop='i=0; while :; do i=$((i+1)); done'
  FOLD_QUIET=1 FOLD_FLUSH_INTERVAL=100ms FOLD_OUTPUT=killed.trace LD_PRELOAD="$libfold" sh -c "$loop" &
  pid=$!
  sleep 0.8
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  out=$("$fold" -q killed.trace) || fail "fold on a killed run must succeed"
  # Its live file (killed.trace.live) gives back all it recorded.
  grep -Eq '^ This run did not end normally: ended without fold.s final flush \(killed, or an exit through the exit_group system call, as Go programs exit\); all it recorded, [0-9.]+ ms of 1 thread, was recovered from its live file( [A-Z].*)? $' <<<"$(sed -n 2,4p <<<"$out" | tr -s ' \n' ' ')" ||
    fail "killed run: second line is not the cut: $(head -3 <<<"$out")"
  out=$(COLUMNS=200 "$fold" profile -q killed.trace) || fail "fold profile on a killed run failed"
  grep -q '^This run did not end normally: ended without' <<<"$(head -1 <<<"$out")" ||
    fail "fold profile does not say first that the run was cut: $(head -2 <<<"$out")"
  "$fold" -q killed.trace --json killed.json -o killed.html || fail "fold --json/-o on a killed run failed"
  grep -q '"run_end":{"status":"cut",' killed.json || fail "JSON run_end: $(grep -o '"run_end":{[^}]*}' killed.json)"
  grep -q '<div class="warn bad run-end" id="run-end" role="alert" data-status="cut">This run did not end normally' \
    killed.html || fail "no cut banner in the HTML report"
  [ "$(grep -o 'id="run-end"' killed.html | wc -l)" -eq 1 ] || fail "the banner is not there once"
  # ...and a user sees it in a browser (when Chromium is there).
  rc=0
  python3 "$(dirname "$0")/../report/check_html_chromium.py" killed.html \
    --expect "This run did not end normally: ended without fold's final flush" >chromium.txt 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || fail "the banner in Chromium: $(cat chromium.txt)"
  # A fatal signal.
  rc=0
  FOLD_QUIET=1 FOLD_OUTPUT=crashed.trace LD_PRELOAD="$libfold" \
    sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; kill -SEGV $$' || rc=$?
  [ "$rc" -eq 139 ] || fail "the crashing program exited $rc, not 139 (SIGSEGV)"
  out=$("$fold" -q crashed.trace) || fail "fold on a crashed run must succeed"
  grep -Eq '^  The program died of SIGSEGV at [0-9.]+ m?s' <<<"$(sed -n 2p <<<"$out")" ||
    fail "crashed run: second line is not the signal: $(head -3 <<<"$out")"
  grep -q '"run_end":{"status":"signal",.*"signal":"SIGSEGV","signal_number":11' <<<"$("$fold" -q crashed.trace --json -)" ||
    fail "JSON run_end of the crash"
  # A normal run says nothing of the kind.
  FOLD_QUIET=1 FOLD_OUTPUT=normal.trace LD_PRELOAD="$libfold" sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done'
  out=$("$fold" -q normal.trace --json normal.json -o normal.html) || fail "fold on a normal run"
  grep -q '"run_end":{"status":"normal"}' normal.json || fail "JSON run_end of a normal run"
  ! grep -q 'id="run-end"' normal.html || fail "a banner on a normal run"
  ! grep -q "did not end normally" <<<"$("$fold" -q normal.trace)" || fail "a normal run said to be cut"
  # Killed before anything was flushed: nothing to analyse, exit 1.
  FOLD_QUIET=1 FOLD_FLUSH_INTERVAL=20s FOLD_OUTPUT=early.trace LD_PRELOAD="$libfold" sh -c "$loop" &
  pid=$!
  sleep 0.4
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  [ -e early.trace ] || fail "no trace after 0.4 s"
  # with its live file, all it recorded; without (removed, or the trace
  # alone copied elsewhere), nothing was flushed
  "$fold" -q early.trace >early.txt 2>&1 || fail "a run cut early, with its live file: $(cat early.txt)"
  grep -q "was recovered from its live file" early.txt || fail "early run, live file: $(head -3 early.txt)"
  rm early.trace.live
  rc=0
  out=$("$fold" -q early.trace -o early.html 2>&1) || rc=$?
  [ "$rc" -eq 1 ] || fail "a run cut before any data: exit $rc, expected 1"
  grep -q "early.trace: nothing to analyse: the run was cut" <<<"$out" || fail "message was: $out"
  [ ! -e early.html ] || fail "a report was written for a run with nothing recovered"
  ;;
mixed_programs)
  # Traces of different programs are refused unless --allow-mixed, which
  # keeps their regions apart; the processes of one program (ranks, a copy
  # of the executable elsewhere: same build-id) are one run.
  libfold=${4:?libfold.so}
  cd "$tmp"
  cp "$(command -v dash)" dash-copy
  work='i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done'
  FOLD_QUIET=1 FOLD_OUTPUT=a.trace LD_PRELOAD="$libfold" dash -c "$work"
  FOLD_QUIET=1 FOLD_OUTPUT=a2.trace LD_PRELOAD="$libfold" dash -c "$work"
  FOLD_QUIET=1 FOLD_OUTPUT=a3.trace LD_PRELOAD="$libfold" ./dash-copy -c "$work"
  FOLD_QUIET=1 FOLD_OUTPUT=b.trace LD_PRELOAD="$libfold" bash -c "$work"
  for cmd in "" profile "export --format=folded"; do
    rc=0
    # shellcheck disable=SC2086
    out=$("$fold" $cmd -q a.trace b.trace 2>&1 >/dev/null) || rc=$?
    [ "$rc" -eq 2 ] || fail "fold $cmd a.trace b.trace: exit $rc, expected 2"
    grep -qF "fold: a.trace and b.trace come from different programs ($(realpath "$(command -v dash)"), $(realpath "$(command -v bash)")): give one program's traces, or --allow-mixed to analyse them together" <<<"$out" ||
      fail "fold $cmd a.trace b.trace: message was: $out"
  done
  "$fold" -q a.trace a2.trace a3.trace --json same.json || fail "one program's traces (two pids, a copy) refused"
  grep -q '"processes":\[{.*},{.*},{' same.json || fail "not three processes in same.json"
  "$fold" -q --allow-mixed a.trace b.trace --json mixed.json || fail "--allow-mixed refused"
  grep -q "traces of 2 different programs analysed together (--allow-mixed)" mixed.json ||
    fail "no warning that two programs were analysed together"
  "$fold" export --format=folded -q --allow-mixed a.trace b.trace >/dev/null || fail "export --allow-mixed refused"
  # Regions of different programs are not merged by name.
  example=${5:?example program with a region}
  FOLD_QUIET=1 FOLD_OUTPUT=p.trace LD_PRELOAD="$libfold" "$example" 20 0.1 >/dev/null
  FOLD_QUIET=1 FOLD_OUTPUT=p2.trace LD_PRELOAD="$libfold" "$example" 20 0.1 >/dev/null
  "$fold" -q p.trace p2.trace --json p.json || fail "two runs of the example refused"
  grep -q '"name":"timestep",' p.json || fail "one program: region timestep not named as such"
  "$fold" -q --allow-mixed p.trace b.trace --json pb.json || fail "--allow-mixed with regions"
  grep -q '"name":"timestep[^"]*",' pb.json || fail "mixed: the example's region is missing"
  # the run's main program (most traces; on a tie the longest-running) keeps
  # its names, the others' regions are marked with their program
  "$fold" -q --allow-mixed b.trace p.trace p2.trace --json pb2.json || fail "--allow-mixed, two of p"
  grep -q '"name":"timestep",' pb2.json || fail "mixed: p (two traces) is the main program, its names plain"
  "$fold" -q --allow-mixed b.trace p.trace a.trace a2.trace --json pb3.json || fail "--allow-mixed, two of a"
  grep -q '"name":"timestep \[phases\]",' pb3.json || fail "mixed: the example's region not named 'timestep [phases]'"
  # A helper of the same run (a program the main one started, a launcher's
  # daemon: it ran at the same time) is no mistake: analysed, said, apart.
  FOLD_QUIET=1 FOLD_OUTPUT='run.%e.%p.trace' LD_PRELOAD="$libfold" dash -c "bash -c '$work'; $work"
  "$fold" -q run.*.trace --json run.json 2>run.err || fail "one run's helper refused: $(cat run.err)"
  grep -q "a trace of another program of the same run ($(realpath "$(command -v bash)"))" run.json ||
    fail "the helper of the same run was not said"
  "$fold" -q --allow-mixed --region timestep p.trace b.trace --json pr.json || fail "--region NAME with --allow-mixed"
  ;;
unknown_env)
  # An unknown FOLD_* variable gets one line with the nearest setting at
  # start-up, and measurement goes on; the variables foldrun sets, and every
  # one the runtime reads, are known.
  libfold=${4:?libfold.so} foldrun=${6:?foldrun}
  src=$(cd "$(dirname "$0")/../../.." && pwd)
  cd "$tmp"
  err=$(FOLD_SAMPEL=time@1ms FOLD_quiet=1 FOLD_FLUSH=1 FOLD_XYZZY=1 FOLD_OUTPUT=env.trace \
    LD_PRELOAD="$libfold" sh -c 'echo measured' 2>&1 >out.txt) || fail "the program failed: $err"
  [ "$(cat out.txt)" = measured ] || fail "the program's output changed"
  [ -s env.trace ] || fail "measurement did not go on: no trace"
  for want in "fold: FOLD_SAMPEL is not a fold setting (did you mean FOLD_SAMPLE?)" \
    "fold: FOLD_quiet is not a fold setting (did you mean FOLD_QUIET?)" \
    "fold: FOLD_FLUSH is not a fold setting (did you mean FOLD_FLUSH_INTERVAL?)" \
    "fold: FOLD_XYZZY is not a fold setting; ignored"; do
    [ "$(grep -cF -- "$want" <<<"$err")" -eq 1 ] || fail "expected once: '$want' in: $err"
  done
  # Said once per run, not by every process of it.
  err=$(FOLD_SAMPEL=1 FOLD_OUTPUT=env.%p.trace LD_PRELOAD="$libfold" sh -c 'sh -c true; sh -c true' 2>&1)
  [ "$(grep -c "FOLD_SAMPEL is not a fold setting" <<<"$err")" -eq 1 ] || fail "not said once per run: $err"
  # foldrun's own variables (and the known ones) give no such line.
  err=$("$foldrun" -q -e time@5ms -c none -o fr.trace -- sh -c 'echo ok' 2>&1 >/dev/null) || fail "foldrun: $err"
  ! grep -q "not a fold setting" <<<"$err" || fail "foldrun's variables reported: $err"
  [ -s fr.trace ] || fail "foldrun wrote no trace"
  # Every FOLD_* name the runtime reads (getenv, rt__env_flag) is in its table.
  table=$(sed -n '/^} known_vars\[\] = {/,/^};/p' "$src/src/runtime/rt_config.c")
  [ -n "$table" ] || fail "the known_vars table was not found in rt_config.c"
  for v in $(grep -hoE '(getenv|rt__env_flag|env_bool)\("FOLD_[A-Z0-9_]+"' "$src"/src/runtime/*.c "$src"/src/fold/*.c \
    "$src"/src/cli/*.c | grep -oE 'FOLD_[A-Z0-9_]+' | sort -u); do
    grep -qF "\"$v\"" <<<"$table" || fail "$v is read but not in rt_config.c's known_vars"
  done
  for v in $(grep -oE '^\| `FOLD_[A-Z0-9_]+`' "$src/docs/configuration.md" | grep -oE 'FOLD_[A-Z0-9_]+'); do
    grep -qF "\"$v\"" <<<"$table" || fail "$v is documented but not in rt_config.c's known_vars"
  done
  ;;
unknown_counter)
  # A misspelt counter is an unknown event with the nearest names, not "no
  # async-signal-safe read path"; a known event this machine cannot count
  # is not called unknown; measurement goes on either way.
  libfold=${4:?libfold.so}
  cd "$tmp"
  run() { # FOLD_COUNTERS value, FOLD_SAMPLE value
    FOLD_COUNTERS=$1 FOLD_SAMPLE=$2 FOLD_OUTPUT=c.trace LD_PRELOAD="$libfold" sh -c 'echo ok' 2>&1 >/dev/null
  }
  err=$(run PAPI_TOT_INZ,perf::TASK-CLOCK time@10ms)
  grep -q "^fold: counter PAPI_TOT_INZ: unknown event (did you mean PAPI_TOT_INS[,?]" <<<"$err" ||
    fail "misspelt preset: $err"
  ! grep -q "async-signal-safe" <<<"$err" || fail "a typo still called a missing read path: $err"
  [ "$(grep -c PAPI_TOT_INZ <<<"$err")" -eq 1 ] || fail "the typo said more than once: $err"
  dump=$("$fold" dump c.trace)
  grep -q 'counter_missing name="PAPI_TOT_INZ" reason="unknown event (did you mean PAPI_TOT_INS' <<<"$dump" ||
    fail "the trace does not record the unknown event: $(grep counter_missing <<<"$dump")"
  grep -q 'counter_def id=1 kind=software name="perf::TASK-CLOCK"' <<<"$dump" ||
    fail "the valid counter of the list was not recorded"
  err=$(run perf::TASK-CLOK time@10ms)
  grep -qF "fold: counter perf::TASK-CLOK: unknown event (did you mean perf::TASK-CLOCK?)" <<<"$err" ||
    fail "misspelt perf event: $err"
  # Known events, whether this machine counts them or not, are not typos.
  err=$(run PAPI_TOT_INS,PAPI_L1_DCM,perf::PAGE-FAULTS time@10ms)
  ! grep -q "unknown event" <<<"$err" || fail "a known event called unknown: $err"
  err=$(run none PAPI_TOT_INZ@1000000)
  grep -q "^fold: FOLD_SAMPLE=PAPI_TOT_INZ@1000000: counter PAPI_TOT_INZ: unknown event (did you mean PAPI_TOT_INS" <<<"$err" ||
    fail "misspelt sampling event: $err"
  [ -s c.trace ] || fail "no trace"
  ;;
chrome_size)
  # The Chrome export stays proportional to the trace: consecutive samples
  # of a thread with one stack are one slice; past --max-size the rest is
  # left out with a warning saying what and how to get it.
  libfold=${4:?libfold.so} example=${5:?example program}
  cd "$tmp"
  FOLD_QUIET=1 FOLD_SAMPLE=time@1ms FOLD_OUTPUT=t.trace LD_PRELOAD="$libfold" "$example" 100 2 >/dev/null
  err=$("$fold" export --format=chrome -o c.json t.trace 2>&1) || fail "chrome export failed: $err"
  python3 -m json.tool c.json >/dev/null || fail "the export is not valid JSON"
  tsize=$(stat -c %s t.trace) csize=$(stat -c %s c.json)
  [ "$csize" -lt $((tsize * 5)) ] || fail "chrome export is $csize bytes for a trace of $tsize (more than 5x)"
  grep -Eq "^fold: exported ([0-9]+) samples \(as ([0-9]+) slices" <<<"$err" || fail "summary line: $err"
  samples=$(sed -nE 's/^fold: exported ([0-9]+) samples.*/\1/p' <<<"$err")
  slices=$(sed -nE 's/.*\(as ([0-9]+) slices.*/\1/p' <<<"$err")
  [ "$slices" -lt $((samples / 2)) ] || fail "$samples samples made $slices slices: consecutive samples not merged"
  ! grep -q "limit" <<<"$err" || fail "the default limit was hit: $err"
  # The limit, made small.
  err=$("$fold" export --format=chrome -q --max-size 20K -o cut.json t.trace 2>&1) || fail "capped export failed: $err"
  grep -q "^fold: export: the output reached its limit of 20 KiB (--max-size): [0-9]* samples and [0-9]* region instances at the end of the threads were left out, the first from [0-9.]* s; export them with --from/--to or --region, or raise --max-size" <<<"$err" ||
    fail "no warning about the limit: $err"
  python3 -m json.tool cut.json >/dev/null || fail "the capped export is not valid JSON"
  [ "$(stat -c %s cut.json)" -le $((20 * 1024 + 2048)) ] || fail "capped export is $(stat -c %s cut.json) bytes"
  "$fold" export --format=chrome -q --max-size 0 -o all.json t.trace || fail "--max-size 0"
  [ "$(stat -c %s all.json)" -eq "$csize" ] || fail "--max-size 0 (no limit) differs from the default here"
  rc=0
  "$fold" export --format=chrome --max-size 12Q t.trace >/dev/null 2>err.txt || rc=$?
  [ "$rc" -eq 2 ] && grep -q "max-size 12Q: expected a size" err.txt || fail "bad --max-size: $rc $(cat err.txt)"
  ;;
outputs_never_replace_inputs)
  # No output replaces an input: the trace itself, a hard link or a symlink
  # to it, a CSV table file that is the trace. Said before any analysis,
  # exit 2, the trace unchanged. A directory where a file belongs is
  # refused the same way.
  "$make_seed" "$tmp"
  cd "$tmp"
  cp seed-zlib.bin t.trace
  sum=$(md5sum <t.trace)
  ln t.trace hard.trace
  ln -s t.trace soft.trace
  mkdir dir csvdir
  cp t.trace csvdir/regions.csv
  csum=$(md5sum <csvdir/regions.csv)
  expect_usage_error() { # expected-text, args...
    local want=$1 out rc=0
    shift
    out=$("$fold" "$@" 2>&1) || rc=$?
    [ "$rc" -eq 2 ] || fail "fold $*: exit $rc, expected 2 (output: $(head -c 300 <<<"$out"))"
    grep -qF -- "$want" <<<"$out" || fail "fold $*: expected '$want' in: $(head -c 300 <<<"$out")"
    [ "$(md5sum <t.trace)" = "$sum" ] || fail "fold $*: the input trace was changed"
  }
  expect_usage_error "t.trace would replace the input t.trace" t.trace -o t.trace
  expect_usage_error "t.trace would replace the input t.trace" t.trace --json t.trace
  expect_usage_error "hard.trace would replace the input t.trace (the same file under another name)" \
    t.trace -q -o hard.trace
  expect_usage_error "soft.trace would replace the input t.trace" t.trace -q --json soft.trace
  expect_usage_error "t.trace would replace the input t.trace" export --format=folded -o t.trace t.trace
  expect_usage_error "t.trace would replace the input t.trace" profile t.trace -o t.trace
  expect_usage_error "csvdir/regions.csv would replace the input csvdir/regions.csv" csvdir/regions.csv -q \
    --csv csvdir
  [ "$(md5sum <csvdir/regions.csv)" = "$csum" ] || fail "--csv replaced its input"
  expect_usage_error "t.trace exists and is not a directory" t.trace -q --csv t.trace
  expect_usage_error "dir is a directory: give a file name" t.trace -q -o dir
  expect_usage_error "dir is a directory: give a file name" t.trace -q --json dir
  expect_usage_error "dir is a directory: give a file name" export --format=chrome -o dir t.trace
  [ -L soft.trace ] && [ "$(stat -c %h t.trace)" -eq 2 ] || fail "the links were changed"
  # Another name still works.
  "$fold" t.trace -q -o r.html --json r.json || fail "fold with other output names failed"
  ;;
planted_temporaries)
  # A symlink planted where the old writers put their temporary file
  # (PATH.tmp.PID: the pid is known once fold runs) is never followed:
  # its target stays as it was, and no temporary is left behind.
  "$make_seed" "$tmp"
  cd "$tmp"
  echo precious >victim
  mkdir csv
  # exec keeps the shell's pid: the planted names are the ones fold used.
  bash -c 'for f in out.html out.json out.folded csv/regions.csv csv/profile.csv; do ln -s "$PWD/victim" "$f.tmp.$$"; done
           exec "$0" seed-zlib.bin -q -o out.html --json out.json --csv csv' "$fold" ||
    fail "fold with planted temporaries failed"
  bash -c 'ln -s "$PWD/victim" "out.folded.tmp.$$"; exec "$0" export --format=folded -q -o out.folded seed-zlib.bin' \
    "$fold" || fail "fold export with a planted temporary failed"
  [ "$(cat victim)" = precious ] || fail "a planted symlink was followed: victim now holds $(head -c 100 victim)"
  grep -q '<html' out.html && grep -q '"regions"' out.json && [ -s csv/regions.csv ] && [ -s out.folded ] ||
    fail "the outputs were not written"
  ! ls -a . csv | grep -E '\.tmp$' || fail "temporary files left behind: $(ls -a . csv)"
  # The outputs keep the permissions the umask gives (not those of a
  # temporary file), and a replaced file keeps its own.
  [ "$(stat -c %a out.html)" = "$(umask -S >/dev/null; printf '%o' $((0666 & ~$(umask))))" ] ||
    fail "out.html has mode $(stat -c %a out.html)"
  chmod 600 out.json
  "$fold" seed-zlib.bin -q --json out.json || fail "rewriting out.json failed"
  [ "$(stat -c %a out.json)" = 600 ] || fail "a replaced file lost its mode: $(stat -c %a out.json)"
  ;;
fifo_paths)
  # Paths fold opens are only ever regular files: a module path in the
  # trace that names a FIFO (whose open would wait for a writer forever) or
  # a device is said and skipped, and a FIFO given as the trace is refused.
  # Each call is bounded: before, the first one blocked in open(2).
  make_hostile=${4:?make_hostile_trace}
  cd "$tmp"
  mkfifo module.so trace.fifo
  "$make_hostile" module fifo.trace "$PWD/module.so"
  "$make_hostile" module dev.trace /dev/zero
  for t in fifo.trace dev.trace; do
    for cmd in "" "export --format=folded -o out.folded" "export --format=pprof -o out.pb.gz"; do
      rc=0
      # shellcheck disable=SC2086
      timeout 60 "$fold" $cmd $([ -z "$cmd" ] && echo "-o r.html --json r.json") "$t" >out.txt 2>err.txt || rc=$?
      [ "$rc" -eq 0 ] || fail "fold $cmd $t: exit $rc (124: it blocked): $(cat err.txt)"
      grep -q "cannot read the object file (not a regular file)" err.txt ||
        fail "fold $cmd $t: the module was not refused: $(cat err.txt)"
    done
  done
  [ -p module.so ] || fail "the FIFO was replaced"
  rc=0
  timeout 60 "$fold" trace.fifo >out.txt 2>err.txt || rc=$?
  [ "$rc" -eq 1 ] || fail "fold FIFO: exit $rc (124: it blocked)"
  grep -q "trace.fifo is not a regular file: expected a fold trace file" err.txt || fail "fold FIFO: $(cat err.txt)"
  ;;
ids_bounded_by_file)
  # Every id read from a trace is bounded by the file: a stream or region id
  # near 2^32 costs one entry, not an array that size; 100,000 counter
  # definitions cost a hash, not pairwise name comparisons, and the
  # analysis folds at most 64 counters (a process records at most 32). Each of these
  # 1.5-KiB traces folds its one region ("step", 40 instances) in well under
  # a second and a few MB; before, stream 0xFFFFFFFF crashed (SIGSEGV),
  # 0x7FFFFFFF and region 4e9 asked for 8 and 4 GB, region 1e8 took 10 s
  # and 500 MB.
  make_hostile=${4:?make_hostile_trace}
  cd "$tmp"
  asan=0
  # (not "ldd | grep -q": grep may stop reading first, and pipefail then sees ldd's SIGPIPE)
  grep -q libasan <<<"$(ldd "$fold")" && asan=1
  max_kb=$((asan ? 1500000 : 200000))
  for v in "stream 4294967295" "stream 2147483647" "stream 65536" "region 4294967295" "region 4000000000" \
    "region 100000000" "region 0" "counters 100000"; do
    "$make_hostile" "${v% *}" t.trace "${v#* }"
    rc=0
    # a bound on the address space keeps a regression from taking the machine's memory (not under ASan)
    (
      [ "$asan" -eq 1 ] || ulimit -v 4000000
      exec timeout 120 /usr/bin/time -f '%e %M' -o time.txt "$fold" t.trace -q --json t.json
    ) 2>err.txt || rc=$?
    [ "$rc" -eq 0 ] || fail "$v: exit $rc: $(cat err.txt)"
    read -r secs kb <time.txt
    [ "$kb" -le "$max_kb" ] || fail "$v: $kb KB of memory (at most $max_kb)"
    python3 - "$v" t.json "$secs" <<'PY' || fail "$v: wrong analysis"
import json, sys
v, path, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
d = json.load(open(path))
regions = {r["name"]: r["instances"] for r in d["regions"]}
assert regions.get("step") == 40, (v, regions)
if v.startswith("stream"):
    streams = [t["stream"] for t in d["threads"]]
    assert streams == [int(v.split()[1])], (v, streams)
if v.startswith("counters"):
    assert len(d["counters"]) == 64, (v, len(d["counters"]))
    assert any(w["kind"] == "counters_dropped" and w["subject"]["type"] == "run" and
               w["values"]["limit"]["value"] == 64 and "beyond the first 64" in w["message"]
               for w in d["warnings"]), d["warnings"][:3]
assert secs < 30, (v, secs)
PY
  done
  ;;
reports_proportional)
  # 20,000 one-shot regions (a 150-KiB trace): the reports stay
  # proportional to what can be folded. The HTML report and the terminal
  # show the folded regions and the 30 unfolded ones with the most time,
  # and aggregate the rest (how many, their instances, samples, time and
  # reasons); the JSON keeps every region, the aggregated ones without
  # groups and instances; fold profile keeps every region. Before: a
  # 100-MB HTML report, 22,000 terminal lines.
  make_hostile=${4:?make_hostile_trace}
  cd "$tmp"
  "$make_hostile" many t.trace 20000
  tbytes=$(stat -c %s t.trace)
  "$fold" t.trace -q -o r.html --json r.json || fail "fold failed"
  "$fold" t.trace >term.txt || fail "fold (terminal) failed"
  "$fold" profile t.trace >profile.txt || fail "fold profile failed"
  hbytes=$(stat -c %s r.html)
  [ "$hbytes" -lt 2000000 ] || fail "HTML report of $hbytes bytes for a $tbytes-byte trace"
  grep -q "19970 more regions, not folded" r.html || fail "the HTML does not say what it aggregated"
  [ "$(wc -l <term.txt)" -lt 200 ] || fail "terminal summary of $(wc -l <term.txt) lines"
  grep -q "and 19970 more regions, not folded: 19970 instances" term.txt ||
    fail "the terminal does not say what it aggregated: $(grep -A2 'more regions' term.txt)"
  [ "$(grep -c task_ profile.txt)" -eq 20000 ] || fail "fold profile does not list every region"
  jbytes=$(stat -c %s r.json)
  [ "$jbytes" -lt $((100 * tbytes)) ] || fail "JSON of $jbytes bytes for a $tbytes-byte trace"
  python3 - r.json <<'PY' || fail "wrong JSON"
import json, sys
d = json.load(open(sys.argv[1]))
regs = d["regions"]
assert len(regs) == 20000, len(regs)
agg = [r for r in regs if r.get("aggregated")]
assert len(agg) == 19970, len(agg)
assert d["regions_aggregated"]["regions"] == 19970, d["regions_aggregated"]
assert all("instance_list" not in r and "groups" not in r for r in agg)
assert all("instance_list" in r and "groups" in r for r in regs if not r.get("aggregated"))
assert sum(r["instances"] for r in agg) == d["regions_aggregated"]["instances"]
PY
  ;;
foldrun_unmeasurable)
  # A program the dynamic loader will not preload libfold.so into is said
  # plainly and still runs, with its own output and exit status: statically
  # linked (no dynamic loader), setuid or setgid to someone else, or with
  # file capabilities for a user other than root (secure-execution mode
  # ignores LD_PRELOAD). A normal dynamic program gets no such line.
  foldrun=${4:?foldrun} progs=${5:?progs dir}
  chmod 755 "$tmp"
  cd "$tmp"
  gcc -O1 -o dyn "$progs/exit3.c" || fail "cannot build exit3"
  run() { # expected-text-or-empty program...
    local want=$1 rc=0
    shift
    "$foldrun" -q "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" -eq 3 ] || fail "foldrun $*: exit $rc, expected the program's 3 ($(cat err.txt))"
    grep -q "hello from exit3" out.txt || fail "foldrun $*: the program did not run"
    if [ -n "$want" ]; then
      grep -qF "foldrun: $1 cannot be measured: $want" err.txt || fail "foldrun $*: said: $(cat err.txt)"
      grep -q "running it without fold" err.txt || fail "foldrun $*: $(cat err.txt)"
    else
      ! grep -q "cannot be measured" err.txt || fail "foldrun $*: $(cat err.txt)"
    fi
  }
  run "" ./dyn
  ls fold.dyn.*.trace >/dev/null 2>&1 || fail "no trace of the dynamic program"
  if gcc -static -O1 -o static "$progs/exit3.c" 2>/dev/null; then
    run "it is statically linked" ./static
    ! ls fold.static.*.trace >/dev/null 2>&1 || fail "a trace of the static program?"
  else
    echo "note: no static libc here, static case not run"
  fi
  if [ "$(id -u)" -eq 0 ]; then
    cp dyn suid && chown nobody suid && chmod 4755 suid
    run "it is setuid (to uid $(id -u nobody))" ./suid
    cp dyn sgid && chgrp "$(id -gn nobody)" sgid && chmod 2755 sgid
    run "it is setgid (to gid $(id -g nobody))" ./sgid
    if command -v setcap >/dev/null && cp dyn cap && setcap cap_net_raw+ep cap 2>/dev/null; then
      run "" ./cap # root gains no capability: measured
      out=$(su nobody -s /bin/sh -c "cd '$tmp' && '$foldrun' -q ./cap" 2>&1) && fail "cap as nobody: exit 0"
      grep -qF "foldrun: ./cap cannot be measured: it has file capabilities" <<<"$out" ||
        fail "cap as nobody: said: $out"
    fi
  fi
  ;;
foldrun_sanitizers)
  # Programs built with AddressSanitizer or ThreadSanitizer run under
  # foldrun: their runtime goes first in LD_PRELOAD (ASan aborts otherwise:
  # "ASan runtime does not come first"), the sanitizer still reports the
  # planted error with its own exit status, and the trace is written.
  foldrun=${4:?foldrun} progs=${5:?progs dir}
  cd "$tmp"
  gcc -g -O1 -fsanitize=address -pthread -o asan "$progs/san_heap.c" 2>/dev/null &&
    gcc -g -O1 -fsanitize=thread -pthread -o tsan "$progs/san_race.c" 2>/dev/null ||
    { echo "SKIP: gcc cannot build -fsanitize=address/thread programs here"; exit 77; }
  san() { # expected-exit expected-text foldrun-args...
    local want_rc=$1 want=$2 rc=0
    shift 2
    rm -f fold.*.trace
    timeout 300 "$foldrun" "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" -eq "$want_rc" ] || fail "foldrun $*: exit $rc, expected $want_rc: $(tail -5 err.txt)"
    ! grep -q "does not come first" err.txt || fail "foldrun $*: $(head -3 err.txt)"
    [ -z "$want" ] || grep -qF "$want" err.txt || fail "foldrun $*: no '$want' in: $(head -20 err.txt)"
    grep -q "^work \|^2 " out.txt || fail "foldrun $*: the program did not run: $(cat out.txt)"
    local t
    t=$(ls fold.*.trace 2>/dev/null | head -1)
    [ -s "$t" ] || fail "foldrun $*: no trace written"
    # (fold itself without the program's LD_PRELOAD: an ASan-built fold wants its runtime first)
    env -u LD_PRELOAD "$fold" dump "$t" >/dev/null 2>&1 || fail "foldrun $*: the trace does not read"
  }
  san 0 "" -q ./asan
  san 1 "ERROR: AddressSanitizer: heap-buffer-overflow" -q ./asan planted
  LD_PRELOAD=libm.so.6 san 1 "ERROR: AddressSanitizer: heap-buffer-overflow" -q ./asan planted
  LD_PRELOAD=libasan.so.8 san 1 "ERROR: AddressSanitizer: heap-buffer-overflow" -q ./asan planted
  san 66 "WARNING: ThreadSanitizer: data race" -q ./tsan
  grep -q "foldrun: ./tsan uses ThreadSanitizer: fold records its regions and counters but takes no samples" \
    err.txt || fail "foldrun tsan did not say it takes no samples: $(head -3 err.txt)"
  ;;
terminal_escapes)
  # Names, paths and text from a trace never drive the terminal: no ESC,
  # BEL or C1 control reaches stdout or stderr of any command, and CSV
  # cells that a spreadsheet would evaluate (a leading TAB or =) are
  # defused.
  make_hostile=${4:?make_hostile_trace}
  cd "$tmp"
  "$make_hostile" escapes e.trace
  check_clean() { # file, what
    if grep -qP '\x1b|\x07|\x9b' "$1"; then
      fail "$2: control characters reached the output: $(grep -aP '\x1b|\x07|\x9b' "$1" | head -3 | cat -v)"
    fi
  }
  rc=0
  "$fold" e.trace >o.txt 2>e.txt || rc=$?
  [ "$rc" -eq 0 ] || fail "fold on the trace: exit $rc: $(cat -v e.txt)"
  check_clean o.txt "fold TRACE (stdout)"
  check_clean e.txt "fold TRACE (stderr)"
  grep -q "pwned" o.txt || fail "the region is not listed: $(cat -v o.txt | head -40)"
  "$fold" profile e.trace >o.txt 2>e.txt || fail "fold profile failed: $(cat -v e.txt)"
  check_clean o.txt "fold profile (stdout)"
  check_clean e.txt "fold profile (stderr)"
  grep -q "throttled at" o.txt || fail "fold profile: no throttled note: $(cat -v o.txt)"
  rc=0
  "$fold" e.trace --region nope >o.txt 2>e.txt || rc=$?
  [ "$rc" -eq 2 ] || fail "--region nope: exit $rc"
  check_clean e.txt "--region nope (the nearest names)"
  "$fold" dump e.trace >o.txt 2>e.txt || fail "fold dump failed"
  check_clean o.txt "fold dump (stdout)"
  "$fold" e.trace -q --csv csv || fail "fold --csv failed"
  for f in csv/*.csv; do check_clean "$f" "$f"; done
  grep -qF "\"'"$'\t'"=HYPERLINK" csv/regions.csv ||
    fail "regions.csv: the formula is not defused: $(grep -a HYPERLINK csv/regions.csv | head -2 | cat -A)"
  ;;
live_file)
  # A trace's live file (TRACE.live, left by a process that ended without
  # fold's final flush) is untrusted input too: a FIFO there never blocks,
  # a damaged one is named and ignored, and the trace is read all the same.
  "$make_seed" "$tmp"
  t="$tmp/seed-zlib.bin"
  base=$("$fold" -q "$t" --json "$tmp/base.json" 2>&1) || fail "fold on the plain trace: $base"
  mkfifo "$t.live"
  out=$(timeout 20 "$fold" -q "$t" 2>&1) || fail "a FIFO as the live file: exit $?: $out"
  grep -q "not a regular file" <<<"$out" || fail "a FIFO as the live file is not named: $out"
  rm "$t.live"
  python3 - "$t.live" <<'PY'
import struct, sys
hdr = b"FOLDLIV1" + struct.pack("<IIIIIIQ", 1, 69632, 40, 65536, 1000000, 0, 1)
open(sys.argv[1], "wb").write(hdr.ljust(4096, b"\0") + b"\0" * 69632)
PY
  out=$("$fold" -q "$t" 2>&1) || fail "a live file claiming a million slots: exit $?: $out"
  grep -q "more slots than the file holds" <<<"$out" || fail "the impossible slot count is not named: $out"
  python3 - "$t.live" <<'PY'
import struct, sys
hdr = b"FOLDLIV1" + struct.pack("<IIIIIIQ", 1, 69632, 40, 65536, 2, 0, 1)
slot = struct.pack("<IIIII", 1, 0, 7, 0, 4000000000)  # a length past what a slot holds
data = hdr.ljust(4096, b"\0") + (slot.ljust(69632, b"\0")) * 2
open(sys.argv[1], "wb").write(data)
PY
  out=$("$fold" -q "$t" --json "$tmp/live.json" 2>&1) || fail "a live file with a slot too long: exit $?: $out"
  grep -q "recovered" <<<"$out" && fail "a slot too long was taken: $out"
  printf 'FOLDLIV1' >"$t.live"
  out=$("$fold" -q "$t" 2>&1) || fail "a live file cut after its magic: exit $?: $out"
  grep -q "shorter than its header" <<<"$out" || fail "the cut live file is not named: $out"
  # Given on its own, it is not taken for a trace; given beside its trace
  # (fold run.*), it is read with it.
  python3 - "$t.live" <<'PY'
import struct, sys
hdr = b"FOLDLIV1" + struct.pack("<IIIIIIQ", 1, 69632, 40, 65536, 0, 0, 1)
open(sys.argv[1], "wb").write(hdr.ljust(4096, b"\0"))
PY
  if out=$("$fold" -q "$t.live" 2>&1); then fail "a live file analysed as a trace"; fi
  grep -q "is the live file of a trace" <<<"$out" || fail "a live file given alone: $out"
  "$fold" -q "$t" "$t.live" >/dev/null 2>&1 || fail "a trace and its live file given together"
  ;;
unknown_region)
  # A --region that names no region is a usage error: the nearest names, exit
  # 2, and no output file at all, for the report, profile and export alike.
  "$make_seed" "$tmp"
  t="$tmp/seed-zlib.bin" # its one region is "step"
  for cmd in "" profile "export --format=folded" "export --format=chrome"; do
    rc=0
    # shellcheck disable=SC2086
    "$fold" $cmd --region stpe -o "$tmp/out" $([ -z "$cmd" ] && echo "--json $tmp/out.json") "$t" \
      >"$tmp/stdout" 2>"$tmp/err" || rc=$?
    [ "$rc" -eq 2 ] || fail "fold $cmd --region stpe: exit $rc, expected 2"
    grep -qF "fold: --region stpe: no region of that name in $t; nearest: step" "$tmp/err" ||
      fail "fold $cmd --region stpe: message was: $(cat "$tmp/err")"
    grep -q "fold profile" "$tmp/err" || fail "fold $cmd: no hint how to list the regions"
    [ ! -e "$tmp/out" ] && [ ! -e "$tmp/out.json" ] || fail "fold $cmd --region stpe wrote an output file"
    [ ! -s "$tmp/stdout" ] || fail "fold $cmd --region stpe printed: $(head -c 300 "$tmp/stdout")"
  done
  # The right name still works.
  "$fold" --region step -q --json "$tmp/ok.json" "$t" || fail "fold --region step failed"
  [ -s "$tmp/ok.json" ] || fail "fold --region step wrote nothing"
  ;;
newer_version)
  "$make_seed" "$tmp"
  t="$tmp/seed-zlib.bin"
  # Bump the major version in the file header (bytes 8-9).
  printf '\x63\x00' | dd of="$t" bs=1 seek=8 conv=notrunc status=none
  out=$("$fold" dump "$t" 2>&1) && fail "a newer major version must be refused"
  # (the minor version is the writer's own)
  grep -Eq "written by a newer fold \(trace format 99\.[0-9]+\)" <<<"$out" || fail "message was: $out"
  ;;
real_run_checked)
  # The whole analysis of a real run, every output written, under memcheck
  # (or, in the ASan build, under ASan+UBSan): no invalid access, no
  # uninitialised use, no leak.
  libfold=${4:?libfold.so} example=${5:?example program} checker=${6:-valgrind}
  wrap=()
  if [ "$checker" = valgrind ]; then
    command -v valgrind >/dev/null || { echo "SKIP: valgrind not installed"; exit 77; }
    wrap=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
      --suppressions="$(dirname "$0")/valgrind.supp")
  fi
  (cd "$tmp" && FOLD_QUIET=1 FOLD_OUTPUT=run.trace LD_PRELOAD="$libfold" "$example" 60 0.3 >/dev/null)
  [ -s "$tmp/run.trace" ] || fail "the example wrote no trace"
  "${wrap[@]}" "$fold" "$tmp/run.trace" -q -o "$tmp/r.html" --json "$tmp/r.json" --csv "$tmp/csv" \
    >"$tmp/check.out" 2>&1 || { cat "$tmp/check.out"; fail "$checker reported errors"; }
  [ -s "$tmp/r.html" ] && [ -s "$tmp/r.json" ] || fail "outputs missing"
  ;;
help_matches_man)
  # Every option `fold --help` lists is documented in fold(1), and every
  # option fold(1) documents is accepted by fold.
  man=${4:?man page path}
  help=$("$fold" --help)
  opts=$(grep -oE -- '--[a-z][a-z-]+' <<<"$help" | sort -u)
  [ -n "$opts" ] || fail "no options found in --help"
  for o in $opts; do
    grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$man" || fail "option $o of --help is not in $man"
  done
  for o in $(grep -oE '^\.B[IR]? \\-\\-[a-z-]+' "$man" | sed 's/.* //; s/\\//g' | sort -u); do
    grep -qF -- "$o" <<<"$help" || fail "option $o of $man is not in --help"
  done
  ;;
*) fail "unknown case $case_name" ;;
esac
echo "PASS: $case_name"
