#!/usr/bin/env python3
"""The run facts in a trace's INFO records are parsed in exactly one place.

usage: info_keys.py SRC_DIR

The runtime writes them (src/runtime) and src/fold/ingest/run_facts.c reads
them into a typed fold_facts (analysis.h) that the analysis and the
exporters use. Fails when any other file of SRC_DIR names one of the keys of
the sampling configuration, process identity or clock as a string literal
(a second parser, which drifts: four of them once disagreed on which
sampling modes have a period in ns), or looks up one of the undotted keys
("pid", "host", ...) with ingest__trace_info. So that the check cannot pass
because its patterns match nothing, every key must be found in the parser,
and the sampling keys in the runtime's writer.
"""
import os
import re
import sys

PARSER = "fold/ingest/run_facts.c"
WRITER = "runtime"
SAMPLING = ["sample.source", "sample.event", "sample.period", "sample.jitter"]
DOTTED = SAMPLING + ["sample.stop_onset_ns", "sample.return_ns", "mpi.rank", "mpi.size",
                     "clock.tick_hz", "clock.source", "start.realtime_ns", "exec.generation",
                     "fork.parent_pid", "trace.compress"]
UNDOTTED = ["pid", "ppid", "host", "exe", "cmdline", "cwd"]
# Who may look up INFO text at all besides the parser: the lookup's own
# definition, and facts that are no run facts (per region, keyed by its id).
LOOKUP_ALLOWED = {"fold/ingest/ingest.c": "defines ingest__trace_info",
                  "fold/ingest/ingest.h": "declares ingest__trace_info",
                  "fold/run/region_match.c": "burst.caller.ID, a fact of one region"}


def literal(key):
    return re.compile(r'"%s"' % re.escape(key))


def main():
    src = sys.argv[1]
    failures = []
    texts = {}
    for root, _, files in os.walk(src):
        for f in files:
            if f.endswith((".c", ".h")):
                path = os.path.join(root, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    texts[os.path.relpath(path, src)] = fh.read()
    parser = texts.get(PARSER)
    if parser is None:
        print("FAIL: no %s in %s" % (PARSER, src))
        return 1
    writer = "".join(t for p, t in texts.items() if p.startswith(WRITER + "/"))
    for key in DOTTED + UNDOTTED:
        if not literal(key).search(parser):
            failures.append("%s does not read INFO %s" % (PARSER, key))
    for key in SAMPLING:
        if not literal(key).search(writer):
            failures.append("src/%s does not write INFO %s" % (WRITER, key))
    # a lookup or comparison of a key: ingest__trace_info(t, "pid"),
    # strcmp(kv->key, "host")
    lookup = re.compile(r'\b(?:ingest__trace_info|fold_export_info|strn?cmp)\s*\([^;{]*?"(%s)"' %
                        "|".join(UNDOTTED + DOTTED))
    for path, text in sorted(texts.items()):
        if path == PARSER or path.startswith(WRITER + "/"):
            continue
        for n, line in enumerate(text.split("\n"), 1):
            for key in DOTTED:
                if literal(key).search(line):
                    failures.append("src/%s:%d: INFO %s outside %s" % (path, n, key, PARSER))
        if path not in LOOKUP_ALLOWED:
            for m in re.finditer(r"\bingest__trace_info\s*\(", text):
                n = text.count("\n", 0, m.start()) + 1
                failures.append("src/%s:%d: looks up INFO text outside %s" % (path, n, PARSER))
        for m in lookup.finditer(text):
            n = text.count("\n", 0, m.start()) + 1
            msg = "src/%s:%d: looks up INFO %s outside %s" % (path, n, m.group(1), PARSER)
            if msg not in failures:
                failures.append(msg)
    for f in failures:
        print("FAIL:", f)
    if failures:
        print("read run facts from fold_facts (analysis.h; exporters: fold_export_facts), "
              "parsed in src/%s" % PARSER)
        return 1
    print("INFO run facts parsed only in src/%s" % PARSER)
    return 0


if __name__ == "__main__":
    sys.exit(main())
