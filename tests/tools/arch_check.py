#!/usr/bin/env python3
"""arch_check.py: checks the claims of docs/architecture.md that a machine can
check, against the source tree, and exits 1 listing every one that is false.

    tests/tools/arch_check.py [--root DIR] [--doc FILE]
    tests/tools/arch_check.py --self-test [--root DIR] [--doc FILE]

The claims:
  files     every file the page names (a path, or a bare name such as
            `rt_pool.c`; `<name>` and `*` match any text) exists in the tree,
            and every directory it names in backquotes exists;
  invariants
            "keeps N numbered invariants": N is the number of numbered
            invariants in the comment at the top of src/runtime/rt_signal.c
            (numbered 1..N), and the page's summary between the
            invariants:begin/end markers has items 1..N;
  runtime   every file of src/runtime is in the table between the
            runtime:begin/end markers;
  rooms     the rooms table (rooms:begin/end) names exactly the folders of
            src/fold that hold sources (include/ aside);
  names     the prefixes in backquotes between the names:begin/end markers
            (tokens ending in '_') are exactly the prefixes of the symbols
            defined in src/: every listed prefix is used, every symbol's
            prefix is listed.

Symbols are read from the sources, not with nm: libfold.so is built with
hidden visibility, so nm cannot tell its internal functions from static
ones, and a source scan needs no build. The scan relies on the repository's
clang-format layout (a file-scope definition starts at column 0): a
file-scope declaration that is not static, extern, a typedef or a prototype
defines a symbol. Exempt: main, and definitions marked FOLD_EXPORT (the
public API and the functions libfold.so interposes, which keep libc's,
MPI's or the compiler's names). A symbol's prefix is its name up to the
first "__" inclusive, or else up to the first "_" inclusive.

--self-test plants one drift at a time (a missing file, a wrong invariant
count, a missing or extra prefix, a new module, a dropped runtime file or
room) and fails unless the check reports each one, so the check cannot pass
because it checks nothing.
"""
import argparse
import glob
import os
import re
import sys

EXT = r"(?:c|h|py|md|sh|allow|model|txt)"
FILE_RE = re.compile(r"(?<![\w/.<>*-])((?:\.\./)?[\w<>*./-]*[\w>*]\." + EXT + r")(?![\w])")
TICK_RE = re.compile(r"`([^`\n]+)`")
DIR_PREFIXES = ("src/", "tests/", "include/", "docs/", "share/", "scripts/", "bench/", "examples/")
SKIP_DIRS = {".git", "build", "node_modules"}
INV_STATED_RE = re.compile(r"keeps (\d+) numbered invariants")
INV_CODE_RE = re.compile(r"^ \*\s{1,2}(\d+)\. ", re.M)
PREFIX_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*_$")


def block(doc, name):
    """The text between <!-- name:begin --> and <!-- name:end -->, or None."""
    m = re.search(r"<!--\s*%s:begin\s*-->(.*?)<!--\s*%s:end\s*-->" % (name, name), doc, re.S)
    return m.group(1) if m else None


def tree_files(root):
    """Every file of the tree (relative paths), build and VCS folders aside."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith("build")]
        for f in files:
            out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def as_glob(name):
    return re.sub(r"<[^>]*>", "*", name)


def check_files(root, doc_path, doc, files):
    problems = []
    basenames = {}
    for f in files:
        basenames.setdefault(os.path.basename(f), []).append(f)
    seen = set()
    for m in FILE_RE.finditer(doc):
        name = m.group(1)
        if name in seen:
            continue
        seen.add(name)
        pat = as_glob(name)
        if name.startswith("../"):
            hits = glob.glob(os.path.join(os.path.dirname(doc_path), pat))
        elif "/" in name:
            hits = glob.glob(os.path.join(root, pat))
        else:
            hits = [b for b in basenames if glob.fnmatch.fnmatchcase(b, pat)]
        if not hits:
            problems.append("files: the page names %s, which is not in the tree" % name)
    for m in TICK_RE.finditer(doc):
        tok = m.group(1).strip()
        if not tok.startswith(DIR_PREFIXES) or re.search(r"\." + EXT + r"$", tok) or " " in tok:
            continue
        if not glob.glob(os.path.join(root, as_glob(tok))):
            problems.append("files: the page names %s, which is not in the tree" % tok)
    return problems


def code_invariants(root):
    path = os.path.join(root, "src", "runtime", "rt_signal.c")
    text = open(path, encoding="utf-8").read()
    end = text.find("*/")
    return [int(n) for n in INV_CODE_RE.findall(text[: end if end >= 0 else len(text)])]


def check_invariants(doc, numbers):
    problems = []
    n = len(numbers)
    if numbers != list(range(1, n + 1)):
        problems.append("invariants: rt_signal.c numbers its invariants %s, not 1..%d" % (numbers, n))
    stated = INV_STATED_RE.findall(doc)
    if not stated:
        problems.append('invariants: the page states no count ("keeps N numbered invariants")')
    for s in stated:
        if int(s) != n:
            problems.append("invariants: the page says %s numbered invariants, rt_signal.c has %d" % (s, n))
    listed = block(doc, "invariants")
    if listed is None:
        problems.append("invariants: no invariants:begin/end block")
    else:
        items = [int(x) for x in re.findall(r"^\s*(\d+)\. ", listed, re.M)]
        if items != list(range(1, n + 1)):
            problems.append("invariants: the page's summary has items %s, rt_signal.c has 1..%d" % (items, n))
    return problems


def check_runtime(root, doc):
    table = block(doc, "runtime")
    if table is None:
        return ["runtime: no runtime:begin/end block"]
    named = set(TICK_RE.findall(table))
    problems = []
    for f in sorted(os.listdir(os.path.join(root, "src", "runtime"))):
        if f.endswith((".c", ".h")) and f not in named:
            problems.append("runtime: src/runtime/%s is not in the runtime's files table" % f)
    return problems


def check_rooms(root, doc):
    table = block(doc, "rooms")
    if table is None:
        return ["rooms: no rooms:begin/end block"]
    named = {m.group(1) for m in re.finditer(r"`src/fold/([\w-]+)/`", table)}
    base = os.path.join(root, "src", "fold")
    rooms = {d for d in os.listdir(base)
             if d != "include" and glob.glob(os.path.join(base, d, "*.c"))}
    problems = ["rooms: src/fold/%s/ is not in the rooms table" % r for r in sorted(rooms - named)]
    problems += ["rooms: the rooms table names src/fold/%s/, which holds no sources" % r
                 for r in sorted(named - rooms)]
    return problems


def blank(text):
    """Comments, strings and character literals blanked, newlines kept."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", text)


START_RE = re.compile(r"^(?!typedef\b|extern\b|#|\s|\}|union\b|enum\b|struct\s+\w+\s*\{)\S")
NAME_RE = re.compile(r"\b([A-Za-z_]\w*)\s*(?:\(|=|;|\[)")


def source_symbols(root):
    """{name: "path:line"} of the symbols the sources of src/ define."""
    out = {}
    for path in sorted(glob.glob(os.path.join(root, "src", "**", "*.c"), recursive=True)):
        lines = blank(open(path, encoding="utf-8", errors="replace").read()).split("\n")
        depth = 0
        for i, line in enumerate(lines):
            if depth == 0 and START_RE.match(line):
                rest = "\n".join(lines[i : i + 16])
                ends = [k for k in (rest.find("{"), rest.find(";")) if k >= 0]
                end = min(ends) if ends else len(rest)
                m = NAME_RE.search(rest[: end + 1])
                if m:
                    name, before = m.group(1), rest[: m.start(1)]
                    is_func = rest[m.end(1) :].lstrip().startswith("(")
                    prototype = is_func and end < len(rest) and rest[end] == ";"
                    if (before.strip() and not prototype and name != "main"
                            and not re.search(r"\bstatic\b|\bFOLD_EXPORT\b", before)):
                        out.setdefault(name, "%s:%d" % (os.path.relpath(path, root), i + 1))
            depth += line.count("{") - line.count("}")
    return out


def prefix_of(name):
    k = name.find("__", 1)
    if k > 0:
        return name[: k + 2]
    k = name.find("_", 1)
    return name[: k + 1] if k > 0 else name


def check_names(doc, symbols):
    text = block(doc, "names")
    if text is None:
        return ["names: no names:begin/end block"]
    listed = {t for t in TICK_RE.findall(text) if PREFIX_RE.match(t)}
    used = {}
    for name, where in sorted(symbols.items()):
        used.setdefault(prefix_of(name), (name, where))
    problems = []
    for p in sorted(set(used) - listed):
        name, where = used[p]
        problems.append("names: prefix %s (%s, %s) is not in the names list" % (p, name, where))
    for p in sorted(listed - set(used)):
        problems.append("names: the names list has %s, which no symbol in src/ uses" % p)
    return problems


def check(root, doc_path, doc, symbols, invariants, files):
    return (check_files(root, doc_path, doc, files) + check_invariants(doc, invariants) +
            check_runtime(root, doc) + check_rooms(root, doc) + check_names(doc, symbols))


def self_test(root, doc_path, doc, symbols, invariants, files):
    """Each planted drift must be reported; the unchanged page must pass."""
    n = len(invariants)
    plants = [
        ("a file that does not exist", lambda d, s, i: (d + "\nSee `src/runtime/rt_flusher.c`.\n", s, i)),
        ("a bare file name that does not exist", lambda d, s, i: (d + "\nSee flusher_thread.c.\n", s, i)),
        ("a directory that does not exist", lambda d, s, i: (d + "\nSee `src/fold/fits/`.\n", s, i)),
        ("the invariant count stated wrong",
         lambda d, s, i: (d.replace("keeps %d numbered" % n, "keeps %d numbered" % (n - 1)), s, i)),
        ("an invariant added to rt_signal.c", lambda d, s, i: (d, s, i + [n + 1])),
        ("an invariant missing from the summary",
         lambda d, s, i: (re.sub(r"^(\s*)%d\. " % n, r"\1- ", d, flags=re.M), s, i)),
        ("a prefix dropped from the list", lambda d, s, i: (d.replace("`own_cost__`", "own_cost"), s, i)),
        ("a prefix listed that nothing uses",
         lambda d, s, i: (d.replace("<!-- names:end -->", "`flusher__`.\n<!-- names:end -->"), s, i)),
        ("a new module's symbol", lambda d, s, i: (d, dict(s, newmod__run="src/fold/newmod.c:1"), i)),
        ("a runtime file left out of the table",
         lambda d, s, i: (d.replace("| `rt_clock.c` |", "| clock |"), s, i)),
        ("a room left out of the table", lambda d, s, i: (d.replace("`src/fold/views/`", "views"), s, i)),
    ]
    failed = 0
    base = check(root, doc_path, doc, symbols, invariants, files)
    if base:
        print("self-test: the page as it is fails the check:")
        for p in base:
            print("  " + p)
        failed += 1
    for what, plant in plants:
        d, s, i = plant(doc, symbols, invariants)
        if d == doc and s == symbols and i == invariants:
            print("self-test: could not plant %s (the page changed?)" % what)
            failed += 1
            continue
        found = [p for p in check(root, doc_path, d, s, i, files) if p not in base]
        print("self-test: %s: %s" % (what, found[0] if found else "NOT REPORTED"))
        failed += not found
    return 1 if failed else 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.normpath(os.path.join(here, "..", "..")))
    ap.add_argument("--doc", help="default: ROOT/docs/architecture.md")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    doc_path = a.doc or os.path.join(a.root, "docs", "architecture.md")
    doc = open(doc_path, encoding="utf-8").read()
    symbols = source_symbols(a.root)
    invariants = code_invariants(a.root)
    files = tree_files(a.root)
    if a.self_test:
        return self_test(a.root, doc_path, doc, symbols, invariants, files)
    problems = check(a.root, doc_path, doc, symbols, invariants, files)
    for p in problems:
        print("%s: %s" % (os.path.relpath(doc_path, a.root), p))
    if problems:
        print("arch_check: %d claim(s) of the page are false: change the page with the code" % len(problems))
        return 1
    print("arch_check: %d symbols, %d invariants, every file named exists" % (len(symbols), len(invariants)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
