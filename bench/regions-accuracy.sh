#!/bin/sh
# regions-accuracy.sh BUILD_DIR [ROUNDS]: fold's exact profile against the
# program's own clock. prog_calls accuracy ROUNDS (outer_phase { phase_a 3 ms;
# phase_b 1.5 ms; 0.5 ms of its own }, timed with CLOCK_MONOTONIC around each
# call) under libfold with throttling off; prints fold's inclusive time (and
# that + the calls' own hooks, hooks_ns) and exclusive time minus the
# program's, per region, in ns and %.
# With STRESS=cache (and stress-ng installed) a cache-thrashing neighbour runs
# meanwhile: the hooks then run cold, which the runtime measures (docs/regions.md).
#   sh bench/regions-accuracy.sh build 20
set -eu
build=$(cd "${1:?usage: regions-accuracy.sh BUILD_DIR [ROUNDS]}" && pwd)
rounds=${2:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -n "${spid:-}" ] && kill "$spid" 2>/dev/null; true' EXIT
cd "$tmp"
if [ "${STRESS:-}" = cache ]; then
	command -v stress-ng >/dev/null || { echo "STRESS=cache needs stress-ng" >&2; exit 2; }
	stress-ng --cache 1 --timeout 120 >/dev/null 2>&1 &
	spid=$!
	sleep 1
fi
FOLD_QUIET=1 FOLD_THROTTLE=off LD_PRELOAD="$build/src/runtime/libfold.so" \
	"$build/tests/integration/regions/prog_calls" accuracy "$rounds" >own.txt
"$build/src/cli/fold" -q ./*.trace --json out.json
python3 - <<'PY'
import json
a = json.load(open("out.json"))
prof = {p["name"]: p for p in a["profile"]}
for line in open("own.txt"):
    _, n, incl, excl = line.split()
    incl, excl = int(incl), int(excl)
    p = prof[n]
    di, de = p["inclusive_ns"] - incl, p["exclusive_ns"] - excl
    # the program's timers are right around the calls: they hold the calls'
    # own hooks, which fold reports apart (hooks_ns, docs/regions.md); not
    # the first call's one-time work: the first round is not timed
    dh = di + p.get("hooks_ns", 0) - p.get("hooks_first_ns", 0)
    print("%-12s inclusive %+9.0f ns (%+.4f%%)  + own hooks %+9.0f ns (%+.4f%%)  exclusive %+9.0f ns (%+.4f%%)" % (
        n, di, 100 * di / incl, dh, 100 * dh / incl, de, 100 * de / excl))
PY
echo "reproduce: ${STRESS:+STRESS=$STRESS }sh bench/regions-accuracy.sh BUILD_DIR $rounds"
