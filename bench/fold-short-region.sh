#!/bin/sh
# fold-short-region.sh BUILD_DIR: a real 50 us region at 1 ms sampling,
# where a sample costs the program about as much as the region (issue 13):
# fold's phases, rates and folded duration against the program's own
# timers (medians over instances, see fold-short-region.c), and the
# per-sample cost fold measured and estimated. Prints the CPU share the
# program got: on a loaded machine the figures mean little.
set -eu
build=$(cd "${1:?usage: fold-short-region.sh BUILD_DIR}" && pwd)
lib=$build/src/runtime/libfold.so
fold=$build/src/cli/fold
prog=$build/bench/bench_fold_short_region
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$out"
/usr/bin/time -f "%e %U %S" -o time.txt env LD_PRELOAD="$lib" FOLD_QUIET=1 FOLD_SAMPLE=time@1ms \
	FOLD_OUTPUT=run.trace "$prog" "${INSTANCES:-20000}" >truth.txt
"$fold" run.trace -q --region short --json out.json
python3 - "$(cat truth.txt)" "$(cat time.txt)" <<'PY'
import json, sys
truth = dict(kv.split("=") for kv in sys.argv[1].split()[1:])
wall, user, sys_ = map(float, sys.argv[2].split())
d = json.load(open("out.json"))
sc = d["sample_cost"]
r = [r for r in d["regions"] if r["name"] == "short"][0]
dur, sw = float(truth["dur_ns"]), float(truth["switch"])
ra, rb = float(truth["rate_a"]), float(truth["rate_b"])
print(f"CPU share of the run: {(user + sys_) / wall:.0%} (wall {wall:.2f} s)")
print(f"sample cost: handler {sc['handler_ns'] / 1e3:.1f} us measured, delivery {sc['delivery_ns'] / 1e3:.1f} us estimated, {sc['samples_compensated']} samples")
print(f"truth: instance {dur / 1e3:.1f} us, switch {sw:.3f}, work {ra:.4g}/s then {rb:.4g}/s")
if not r["folded"]:
    print("fold: not folded:", r["reason"])
    sys.exit(0)
ph = r["phases"]
print(f"fold: {r['instances_used']} of {r['instances']} instances, {r['samples_folded']} samples, mean {r['folded_mean_duration_ns'] / 1e3:.1f} us ({r['folded_mean_duration_ns'] / dur - 1:+.1%}), {len(ph)} phase(s)")
for i, p in enumerate(ph):
    w = p["rates"].get("work")
    lo, hi = p["rate_intervals"].get("work", [None, None])
    print(f"  P{i + 1} {p['start']:.3f}-{p['end']:.3f} {p['samples']:4d} samples  work {w:.4g}/s [{lo:.4g}, {hi:.4g}]")
near = min((p["start"] for p in ph[1:]), key=lambda x: abs(x - sw), default=float("nan"))
mid = lambda x: [p for p in ph if p["start"] <= x < p["end"]][0]["rates"]["work"]
print(f"switch {near:.3f} ({near - sw:+.3f} of the instance); work rates {mid(sw / 2) / ra - 1:+.1%}, {mid((1 + sw) / 2) / rb - 1:+.1%}")
s = r["self_check"]
if s["done"]:
    print(f"self-check: {s['phases_a']}/{s['phases_b']} phases, boundaries {s['boundary']:.1%}, rates {s['rate']:.1%} apart")
PY
echo "command: $0 $build"
