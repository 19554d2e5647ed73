#!/usr/bin/env python3
"""func_length.py: lists the C functions under the given directories that are
longer than a limit (default 150 lines, signature to closing brace) or that
take more parameters than a limit (--max-params, default none), and exits 1
when any is not on the allow-list.

    tests/tools/func_length.py [--max N] [--max-params N] [--allow FILE] DIR...

The allow-list (tests/tools/func_length.allow) names functions that read as
one unit although long: numeric kernels and switches over record kinds. One
"path:function  reason" per line; '#' starts a comment. A function allowed
more parameters is listed as "path:function(params)  reason". A listed function
that is no longer too long is reported as stale, so the list stays true.

The scan needs no compiler: comments, strings and character literals are
blanked, preprocessor lines skipped, and a function is a top-level '{' that
follows a parameter list ')' (not '=' nor a struct, union or enum).
"""
import argparse
import os
import re
import sys

IDENT_BEFORE_PAREN = re.compile(r"([A-Za-z_]\w*)\s*\($")


def blank(text):
    """text with comments, strings and char literals replaced by spaces
    (newlines kept, so line numbers stay right)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c if j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def count_params(params):
    """How many parameters a parameter list (the text between its parens)
    declares: commas outside nested parens and brackets, plus one; none for
    "" or "void"."""
    p = params.strip()
    if not p or p == "void":
        return 0
    level, n = 0, 1
    for ch in p:
        if ch in "([":
            level += 1
        elif ch in ")]":
            level -= 1
        elif ch == "," and level == 0:
            n += 1
    return n


def functions(path):
    """(name, first line, last line, parameter count) of every function
    defined in path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = blank(f.read())
    # Preprocessor lines (with their continuations) take no part in braces.
    lines = text.split("\n")
    skip = False
    for k, l in enumerate(lines):
        cont = l.rstrip().endswith("\\")
        if skip or l.lstrip().startswith("#"):
            lines[k] = ""
            skip = cont
    text = "\n".join(lines)
    depth = 0
    found = []
    start = None
    for m in re.finditer(r"[{}]", text):
        if m.group() == "{":
            if depth == 0:
                head = text[:m.start()].rstrip()
                # Walk back over the signature: the matching '(' of the last ')'.
                if head.endswith(")") or re.search(r"\)\s*(__attribute__\s*\(\(.*\)\))?$", head):
                    k = head.rfind(")")
                    level = 0
                    while k >= 0:
                        if head[k] == ")":
                            level += 1
                        elif head[k] == "(":
                            level -= 1
                            if level == 0:
                                break
                        k -= 1
                    mm = IDENT_BEFORE_PAREN.search(head[:k + 1])
                    prev = head[:k].rstrip()
                    if mm and not prev.endswith("="):
                        name = mm.group(1)
                        first = head.count("\n", 0, mm.start()) + 1
                        # The signature starts on the line of its return type.
                        line_start = head.rfind("\n", 0, mm.start()) + 1
                        sig = head[line_start:mm.start()]
                        if not sig.strip() and line_start > 0:
                            first -= 1
                        start = (name, first, count_params(head[mm.end():head.rfind(")")]))
            depth += 1
        else:
            depth -= 1
            if depth == 0 and start:
                found.append((start[0], start[1], text.count("\n", 0, m.start()) + 1, start[2]))
                start = None
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max", type=int, default=150)
    ap.add_argument("--max-params", type=int, default=0, help="most parameters a function takes (0: no limit)")
    ap.add_argument("--params-under", action="append", default=[],
                    help="apply --max-params only under this directory (relative to --root; repeatable)")
    ap.add_argument("--allow", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "func_length.allow"))
    ap.add_argument("--root", default=".", help="paths in the report and the allow-list are relative to this")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    allow = {}
    if os.path.exists(a.allow):
        for l in open(a.allow, encoding="utf-8"):
            l = l.split("#", 1)[0].strip()
            if l:
                key, _, reason = l.partition(" ")
                if not reason.strip():
                    print(f"{a.allow}: '{key}' gives no reason", file=sys.stderr)
                    return 2
                allow[key] = reason.strip()
    bad, seen = 0, set()
    for d in a.dirs:
        for dirpath, _, files in sorted(os.walk(d)):
            for fn in sorted(files):
                if not fn.endswith(".c"):
                    continue
                path = os.path.join(dirpath, fn)
                rel = os.path.relpath(path, a.root)
                for name, first, last, nparams in functions(path):
                    length = last - first + 1
                    key = f"{rel}:{name}"
                    pkey = f"{key}(params)"
                    limited = a.max_params > 0 and (
                        not a.params_under or any(rel == u or rel.startswith(u.rstrip("/") + "/") for u in a.params_under))
                    if limited and nparams > a.max_params:
                        if pkey in allow:
                            seen.add(pkey)
                            print(f"allowed  {pkey} {nparams} parameters ({allow[pkey]})")
                        else:
                            bad += 1
                            print(f"TOO MANY {key} {nparams} parameters (line {first}, limit {a.max_params}); "
                                  "group them in a struct that names what they are")
                    if length <= a.max:
                        continue
                    if key in allow:
                        seen.add(key)
                        print(f"allowed  {key} {length} lines ({allow[key]})")
                    else:
                        bad += 1
                        print(f"TOO LONG {key} {length} lines (lines {first}-{last}, limit {a.max})")
    for key in sorted(set(allow) - seen):
        bad += 1
        print(f"STALE    {key} is on the allow-list but not over its limit (or gone): remove it")
    if bad:
        print(f"{bad} problem(s); split the function or allow-list it with a reason", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
