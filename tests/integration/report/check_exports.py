#!/usr/bin/env python3
"""Checks `fold export` on the known trace of make_export_trace.

usage: check_exports.py FOLD MAKE_EXPORT_TRACE WORKDIR

pprof: gunzips, decodes with `protoc --decode_raw` and with a small protobuf
reader here; sample counts, CPU time, build-id, function names and
leaf-first location order must match. Chrome: parses (json.tool too), B/E
events balanced and nested per thread, sample events counted. Folded: the
counts sum to the samples. Each with --region and --from/--to filters.
Sampling modes: for each FOLD_SAMPLE form, pprof's period and Chrome's
sample slices follow the sampling the analysis reports.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys

failures = []


def check(ok, msg):
    if not ok:
        failures.append(msg)
        print("FAIL:", msg)


def run(args, expect_rc=0):
    p = subprocess.run(args, capture_output=True)
    if p.returncode != expect_rc:
        failures.append("%s exited %d (want %d): %s" % (" ".join(args), p.returncode, expect_rc,
                                                        p.stderr.decode(errors="replace")))
    return p


# --- a minimal protobuf reader: message bytes -> {field: [values]} ---
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def message(b):
    out, i = {}, 0
    while i < len(b):
        key, i = varint(b, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(b, i)
        elif wire == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wire == 1:
            v, i = b[i:i + 8], i + 8
        elif wire == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wire)
        out.setdefault(field, []).append(v)
    return out


def packed(v):
    if isinstance(v, int):
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def pprof_check(fold, trace, exp, work):
    out = os.path.join(work, "p.pb.gz")
    run([fold, "export", "--format=pprof", "-q", "-o", out, trace])
    raw = gzip.open(out).read()
    if shutil.which("protoc"):
        p = subprocess.run(["protoc", "--decode_raw"], input=raw, capture_output=True)
        check(p.returncode == 0, "protoc --decode_raw failed: %s" % p.stderr.decode(errors="replace"))
        check(b"export_leaf_alpha" in p.stdout, "protoc output lacks export_leaf_alpha")
    prof = message(raw)
    strings = [s.decode() for s in prof.get(6, [])]
    check(strings and strings[0] == "", "string_table[0] must be empty")
    types = [message(m) for m in prof.get(1, [])]
    names = [(strings[t[1][0]], strings[t[2][0]]) for t in types]
    check(names == [("samples", "count"), ("cpu", "nanoseconds")], "sample_type %r" % names)
    funcs = {message(m)[1][0]: message(m) for m in prof.get(5, [])}
    locs = {}
    for m in prof.get(4, []):
        loc = message(m)
        lines = [message(l) for l in loc.get(4, [])]
        locs[loc[1][0]] = [strings[funcs[l[1][0]][2][0]] for l in lines]
    maps = [message(m) for m in prof.get(3, [])]
    bids = [strings[m[6][0]] for m in maps if 6 in m]
    check(exp["build_id"] in bids, "no Mapping with build_id %s (have %r)" % (exp["build_id"], bids))
    check(any(strings[m[5][0]] == exp["exe"] for m in maps), "no Mapping for %s" % exp["exe"])
    total = cpu = 0
    per_leaf = {}
    for m in prof.get(2, []):
        s = message(m)
        values = [signed(v) for v in packed(s[2][0])]
        ids = packed(s[1][0]) if 1 in s else []
        stack = [locs[i][0] for i in ids]  # outermost inlined... line 0 is innermost
        total += values[0]
        cpu += values[1]
        check(stack[1:] == ["export_middle", "export_top"], "stack not leaf first: %r" % stack)
        per_leaf[stack[0]] = per_leaf.get(stack[0], 0) + values[0]
        labels = {strings[message(l)[1][0]] for l in s.get(3, [])}
        check({"pid", "thread"} <= labels, "sample labels %r" % labels)
    check(total == exp["total"], "pprof samples %d != %d" % (total, exp["total"]))
    check(cpu == exp["total"] * exp["cpu_ns_per_sample"], "pprof cpu %d" % cpu)
    check(per_leaf == {"export_leaf_alpha": exp["alpha"], "export_leaf_beta": exp["beta"]},
          "pprof per leaf %r" % per_leaf)


def folded(fold, trace, work, *opts):
    out = os.path.join(work, "f.txt")
    run([fold, "export", "--format=folded", "-q", "-o", out] + list(opts) + [trace])
    counts = {}
    for line in open(out, encoding="utf-8"):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        counts[stack] = counts.get(stack, 0) + int(n)
    return counts


def folded_check(fold, trace, exp, work):
    c = folded(fold, trace, work)
    check(sum(c.values()) == exp["total"], "folded sum %d != %d" % (sum(c.values()), exp["total"]))
    check(c.get("export_top;export_middle;export_leaf_alpha") == exp["alpha"], "folded alpha stack %r" % c)
    check(c.get("export_top;export_middle;export_leaf_beta") == exp["beta"], "folded beta stack %r" % c)
    p = run([fold, "export", "--format=folded", trace])
    check(p.stdout.decode().count("\n") == len(c), "folded on stdout differs from -o")
    for opts, key in ((["--region", "outer<T>"], "in_outer"), (["--region", "inner"], "in_inner"),
                      (["--from", str(exp["from"]), "--to", str(exp["to"])], "in_window")):
        n = sum(folded(fold, trace, work, *opts).values())
        check(n == exp[key], "folded %s: %d samples, want %d" % (" ".join(opts), n, exp[key]))


def chrome(fold, trace, work, *opts):
    out = os.path.join(work, "c.json")
    run([fold, "export", "--format=chrome", "-q", "-o", out] + list(opts) + [trace])
    p = subprocess.run([sys.executable, "-m", "json.tool", out], capture_output=True)
    check(p.returncode == 0, "json.tool rejects the chrome export: %s" % p.stderr.decode(errors="replace"))
    events = json.load(open(out, encoding="utf-8"))["traceEvents"]
    stacks, samples, begins, slice_ends = {}, [], 0, {}
    for e in events:
        key = (e["pid"], e.get("tid"))
        if e["ph"] == "B":
            stacks.setdefault(key, []).append((e["name"], e["ts"]))
            begins += 1
        elif e["ph"] == "E":
            st = stacks.get(key, [])
            check(st and st[-1][0] == e["name"] and st[-1][1] <= e["ts"],
                  "unbalanced E %s on %r" % (e["name"], key))
            inside = [end for depth, end in slice_ends.get(key, []) if depth == len(st)]
            check(all(end <= e["ts"] + 2e-3 for end in inside), "a sample slice outlasts its region %s" % e["name"])
            slice_ends[key] = [(d, end) for d, end in slice_ends.get(key, []) if d != len(st)]
            if st:
                st.pop()
        elif e["ph"] == "X" and e["cat"] == "sample":
            # Consecutive samples of a thread with one stack are one slice:
            # counted here as the samples it stands for.
            n = e["args"].get("samples", 0)
            check(n >= 1 and e["dur"] >= 0, "bad sample slice %r" % e)
            samples.extend([e] * n)
            check("stack" in e["args"] and e["args"]["stack"].endswith(e["name"]), "sample without stack")
            st = stacks.get(key, [])
            check(not st or st[-1][1] <= e["ts"], "sample slice before its enclosing region's begin")
            if st:
                slice_ends.setdefault(key, []).append((len(st), e["ts"] + e["dur"]))
        elif e["ph"] == "i":
            check(False, "a sample as an instant event: %r" % e)
    for key, st in stacks.items():
        check(not st, "unclosed B events on %r: %r" % (key, st))
    return events, samples, begins


def chrome_check(fold, trace, exp, work):
    events, samples, begins = chrome(fold, trace, work)
    check(len(samples) == exp["total"], "chrome samples %d != %d" % (len(samples), exp["total"]))
    check(begins == 20 + 20 + 1, "chrome region begins %d, want 41" % begins)
    # named and numbered as the reports do (the main thread is #0), in that order
    names = {e["args"]["name"]: e["tid"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    check(set(names) == {"main (thread #0)", "worker (thread #1)"}, "thread names %r" % sorted(names))
    order = {e["tid"]: e["args"]["sort_index"] for e in events if e["ph"] == "M" and e["name"] == "thread_sort_index"}
    check(order.get(names["main (thread #0)"]) == 0 and order.get(names["worker (thread #1)"]) == 1,
          "thread sort order %r" % order)
    _, samples, _ = chrome(fold, trace, work, "--region", "inner")
    check(len(samples) == exp["in_inner"], "chrome --region inner: %d samples" % len(samples))
    events, samples, _ = chrome(fold, trace, work, "--from", str(exp["from"]), "--to", str(exp["to"]))
    check(len(samples) == exp["in_window"], "chrome window: %d samples" % len(samples))
    lo, hi = exp["from"] * 1e6, exp["to"] * 1e6
    check(all(lo - 1e-3 <= e["ts"] <= e["ts"] + e.get("dur", 0) <= hi + 2e-3 for e in events if e["ph"] != "M"),
          "event outside the window")
    events, samples, _ = chrome(fold, trace, work, "--from", str(exp["from2"]), "--to", str(exp["to2"]))
    check(len(samples) == exp["in_window2"], "chrome window 2: %d samples" % len(samples))
    lo, hi = exp["from2"] * 1e6, exp["to2"] * 1e6
    check(all(lo - 1e-3 <= e["ts"] <= e["ts"] + e.get("dur", 0) <= hi + 2e-3 for e in events if e["ph"] != "M"),
          "event outside window 2")
    clipped = [e for e in events if e["ph"] == "B" and e.get("args", {}).get("clipped")]
    check(len(clipped) >= 2, "regions open at the window start are not opened as clipped: %r" % clipped)
    _, samples, begins = chrome(fold, trace, work, "--no-samples")
    check(not samples and begins == 41, "--no-samples still writes samples")


def errors_check(fold, trace, work):
    p = run([fold, "export", "--format=svg", trace], 2)
    check(b"--format svg" in p.stderr, "bad format message: %r" % p.stderr)
    p = run([fold, "export", "--format=folded", os.path.join(work, "missing.bin")], 1)
    check(b"missing.bin" in p.stderr, "missing trace message: %r" % p.stderr)
    p = run([fold, "export", "--format=folded", "--region", "innr", trace], 2)
    check(b"--region innr: no region of that name" in p.stderr and b"nearest: inner" in p.stderr,
          "unknown region message: %r" % p.stderr)
    p = run([fold, "export", "--format=folded", "--from", "2", "--to", "1", trace], 2)


# Each FOLD_SAMPLE form: what the analysis reports (sample_config), the
# pprof period_type and period, and how long Chrome draws a lone sample (a
# timer's period, in us; an overflow's period counts events, so none).
SAMPLING_MODES = {
    "wall": ("wall-clock timer every 1 ms", ("cpu", "nanoseconds", 1000000), 1000.0),
    "cputime-rt": ("CPU-time timer every 1 ms", ("cpu", "nanoseconds", 1000000), 1000.0),
    "cputime": ("CPU-time timer every 1 ms", ("cpu", "nanoseconds", 1000000), 1000.0),
    "overflow": ("PAPI_TOT_CYC every 2000000 events", ("PAPI_TOT_CYC", "count", 2000000), 0.0),
    "off": ("off", None, 0.0),
}


def sampling_check(fold, maker, work):
    """The exporters take each sampling mode as the analysis does."""
    for mode, (config, period, lone_us) in SAMPLING_MODES.items():
        trace = os.path.join(work, "mode-%s.trace" % mode)
        run([maker, trace, trace + ".expect", mode])
        out = os.path.join(work, "mode-%s.json" % mode)
        run([fold, "-q", trace, "--json", out])
        got = json.load(open(out, encoding="utf-8")).get("sample_config") if os.path.exists(out) else None
        check(got == config, "%s: the analysis reports sampling %r, want %r" % (mode, got, config))
        pb = os.path.join(work, "mode-%s.pb.gz" % mode)
        run([fold, "export", "--format=pprof", "-q", "-o", pb, trace])
        prof = message(gzip.open(pb).read())
        strings = [x.decode() for x in prof.get(6, [])]
        have = None
        if 11 in prof:
            t = message(prof[11][0])
            have = (strings[t[1][0]], strings[t[2][0]], prof.get(12, [0])[0])
        check(have == period, "%s: pprof period %r, want %r (as the analysis: %s)" % (mode, have, period, config))
        events, _, _ = chrome(fold, trace, work)
        lone = [e["dur"] for e in events if e["ph"] == "X" and e["cat"] == "sample" and e["args"]["samples"] == 1]
        check(lone and max(lone) == lone_us,
              "%s: chrome draws a lone sample up to %r us, want %r (as the analysis: %s)" %
              (mode, max(lone) if lone else None, lone_us, config))


def main():
    fold, maker, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    trace, expect = os.path.join(work, "export.trace"), os.path.join(work, "export.expect")
    run([maker, trace, expect])
    exp = {}
    for line in open(expect):
        k, v = line.rstrip("\n").split("=", 1)
        try:
            exp[k] = int(v)
        except ValueError:
            try:
                exp[k] = float(v)
            except ValueError:
                exp[k] = v
    folded_check(fold, trace, exp, work)
    chrome_check(fold, trace, exp, work)
    pprof_check(fold, trace, exp, work)
    errors_check(fold, trace, work)
    sampling_check(fold, maker, work)
    print("exports: %s" % ("ok" if not failures else "%d failure(s)" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
