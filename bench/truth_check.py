#!/usr/bin/env python3
"""truth_check.py: judges fold's JSON against the truth bench/truth-prog.c
recorded, one run at a time, and sums the runs up (issue 30's randomized
truth bench on real runs; bench/truth-run.sh drives it).

  truth_check.py judge --truth TRUTH.json --fold FOLD.json --meta META.json
      prints one line on the run and appends its record (one JSON line) to
      --results FILE; exit 0 whatever fold answered, 2 when an input is
      missing or cannot be read (a defect of the harness or a crash).
  truth_check.py summary RESULTS.jsonl
      prints the figures over the runs.

The definitions are issue 30's (/work docs: docs/validation.md, "The
randomized truth bench on real runs"). An answer is WRONG when its phase
count differs from the truth's, a phase start is off by more than 0.02 of
the instance, a phase's rate of the app counter "work" is off by more than
5% (of the truth; of the region's highest phase rate where the truth is 0,
a wait), or its CPU rate by more than 0.05 CPU; or when the folded
instances mix two rate populations (at least 10% of each). FLAGGED: the
region's fidelity verdict is not "consistent" (until fold's JSON has
"fidelity", the split-half self-check not done or not reproducible).
Coverage: the share of truths inside fold's 90% intervals (start_interval,
rate_intervals), over the runs whose phase count is right.

The truth is taken over the instances fold folded (its instance_list's
`used`, matched by order) where fold lists them all, else over all
instances: a position is the mean over instances of the program time
before the phase over the instance's; a rate the events over the program
time summed; the CPU rate the CPU time over the program time. Program
time is wall time less the interruptions that kept the thread on the CPU
(fold's samples), preemption included (truth-prog.c says why).

A run where the program's compute phases got less than half a CPU is not
judged (its instances are cut in pieces by the scheduler): it is counted
and named, its totals still compared.
"""
import argparse
import json
import math
import statistics
import sys

BOUNDARY_TOL = 0.02
RATE_TOL = 0.05
CPU_TOL = 0.05
MIXTURE_MIN = 0.10
MIN_CPU_SHARE = 0.5


def fail(message):
    print("truth_check: " + message, file=sys.stderr)
    sys.exit(2)


def load(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail("cannot read %s %s: %s" % (what, path, e))


def phase_truth(truth, rows):
    """Per phase: start (mean position), rate (events/s), cpu (s/s) over rows."""
    n = truth["scenario"]["phases"]
    out = []
    for k in range(n):
        ev = prog = cpu = pos = 0.0
        for r in rows:
            progs = [r[2 + 4 * j + 1] for j in range(n)]
            total = sum(progs)
            pos += sum(progs[:k]) / total if total > 0 else 0.0
            ev += r[2 + 4 * k]
            prog += progs[k]
            cpu += r[2 + 4 * k + 3]
        out.append({"start": pos / len(rows) if rows else float("nan"),
                    "rate": ev / prog * 1e9 if prog > 0 else 0.0,
                    "cpu": cpu / prog if prog > 0 else 0.0,
                    "kind": truth["scenario"]["phase_specs"][k]["kind"]})
    return out


def cpu_rate(phase):
    """fold's CPU rate of a phase in CPUs and its interval, or (None, None)."""
    rates, iv = phase.get("rates") or {}, phase.get("rate_intervals") or {}
    for name, scale in (("cpu_time", 1.0), ("perf::TASK-CLOCK", 1e-9), ("perf::CPU-CLOCK", 1e-9)):
        if rates.get(name) is not None:
            lo_hi = iv.get(name)
            return rates[name] * scale, ([lo_hi[0] * scale, lo_hi[1] * scale] if lo_hi else None)
    v = rates.get("cpu_utilisation")
    return (v, None) if v is not None else (None, None)


def flagged(region, doc):
    """(flagged, the verdict in words) from fidelity or the self-check."""
    fid = region.get("fidelity") or doc.get("fidelity")
    if isinstance(fid, dict) and fid.get("verdict") is not None:
        v = str(fid["verdict"]).lower().replace("_", " ")
        return v != "consistent", "fidelity " + v
    sc = region.get("self_check") or {}
    if not sc.get("done"):
        return True, "self-check not done"
    return (not sc.get("reproducible"),
            "self-check " + ("reproducible" if sc.get("reproducible") else "not reproducible"))


def used_rows(truth, region):
    """The truth's rows for the instances fold folded, and how they were chosen:
    fold's instance_list holds its first instances (at most 10 000), in the
    order the program ran them."""
    rows = truth["instances"]
    lst = region.get("instance_list") or []
    whole = len(lst) == len(rows) and not region.get("instance_list_truncated")
    if lst and (whole or (region.get("instance_list_truncated") and len(lst) < len(rows))):
        order = sorted(range(len(lst)), key=lambda i: lst[i][0])
        used = [rows[j] for j, i in enumerate(order) if lst[i][5]]
        if used:
            return used, "folded instances (%d of %s)" % (
                len(used), len(rows) if whole else "the first %d of %d" % (len(lst), len(rows)))
    return rows, "all %d instances" % len(rows)


def wrong(out, code, text):
    out["wrong"].append(text)
    if code not in out["why"]:
        out["why"].append(code)


def judge_phases(out, truth_ph, phases):
    """Fills out's errors, coverage and wrong reasons for matching phase counts."""
    top = max(t["rate"] for t in truth_ph) or 1.0
    for k, (t, p) in enumerate(zip(truth_ph, phases)):
        if k > 0:
            err = p["start"] - t["start"]
            out["boundary_err"].append(err)
            if abs(err) > BOUNDARY_TOL:
                wrong(out, "boundary", "boundary %d off by %+.3f" % (k, err))
            iv = p.get("start_interval")
            out["cover_boundary"].append(None if not iv else iv[0] <= t["start"] <= iv[1])
        rate = (p.get("rates") or {}).get("work")
        if rate is None:
            out["unanswered"].append("phase %d rate of work" % (k + 1))
        else:
            err = (rate - t["rate"]) / (t["rate"] if t["rate"] > 0 else top)
            out["rate_err"].append(err)
            if abs(err) > RATE_TOL:
                wrong(out, "rate", "phase %d work rate %+.1f%%" % (k + 1, 100 * err))
            iv = (p.get("rate_intervals") or {}).get("work")
            out["cover_rate"].append(None if not iv else iv[0] <= t["rate"] <= iv[1])
        cpu, iv = cpu_rate(p)
        if cpu is None:
            out["unanswered"].append("phase %d CPU rate" % (k + 1))
        else:
            err = cpu - t["cpu"]
            out["cpu_err"].append(err)
            if abs(err) > CPU_TOL:
                wrong(out, "CPU", "phase %d CPU %+.3f" % (k + 1, err))
            out["cover_cpu"].append(None if not iv else iv[0] <= t["cpu"] <= iv[1])


def judge(truth, doc, meta):
    out = {"seed": truth["seed"], "condition": meta.get("condition"), "sample": meta.get("sample"),
           "load": meta.get("load"), "cpu_share_line": meta.get("cpu_share_line"),
           "compute_cpu_share": truth["run"]["compute_cpu_share"],
           "scenario": truth["scenario"], "wrong": [], "why": [], "unanswered": [], "boundary_err": [], "rate_err": [],
           "cpu_err": [], "cover_boundary": [], "cover_rate": [], "cover_cpu": []}
    regions = [r for r in doc.get("regions", []) if r.get("name") == truth["region"]]
    if not regions:
        fail("region %r missing from fold's JSON" % truth["region"])
    region = regions[0]
    timer = truth["run"]["timer_ns"]
    prof = [p for p in doc.get("profile", []) if p.get("name") == truth["region"]]
    out["total_err"] = region["total_ns"] / timer - 1 if timer else None
    out["profile_err"] = prof[0]["inclusive_ns"] / timer - 1 if prof and timer else None
    run = truth["run"]
    out["samples_told_apart"] = run.get("samples_told_apart")
    out["gaps_with_sample"] = run.get("gaps_with_sample")
    out["fold_samples"] = region.get("samples")
    cpu = run.get("compute_cpu_ns") or 0
    out["hidden_stop_share"] = run.get("hidden_stop_ns", 0) / cpu if cpu else None
    out["judged"] = out["compute_cpu_share"] >= MIN_CPU_SHARE
    out["folded"] = bool(region.get("folded"))
    if not out["folded"]:
        out["reason"] = region.get("reason")
        return out
    out["flagged"], out["verdict"] = flagged(region, doc)
    rows, out["truth_over"] = used_rows(truth, region)
    if truth["scenario"]["populations"] != "none":
        b = sum(1 for r in rows if r[0] == 1) / len(rows)
        out["population_b_folded"] = b
        if MIXTURE_MIN <= b <= 1 - MIXTURE_MIN:
            wrong(out, "mixture", "mixture: %.0f%% of the folded instances are population B" % (100 * b))
            out["mixture"] = True
    truth_ph = phase_truth(truth, rows)
    out["truth_phases"] = truth_ph
    phases = region.get("phases") or []
    out["fold_phases"] = [{"start": p["start"], "work": (p.get("rates") or {}).get("work"),
                           "cpu": cpu_rate(p)[0]} for p in phases]
    if len(phases) != len(truth_ph):
        wrong(out, "phase count", "phase count %d, truth %d" % (len(phases), len(truth_ph)))
    elif not out.get("mixture"):
        judge_phases(out, truth_ph, phases)
    return out


def pct(x):
    return "n/a" if x is None else "%+.2f%%" % (100 * x)


def one_line(r):
    head = "seed %d %-5s %-8s load %4.1f, cpu %.2f" % (r["seed"], r["condition"], r["sample"], r["load"] or 0,
                                                        r["compute_cpu_share"])
    tot = "total %s (profile %s) vs its timer" % (pct(r["total_err"]), pct(r["profile_err"]))
    if not r["folded"]:
        what = "not folded (%s)" % r.get("reason")
    else:
        what = "%s, %s" % ("WRONG (%s)" % "; ".join(r["wrong"]) if r["wrong"] else "right", r["verdict"])
    if not r["judged"]:
        return "%s  NOT JUDGED: the program got %.2f of a CPU in its compute phases (it would be: %s); %s" % (
            head, r["compute_cpu_share"], what, tot)
    return "%s  %s; %s" % (head, what, tot)


def cmd_judge(a):
    truth = load(a.truth, "truth")
    doc = load(a.fold, "fold JSON")
    meta = load(a.meta, "run description")
    r = judge(truth, doc, meta)
    print(one_line(r))
    if a.results:
        with open(a.results, "a") as f:
            f.write(json.dumps(r) + "\n")
    return 0


def share(xs):
    xs = [x for x in xs if x is not None]
    return "%d of %d (%.0f%%)" % (sum(xs), len(xs), 100 * sum(xs) / len(xs)) if xs else "none"


def err_stats(xs):
    """Signed median and the worst (largest in size) of relative errors."""
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    if not xs:
        return "no runs"
    return "median %+.2f%%, worst %+.2f%% over %d runs" % (100 * statistics.median(xs),
                                                         100 * max(xs, key=abs), len(xs))


def verdicts(folded, indent="  "):
    """Prints right/wrong, detection, false alarms and coverage over folded runs."""
    wrong = [r for r in folded if r["wrong"]]
    right = [r for r in folded if not r["wrong"]]
    per_cond = ", ".join("%s %d right, %d wrong" % (c, sum(1 for r in folded if r["condition"] == c and not r["wrong"]),
                                                     sum(1 for r in folded if r["condition"] == c and r["wrong"]))
                         for c in ("quiet", "hogs") if any(r["condition"] == c for r in folded))
    print("%sright: %d, wrong: %d (%s)" % (indent, len(right), len(wrong), per_cond))
    reasons = {}
    for r in wrong:
        for key in r["why"]:
            reasons[key] = reasons.get(key, 0) + 1
    if reasons:
        print("%swhy wrong (a run can have several): " % indent +
              ", ".join("%s %d" % (k, v) for k, v in sorted(reasons.items(), key=lambda kv: -kv[1])))
    det = sum(1 for r in wrong if r["flagged"])
    fa = sum(1 for r in right if r["flagged"])
    print("%sdetection rate: %s" % (indent, "%d of %d wrong answers flagged (%.0f%%)" % (
        det, len(wrong), 100 * det / len(wrong)) if wrong else "no wrong answers"))
    print("%sfalse alarms: %s" % (indent, "%d of %d right answers flagged (%.0f%%)" % (
        fa, len(right), 100 * fa / len(right)) if right else "no right answers"))
    mixes = [r for r in wrong if r.get("mixture")]
    if mixes:
        print("%spopulation mixtures: %d, flagged %d" % (indent, len(mixes), sum(1 for r in mixes if r["flagged"])))
    unans = [r for r in folded if r["unanswered"]]
    if unans:
        print("%sruns with a phase rate left unanswered (null: too few samples; not wrong for it): %d" %
              (indent, len(unans)))
    for key, what in (("cover_boundary", "boundaries"), ("cover_rate", "work rates"), ("cover_cpu", "CPU rates")):
        vals = [v for r in folded for v in r[key]]
        none = sum(1 for v in vals if v is None)
        print("%scoverage of %s by the 90%% intervals: %s%s" % (
            indent, what, share(vals), "; %d without an interval" % none if none else ""))


def cmd_summary(a):
    runs = []
    with open(a.results) as f:
        for line in f:
            if line.strip():
                runs.append(json.loads(line))
    if not runs:
        print("no runs")
        return 0
    judged = [r for r in runs if r["judged"]]
    print("runs: %d; judged: %d; not judged, the program got under half a CPU in its compute phases: %d" %
          (len(runs), len(judged), len(runs) - len(judged)))
    for title, sub in (("judged runs", judged), ("all runs, the starved ones too", runs)):
        folded = [r for r in sub if r["folded"]]
        print("%s: %d, folded %d%s" % (title, len(sub), len(folded), "" if folded else " (no figures)"))
        if folded:
            verdicts(folded)
        if len(judged) == len(runs):
            break
    for cond in ("quiet", "hogs"):
        sub = [r for r in runs if r["condition"] == cond]
        if sub:
            print("region total vs the program's timer, %s (all runs): fold %s; exact profile %s" % (
                cond, err_stats([r["total_err"] for r in sub]), err_stats([r["profile_err"] for r in sub])))
    told = [r for r in runs if r.get("samples_told_apart")]
    seen = sum(r["gaps_with_sample"] or 0 for r in told)
    taken = sum(r["fold_samples"] or 0 for r in told)
    hidden = [r["hidden_stop_share"] for r in runs if r.get("hidden_stop_share") is not None]
    print("fold's samples the program saw in its compute phases: %d of the %d in the region%s; "
          "the host's stops: %s of its compute phases' CPU time" % (
              seen, taken, "" if len(told) == len(runs) else
              " (%d runs could not tell samples apart: all their on-CPU stops count as samples)" %
              (len(runs) - len(told)),
              "%.1f-%.1f%% (median %.1f%%)" % (100 * min(hidden), 100 * max(hidden), 100 * statistics.median(hidden))
              if hidden else "not measured"))
    shares = [r["compute_cpu_share"] for r in runs]
    loads = [r["load"] for r in runs if r.get("load") is not None]
    print("CPU the program got in compute phases: %.2f-%.2f (median %.2f); 1-min load average %s" % (
        min(shares), max(shares), statistics.median(shares),
        "%.1f-%.1f" % (min(loads), max(loads)) if loads else "not recorded"))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    j = sub.add_parser("judge")
    j.add_argument("--truth", required=True)
    j.add_argument("--fold", required=True)
    j.add_argument("--meta", required=True)
    j.add_argument("--results")
    s = sub.add_parser("summary")
    s.add_argument("results")
    a = ap.parse_args()
    return cmd_judge(a) if a.cmd == "judge" else cmd_summary(a)


if __name__ == "__main__":
    sys.exit(main())
