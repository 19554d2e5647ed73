#!/usr/bin/env python3
"""percall.py RUNDIR [FOLD]: per timed call of a miniFE run of the
validation suite (run.sh --keep DIR; RUNDIR = DIR/run/miniFE.MODE), what
lies between the app's fenced TSC right around the call (FOLD_CALL, the
per-call log fold_calls.0.txt) and the clocks of the call's hooks in
rank 0's trace: before the enter's first measured clock (the call's entry
and the way into the hook) and after the exit's last one (the end of the
hook and the return), each holding one fenced TSC read of the app's too.
Prints medians, p10/p90 and sums per kernel (W: WAXPY, D: DOT, M:
MATVEC), the call before the first (the runtime's decisions) left out of
the sums. FOLD: the fold binary (default build/src/cli/fold). What the
figures mean: docs/validation.md, "What a compiler hook cannot see"."""
import bisect
import glob
import os
import statistics
import subprocess
import sys

d = sys.argv[1]
fold = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "../../build/src/cli/fold")
traces = sorted(glob.glob(os.path.join(d, "fold.0.*.trace")))
if not traces or not os.path.exists(os.path.join(d, "fold_calls.0.txt")):
    sys.exit("percall.py: %s has no rank-0 trace or no fold_calls.0.txt (a run of this suite's --keep)" % d)
dump = subprocess.run([fold, "dump", traces[0]], capture_output=True, text=True, check=True).stdout
hz, defs, ev, last = None, {}, [], None
for l in dump.splitlines():
    w = l.split()
    if len(w) < 3:
        continue
    if w[1] == "info" and '"clock.tick_hz"' in l:
        hz = float(l.split("=", 1)[1].strip().strip('"'))
    elif w[1] == "region_def":
        defs[int(w[2][3:])] = w[3]
    elif w[1] in ("enter", "exit") and w[3].startswith("region="):
        last = [int(w[2][5:]), w[1], int(w[3][7:]), 0, 0]
        ev.append(last)
        continue
    elif w[1] == "hook_cost" and last is not None:
        for f in w[2:]:
            k, v = f.split("=")
            last[3 if k == "after_ticks" else 4] = int(v)
    last = None
fn = sorted((e for e in ev if defs.get(e[2]) == "kind=function"), key=lambda e: e[0])
ticks = [e[0] for e in fn]
res = {}
for l in open(os.path.join(d, "fold_calls.0.txt")):
    tag, c0, c1 = l.split()
    c0, c1 = int(c0), int(c1)
    evs = fn[bisect.bisect_left(ticks, c0):bisect.bisect_right(ticks, c1)]
    if len(evs) < 2 or evs[0][1] != "enter" or evs[-1][1] != "exit":
        continue
    en, ex = evs[0], evs[-1]
    r = res.setdefault(tag, {"before": [], "after": [], "ref": 0.0})
    r["before"].append((en[0] - c0 - en[4]) * 1e9 / hz)
    r["after"].append((c1 - ex[0] - ex[3]) * 1e9 / hz)
    r["ref"] += (c1 - c0) * 1e9 / hz


def q(v, p):
    v = sorted(v)
    return v[int(p * (len(v) - 1))]


for tag, r in sorted(res.items()):
    n = len(r["before"])
    print("%s: %d calls of %.1f us" % (tag, n, r["ref"] / n / 1e3))
    for k in ("before", "after"):
        v = r[k][1:]
        print("  %-6s median %5.0f ns, p10 %5.0f, p90 %5.0f, max %8.0f; sum %.4f%% of the calls (%.4f%% without those over 5 us)"
              % (k, statistics.median(v), q(v, .1), q(v, .9), max(v), 100 * sum(v) / r["ref"],
                 100 * sum(x for x in v if x < 5000) / r["ref"]))
