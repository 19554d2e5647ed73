#!/usr/bin/env python3
"""percall.py RUNDIR [FOLD]: per timed call of a miniFE run of the
validation suite (run.sh --keep DIR; RUNDIR = DIR/run/miniFE.MODE), what
lies between the app's fenced TSC right around the call (FOLD_CALL, the
per-call log fold_calls.0.txt) and the clocks of the call's hooks in
rank 0's trace: before the enter's first measured clock (the call's entry
and the way into the hook) and after the exit's last one (the end of the
hook and the return), each holding the TSC pair's own cost too (tsc_pair
in fold_tsc.0.txt). Prints medians, p10/p90 and sums per kernel (W:
WAXPY, D: DOT, M: MATVEC), and per call site when a kernel has several
(its line in cg_solve), the first call (the runtime's decisions, which
fold measures) left out; with run.sh's FOLD_VALIDATION_COLD_PROBE=1 also
what an empty function right before each call took cold over warm (the
floor of what a hook inside a function can see). FOLD: the fold binary
(default $FOLD, else build/src/cli/fold). check.py uses outside() to tell a stop of the
program outside every clock (a VM stop, a preemption, a signal) from fold's
error.
What the figures mean: docs/validation.md, "What a compiler hook cannot
see"."""
import bisect
import glob
import os
import statistics
import subprocess
import sys

# Outside the clocks for longer than this: the program stopped. fold's own
# way into and out of its hooks took at most 0.8 us in every call of the
# runs measured (MATVEC's, after 20 MB of streaming; the rest under 0.4 us);
# the test VM stops a program for 1-4 us some 16,000 times a second, with
# no interrupt or steal time the guest can see (stalls.c; docs/validation.md,
# "Stop 28"). It had been 5 us, which took only the VM's rarer long stops.
STOP_NS = 1000
# A stop is rare: when more than this share of a kernel's calls hold one,
# they are a slow path of fold's, not stops, and stay in fold's error.
MAX_STOP_SHARE = 0.01


def default_fold():
    return os.environ.get("FOLD") or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "../../build/src/cli/fold")


def outside(d, fold=None):
    """{tag: {"before": [ns...], "after": [ns...], "ref_ns": total}} per
    timed kernel of rank 0's busiest thread, the first call left out; None
    without a per-call log, a rank-0 trace or a fold to read it."""
    traces = sorted(glob.glob(os.path.join(d, "fold.0.*.trace")))
    log = os.path.join(d, "fold_calls.0.txt")
    if not traces or not os.path.exists(log):
        return None
    try:
        dump = subprocess.run([fold or default_fold(), "dump", traces[0]], capture_output=True, text=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    hz, defs, ev, last = None, {}, {}, None
    for line in dump.splitlines():
        w = line.split()
        if len(w) < 3:
            continue
        if w[1] == "info" and '"clock.tick_hz"' in line:
            hz = float(line.split("=", 1)[1].strip().strip('"'))
        elif w[1] == "region_def":
            defs[w[2][3:]] = w[3]
        elif w[1] in ("enter", "exit") and w[3].startswith("region="):
            last = [int(w[2][5:]), w[1], w[3][7:], 0, 0]
            ev.setdefault(w[0], []).append(last)
            continue
        elif w[1] == "hook_cost" and last is not None:
            for f in w[2:]:
                k, v = f.split("=")
                last[3 if k == "after_ticks" else 4] = int(v)
        last = None
    fn = {s: sorted((e for e in v if defs.get(e[2]) == "kind=function"), key=lambda e: e[0]) for s, v in ev.items()}
    fn = max(fn.values(), key=len, default=[])
    if not hz or not fn:
        return None
    ticks = [e[0] for e in fn]
    res, seen = {}, set()
    for line in open(log):
        w = line.split()
        tag, c0, c1 = w[0], int(w[1]), int(w[2])
        # the empty function FOLD_CALL times right before the call, cold then
        # warm (fold_step.h, FOLD_COLD_PROBE); 0 0 when not built in, absent
        # from logs of older runs
        probe = (int(w[3]) - int(w[4])) * 1e9 / hz if len(w) >= 5 and w[3:5] != ["0", "0"] else None
        evs = fn[bisect.bisect_left(ticks, c0):bisect.bisect_right(ticks, c1)]
        if len(evs) < 2 or evs[0][1] != "enter" or evs[-1][1] != "exit":
            continue
        r = res.setdefault(tag, {"before": [], "after": [], "cold_entry": [], "ref_ns": 0.0, "site": []})
        r["ref_ns"] += (c1 - c0) * 1e9 / hz
        if tag not in seen:
            seen.add(tag)
            continue
        en, ex = evs[0], evs[-1]
        r["before"].append((en[0] - c0 - en[4]) * 1e9 / hz)
        r["after"].append((c1 - ex[0] - ex[3]) * 1e9 / hz)
        # the call's source line in cg_solve (6th column; absent from logs
        # of older runs)
        r["site"].append(int(w[5]) if len(w) >= 6 else None)
        if probe is not None:
            r["cold_entry"].append(probe)
    return res


def cold_entry(r):
    """(calls, ns): what the empty function before each call (but the first)
    took cold over warm, summed, leaving out the calls whose probe or
    whose time outside the clocks held a stop; (0, 0.0) without probes"""
    n, ns = 0, 0.0
    for b, a, p in zip(r["before"], r["after"], r["cold_entry"]):
        if b <= STOP_NS and a <= STOP_NS and abs(p) <= STOP_NS:
            n += 1
            ns += p
    return n, max(0.0, ns)


def stops(r):
    """(calls, ns) of one kernel's calls that held a stop outside the clocks;
    (0, 0.0) when more than MAX_STOP_SHARE of its calls did (a slow path)"""
    n, ns = 0, 0.0
    for b, a in zip(r["before"], r["after"]):
        if b > STOP_NS or a > STOP_NS:
            n += 1
            ns += b + a
    if n > MAX_STOP_SHARE * len(r["before"]):
        return 0, 0.0
    return n, ns


def q(v, p):
    v = sorted(v)
    return v[int(p * (len(v) - 1))]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    res = outside(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
    if res is None:
        sys.exit("percall.py: %s has no rank-0 trace or no fold_calls.0.txt (a run of this suite's --keep), or "
                 "fold could not read it" % sys.argv[1])
    for tag, r in sorted(res.items()):
        n = len(r["before"])
        print("%s: %d calls of %.1f us" % (tag, n + 1, r["ref_ns"] / (n + 1) / 1e3))
        for k in ("before", "after"):
            v = r[k]
            if not v:
                continue
            print("  %-6s median %5.0f ns, p10 %5.0f, p90 %5.0f, max %8.0f; sum %.4f%% of the calls (%.4f%% without "
                  "those over %d us)" % (k, statistics.median(v), q(v, .1), q(v, .9), max(v), 100 * sum(v) / r["ref_ns"],
                                         100 * sum(x for x in v if x < STOP_NS) / r["ref_ns"], STOP_NS // 1000))
        sites = sorted({x for x in r["site"] if x is not None})
        if len(sites) > 1:
            # per call site: what came before the call differs (DOT's call
            # right after MATVEC waits longer on its way in than the one
            # after WAXPY, docs/validation.md "Stop 26")
            for line in sites:
                b = [x for x, s in zip(r["before"], r["site"]) if s == line]
                a = [x for x, s in zip(r["after"], r["site"]) if s == line]
                c = [x for x, s in zip(r["cold_entry"], r["site"]) if s == line]
                print("  call at line %d: %d calls, before median %5.0f ns, p90 %5.0f; after median %5.0f ns, "
                      "p90 %5.0f%s" % (line, len(b), statistics.median(b), q(b, .9), statistics.median(a), q(a, .9),
                                       "; empty function cold over warm median %.0f ns, p90 %.0f"
                                       % (statistics.median(c), q(c, .9)) if c else ""))
        v = r["cold_entry"]
        if v:
            cn, cns = cold_entry(r)
            print("  an empty function right before, cold over warm: median %5.0f ns, p10 %5.0f, p90 %5.0f; sum %.4f%% "
                  "of the calls (%d calls without stops)" % (statistics.median(v), q(v, .1), q(v, .9),
                                                            100 * cns / r["ref_ns"], cn))
        ns, sns = stops(r)
        if ns:
            print("  %d call(s) held a stop of over %d us outside the clocks: %.1f us in all" % (ns, STOP_NS // 1000,
                                                                                             sns / 1e3))


if __name__ == "__main__":
    main()
