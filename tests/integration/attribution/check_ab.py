#!/usr/bin/env python3
"""check_ab.py JSON MODE TRUTH_LINE: fold attributes prog_ab's two parts to
the right functions. MODE "samples": the routine timeline switches from
compute_a to compute_b where the program measured it (nominally 0.6; "truth
switch=S" from prog_ab), within 2% of the instance, and the phases before and after
name them first. MODE "hooks": additionally the sample-based and the
hook-based (exact) profiles agree on the split between the two functions."""
import json
import sys

doc = json.load(open(sys.argv[1]))
mode = sys.argv[2]
truth = dict(kv.split("=") for kv in sys.argv[3].split()[1:])
switch = float(truth["switch"])
errors = []
r = [r for r in doc["regions"] if r["name"] == "step"]
assert r, "region 'step' missing"
r = r[0]
assert r["folded"], "region 'step' not folded: %s" % r.get("reason")

# 1. The routine timeline, innermost routine below the region.
levels = {lv["depth"]: lv["spans"] for lv in r["timeline"]}
assert 0 in levels, "no timeline at depth 0"
spans = levels[0]


def routine_at(x):
    for s in spans:
        if s["start"] <= x <= s["end"]:
            return s["function"]
    return None


for x, want in [(switch / 6, "compute_a"), (switch / 2, "compute_a"), (switch - 0.1, "compute_a"),
                (switch + 0.1, "compute_b"), ((1 + switch) / 2 + 0.1, "compute_b")]:
    got = routine_at(x)
    if got != want:
        errors.append("timeline at %.1f names %s, expected %s" % (x, got, want))
a_end = max((s["end"] for s in spans if s["function"] == "compute_a" and s["start"] < switch - 0.1), default=None)
if a_end is None:
    errors.append("no compute_a span in the timeline: %s" % spans)
else:
    print("timeline: compute_a -> compute_b at %.4f (the program measured %.4f), error %.2f%%" %
          (a_end, switch, 100 * abs(a_end - switch)))
    if abs(a_end - switch) > 0.02:
        errors.append("timeline switch at %.4f, the program measured %.4f +- 0.02" % (a_end, switch))

# 2. The phases before and after the switch name the right function first.
for x, want in [(switch / 2, "compute_a"), ((1 + switch) / 2, "compute_b")]:
    ph = [p for p in r["phases"] if p["start"] <= x <= p["end"]]
    if not ph or not ph[0]["top_functions"]:
        errors.append("no phase with attribution covers %.1f" % x)
        continue
    top = ph[0]["top_functions"][0]
    # The top line may be in a helper inlined into the function: then the
    # function is in its inline chain (innermost first, with call lines).
    chain = [top["name"]] + [c["function"] for c in top.get("inline", [])]
    print("phase [%.3f, %.3f]: top %s %s:%s (%.0f%%), inline chain %s" %
          (ph[0]["start"], ph[0]["end"], top["name"], top["file"], top["line"], 100 * top["share"], " <- ".join(chain)))
    if want not in chain:
        errors.append("phase covering %.1f attributes first to %s, which is not %s or inlined into it" %
                      (x, " <- ".join(chain), want))
    if not top["file"] or not top["file"].endswith("prog_ab.c") or not top["line"]:
        errors.append("phase covering %.1f: no source line for %s (%s:%s)" % (x, want, top["file"], top["line"]))

# 3. The flat profile by line puts the hot line of the kernel loop first.
lines = doc.get("lines", [])
if not lines:
    errors.append("no flat profile by line (lines[])")
else:
    top = lines[0]
    print("hottest line: %s:%s in %s (%.0f%% of all samples)" % (top["file"], top["line"], top["name"],
                                                                100 * top["share"]))
    if not (top["file"] or "").endswith("prog_ab.c") or top["share"] < 0.3:
        errors.append("hottest line is %s:%s (%.0f%%), expected a line of prog_ab.c with >= 30%%" %
                      (top["file"], top["line"], 100 * top["share"]))

# 4. Hooks: exact profile vs samples.
if mode == "hooks":
    prof = {p["name"]: p for p in doc["profile"]}
    for f in ("compute_a", "compute_b"):
        if f not in prof:
            errors.append("function region %s missing from profile[] (names: %s)" % (f, sorted(prof)[:20]))
    tree = doc["call_tree"]
    sampled = {}
    for node in tree:
        if node["function"] in ("compute_a", "compute_b"):
            sampled[node["function"]] = sampled.get(node["function"], 0) + node["total_samples"]
    if not errors and len(sampled) == 2:
        exact_a = prof["compute_a"]["inclusive_ns"] / (prof["compute_a"]["inclusive_ns"] + prof["compute_b"]["inclusive_ns"])
        smp_a = sampled["compute_a"] / (sampled["compute_a"] + sampled["compute_b"])
        print("share of compute_a: exact (hooks) %.4f, sampled %.4f (%d samples), difference %.4f" %
              (exact_a, smp_a, sampled["compute_a"] + sampled["compute_b"], smp_a - exact_a))
        if prof["compute_a"]["calls"] != prof["compute_b"]["calls"]:
            errors.append("calls differ: %d vs %d" % (prof["compute_a"]["calls"], prof["compute_b"]["calls"]))
        if abs(smp_a - exact_a) > 0.05:
            errors.append("sampled share %.4f and exact share %.4f differ by more than 0.05" % (smp_a, exact_a))
    elif not errors:
        errors.append("compute_a/compute_b not both in the sampled call tree: %s" % sampled)

# 5. The bottom-up tree (JSON bottom_up_tree[]) holds the same samples as the
#    top-down one: its roots are where samples landed, and the self samples
#    of a function in the top-down tree are those of its bottom-up root.
bu = doc.get("bottom_up_tree")
if bu is None:
    errors.append("no bottom_up_tree[] in the JSON")
else:
    roots = [n for n in bu if n["parent"] == -1]
    td_self, bu_self = {}, {}
    for n in doc["call_tree"]:
        td_self[n["function"]] = td_self.get(n["function"], 0) + n["self_samples"]
    for n in roots:
        bu_self[n["function"]] = bu_self.get(n["function"], 0) + n["self_samples"]
        if n["self_samples"] != n["total_samples"]:
            errors.append("bottom-up root %s: self %d != total %d" % (n["function"], n["self_samples"], n["total_samples"]))
    td_self = {k: v for k, v in td_self.items() if v}
    if td_self != bu_self:
        errors.append("bottom-up roots %s differ from the top-down self samples %s" % (bu_self, td_self))
    if any(n["self_samples"] for n in bu if n["parent"] != -1):
        errors.append("bottom-up: self samples on a node that is not a root")

if errors:
    print("FAIL: " + "; ".join(errors))
    sys.exit(1)
print("PASS")
