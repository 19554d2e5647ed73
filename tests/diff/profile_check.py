#!/usr/bin/env python3
"""profile_check.py FOLD TRACE [--calls NAME=N ...]: the exact profile of a
trace (`fold profile`) is consistent: every listed region NAME was called N
times, and no region's exclusive time exceeds its inclusive time. Prints
what is wrong and exits 1; exit 0 when all holds. Used by corpus cases
(check= lines)."""
import re
import subprocess
import sys

UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "ms": 1e-3, "s": 1.0}
ROW = re.compile(r"^(?P<name>\S.*?)\s+(?P<calls>\d+)\s+(?P<incl>[\d.]+ \S+)\s+(?:(?:[\d.]+ \S+|-)\s+)?"
                 r"(?P<excl>[\d.]+ \S+)\s+(?P<mean>[\d.]+ \S+)\s*$")


def seconds(text):
    value, unit = text.split()
    return float(value) * UNITS[unit]


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    fold, trace = sys.argv[1], sys.argv[2]
    want = {}
    args = sys.argv[3:]
    while args:
        a = args.pop(0)
        if a == "--calls" and args:
            name, _, n = args.pop(0).partition("=")
            want[name] = int(n)
        else:
            print("profile_check.py: unknown argument %r" % a, file=sys.stderr)
            return 2
    p = subprocess.run([fold, "profile", trace], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})
    rows = {}
    for line in p.stdout.splitlines():
        m = ROW.match(line)
        if m:
            rows.setdefault(m.group("name"), m)
    bad = []
    if p.returncode:
        bad.append("fold profile exited %d" % p.returncode)
    for name, n in want.items():
        m = rows.get(name)
        if not m:
            bad.append("no row for %s" % name)
        elif int(m.group("calls")) != n:
            bad.append("%s: %s calls, expected %d" % (name, m.group("calls"), n))
    for name, m in rows.items():
        incl, excl = seconds(m.group("incl")), seconds(m.group("excl"))
        if excl > incl * 1.001 + 1e-9:
            bad.append("%s: exclusive %s > inclusive %s" % (name, m.group("excl"), m.group("incl")))
    if not rows:
        bad.append("no profile rows in: %s" % p.stdout[:300])
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
