#!/usr/bin/env python3
"""check_known_phases.py JSON FIT TRUTH_LINE: fold found the switch the
program measured (nominally 0.6; "truth switch=S" from prog_known_phases)
and the rates 1e6/s and 4e6/s within issue 13's targets for steady phases:
boundary within 1% of the instance, rates within 3%."""
import json
import sys

doc = json.load(open(sys.argv[1]))
fit = sys.argv[2]
truth = dict(kv.split("=") for kv in sys.argv[3].split()[1:])
switch = float(truth["switch"])
regions = [r for r in doc["regions"] if r["name"] == "step"]
assert regions, "region 'step' missing from the JSON"
r = regions[0]
assert r["folded"], "region 'step' was not folded: %s" % r.get("reason")
assert r["instances"] >= 300, "expected >= 300 instances, got %d" % r["instances"]
errors = []

if fit == "pwlr":
    phases = r["phases"]
    # The boundary closest to the known switch.
    bounds = [p["end"] for p in phases[:-1]]
    assert bounds, "no phase boundary found (phases: %s)" % phases
    b = min(bounds, key=lambda x: abs(x - switch))
    print("switch found at %.4f (the program measured %.4f), error %.2f%% of the instance" %
          (b, switch, 100 * abs(b - switch)))
    if abs(b - switch) > 0.01:
        errors.append("phase switch at %.4f, the program measured %.4f +- 0.01" % (b, switch))

    def rate_at(x):
        for p in phases:
            if p["start"] <= x <= p["end"]:
                return p["rates"]["work"]
        raise AssertionError("no phase covers %.2f" % x)

    checks = [(switch / 2, 1e6), ((1 + switch) / 2, 4e6)]
else:
    series = [s for s in r["series"] if s["name"] == "work"]
    assert series, "series 'work' missing"
    curve = series[0]["curve"]
    xs, vs = curve["x"], curve["value"]

    # Kriging is smooth across the switch, so compare the mean fitted rate
    # over each phase's interior, away from the switch.
    def rate_at(span):
        pts = [v for x, v in zip(xs, vs) if span[0] <= x <= span[1]]
        return sum(pts) / len(pts)

    checks = [((0.1, switch - 0.1), 1e6), ((switch + 0.1, 0.95), 4e6)]

for x, truth in checks:
    v = rate_at(x)
    err = abs(v - truth) / truth
    print("rate of work at %s: %.4g/s (truth %.4g/s), error %.2f%%" % (x, v, truth, 100 * err))
    if err > 0.03:
        errors.append("rate at %s is %.4g, expected %.4g +- 3%%" % (x, v, truth))

if errors:
    print("FAIL: " + "; ".join(errors))
    sys.exit(1)
print("PASS")
