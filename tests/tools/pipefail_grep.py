#!/usr/bin/env python3
"""A test script under `set -o pipefail` never pipes into `grep -q`.

grep -q exits at its first match; the writer then dies of SIGPIPE, and with
pipefail the whole pipeline fails although the text was found. Whether the
writer has finished by then depends on scheduling, so such a check passes on
one machine and fails on another (it did: CI, 'ldd fold | grep -q libasan').
Write `grep -q PATTERN <<<"$(command)"` instead.
"""
import pathlib
import re
import sys

PIPE_GREP_Q = re.compile(r"(?<!\|)\|(?!\|)\s*grep\s+(-[A-Za-z]*q[A-Za-z]*|--quiet|--silent)\b")


def main(roots):
    bad = []
    for root in roots:
        for path in sorted(pathlib.Path(root).rglob("*.sh")):
            text = path.read_text(errors="replace")
            if not re.search(r"set\s+-[a-z]*o\s+pipefail|set\s+-o\s+pipefail|pipefail", text):
                continue
            for n, line in enumerate(text.splitlines(), 1):
                if line.lstrip().startswith("#"):
                    continue
                if PIPE_GREP_Q.search(line):
                    bad.append(f"{path}:{n}: {line.strip()}")
    for b in bad:
        print(b)
    if bad:
        print(f"FAIL: {len(bad)} pipe(s) into grep -q under pipefail; use grep -q PATTERN <<<\"$(command)\"")
        return 1
    print("PASS: no pipe into grep -q under pipefail")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
