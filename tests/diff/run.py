#!/usr/bin/env python3
"""run.py: the differential runner. Builds a corpus of small programs, runs
each one without fold and with it (LD_PRELOAD=libfold.so, and through
foldrun), and compares what the program did: exit status or signal, stdout,
its own stderr, the files it wrote, what it observed of its process (the
probe: environment, descriptors, signal dispositions and masks, rlimits, ...)
and, where a case asks, its wall time. Checks of fold's trace come on top,
where a case declares them. Prints one table row per case and a summary.

Each corpus file (tests/diff/corpus/*.c, .cc, .f90, .sh) declares how it is
built, run and compared in "diff: KEY=VALUE" lines of its header comment;
docs/contributing.md lists the keys. Known failures (runtime defects being
fixed, documented limitations) are listed in tests/diff/known-failures: the
run fails when any other case differs, when a case cannot be judged
(BROKEN: the program did not do what its header says without fold, or it is
not deterministic), and when a known failure passes (remove it from the list).

--hostile runs the cases marked hostile=yes under each hostile variant
(stdout/stderr closed or a broken pipe, small ulimits) beside CPU hogs.

Exit: 0 all as expected, 1 otherwise, 2 usage or setup error.
"""
import argparse
import concurrent.futures
import difflib
import fnmatch
import glob
import hashlib
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ("plain", "preload", "foldrun")
LIST_KEYS = {
    "env", "fold-env", "build", "needs", "normalize", "sub", "check", "dump-has", "dump-not", "summary-has",
    "summary-not", "profile-has", "profile-not", "fold-err-has", "fold-err-not", "trace-check",
    "ignore-files", "expect-stdout", "skip-if",
}
SINGLE_KEYS = {
    "cc", "cmd", "args", "limits", "stdin", "stdout", "stderr", "compare", "time", "timeout", "runs", "modes",
    "traces", "expect-status", "probe", "hostile", "what", "serial", "fold-sample", "run-as",
}
DEFAULT_COMPARE = "status,stdout,stderr,files,probe"
LIMITS = {
    "nofile": resource.RLIMIT_NOFILE, "sigpending": resource.RLIMIT_SIGPENDING,
    "fsize": resource.RLIMIT_FSIZE, "as": resource.RLIMIT_AS, "stack": resource.RLIMIT_STACK,
    "core": resource.RLIMIT_CORE, "nproc": resource.RLIMIT_NPROC, "cpu": resource.RLIMIT_CPU,
    "memlock": resource.RLIMIT_MEMLOCK,
}
# Hostile variants: what each changes in a case's declaration. RLIMIT_SIGPENDING
# counts the pending signals and timers of every process of the user, so that
# variant runs as a user of its own (when the runner is root).
VARIANTS = {
    "stdout-closed": [("stdout", "closed")],
    "stderr-closed": [("stderr", "closed")],
    "stdout-epipe": [("stdout", "brokenpipe")],
    "stderr-epipe": [("stderr", "brokenpipe")],
    "nofile16": [("limits", "nofile=16")],
    "sigpending16": [("limits", "sigpending=16")] + ([("run-as", "nobody")] if os.geteuid() == 0 else []),
    "fsize64k": [("limits", "fsize=65536")],
    "as512m": [("limits", "as=536870912")],
    "stack256k": [("limits", "stack=262144")],
}
SIGNAMES = {}
for _n in dir(signal):
    if _n.startswith("SIG") and not _n.startswith("SIG_") and _n not in ("SIGRTMIN", "SIGRTMAX"):
        SIGNAMES.setdefault(int(getattr(signal, _n)), _n)


def signame(sig):
    if sig in SIGNAMES:
        return SIGNAMES[sig]
    if signal.SIGRTMIN <= sig <= signal.SIGRTMAX:
        return "SIGRTMIN+%d" % (sig - signal.SIGRTMIN)
    return "signal %d" % sig


class Case:
    """One corpus program and its declaration."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.splitext(os.path.basename(path))[0]
        self.ext = os.path.splitext(path)[1]
        self.keys = {}
        self.lists = {k: [] for k in LIST_KEYS}
        self.what = ""
        with open(path, errors="replace") as f:
            head = [next(f, "") for _ in range(80)]
        # A value ending in a backslash goes on in the next comment line (so
        # that no line is longer than clang-format allows).
        decls, pending = [], None
        for line in head:
            if pending is not None:
                m = re.match(r"^\s*(?:\*|//|#|!|--)?\s*(.*?)\s*(?:\*/)?\s*$", line)
                text = m.group(1) if m else ""
            else:
                m = re.match(r"^\s*(?:/\*+|\*|//|#|!|--)?\s*diff:\s*([a-z-]+)=(.*?)\s*(?:\*/)?\s*$", line)
                if not m:
                    continue
                pending = (m.group(1), "")
                text = m.group(2)
            key, value = pending
            if text.endswith("\\"):
                pending = (key, value + text[:-1].rstrip() + " ")
                continue
            decls.append((key, value + text))
            pending = None
        for key, value in decls:
            if key in LIST_KEYS:
                self.lists[key].append(value)
            elif key in SINGLE_KEYS:
                self.keys[key] = value
            else:
                raise ValueError("%s: unknown key %r" % (path, key))
        # The first paragraph of the header comment says what the case
        # exercises.
        words = []
        for line in head:
            if line.startswith("#!"):
                continue
            m = re.match(r"^\s*(?:/\*+|\*|//|#|!)\s*(.*?)\s*(?:\*/)?$", line)
            if not m or not m.group(1) or m.group(1).startswith("diff:"):
                if words:
                    break
                continue
            words.append(m.group(1))
        self.what = re.sub(r"^%s(\.\w+)?:\s*" % re.escape(self.name), "", " ".join(words))
        self.variant = None
        self.normal_status = None

    def get(self, key, default=None):
        return self.keys.get(key, default)

    def label(self):
        return self.name + ("@" + self.variant if self.variant else "")

    def with_variant(self, variant):
        """A copy of the case under a hostile variant, or None if the case
        already sets what the variant changes."""
        c = Case.__new__(Case)
        c.__dict__ = dict(self.__dict__)
        c.keys = dict(self.keys)
        c.lists = {k: list(v) for k, v in self.lists.items()}
        c.variant = variant
        for key, value in VARIANTS[variant]:
            if key == "limits":
                own = parse_limits(self.get("limits", ""))
                name = value.split("=")[0]
                if name in own:
                    return None
                c.keys["limits"] = (self.get("limits", "") + " " + value).strip()
            else:
                if self.get(key):
                    return None
                c.keys[key] = value
        # Timing means nothing beside CPU hogs; what the program does under
        # the variant is its own (it may fail), only compared.
        c.keys.pop("time", None)
        c.normal_status = c.keys.pop("expect-status", None)
        c.lists["expect-stdout"] = []
        c.keys["modes"] = "plain,preload"
        return c


def parse_limits(text):
    out = {}
    for word in text.split():
        name, _, value = word.partition("=")
        if name not in LIMITS:
            raise ValueError("unknown limit %r (known: %s)" % (name, ", ".join(sorted(LIMITS))))
        out[name] = int(value)
    return out


def parse_time_bound(text):
    """"R" or "R+Sms" or "R+Ss": wall(fold) <= R * wall(plain) + S."""
    m = re.match(r"^\s*([0-9.]+)\s*(?:\+\s*([0-9.]+)\s*(ms|s))?\s*$", text)
    if not m:
        raise ValueError("bad time bound %r (expected R or R+Nms)" % text)
    slack = float(m.group(2) or 0) / (1000.0 if m.group(3) == "ms" else 1.0)
    return float(m.group(1)), slack


# ---------------------------------------------------------------- building


class Builder:
    def __init__(self, args):
        self.args = args
        self.out = os.path.join(args.build_dir, "bin")
        self.helpers = os.path.join(self.out, "helpers")
        os.makedirs(self.helpers, exist_ok=True)
        self.lock = threading.Lock()
        self.probe_obj = None

    def run(self, cmd):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return p.returncode, p.stdout

    def stamp_ok(self, target, key):
        stamp = target + ".stamp"
        try:
            with open(stamp) as f:
                return f.read() == key and os.path.exists(target)
        except OSError:
            return False

    def write_stamp(self, target, key):
        with open(target + ".stamp", "w") as f:
            f.write(key)

    def probe(self):
        with self.lock:
            if self.probe_obj:
                return self.probe_obj, None
            src = os.path.join(HERE, "probe.c")
            obj = os.path.join(self.out, "probe.o")
            key = hashlib.sha256(open(src, "rb").read()).hexdigest()
            if not self.stamp_ok(obj, key):
                rc, log = self.run(["cc", "-O1", "-g", "-c", src, "-o", obj])
                if rc:
                    return None, log
                self.write_stamp(obj, key)
            self.probe_obj = obj
            return obj, None

    def expand(self, text):
        return (text.replace("{stub}", "-I%s -L%s -lfold-stub -Wl,-rpath,%s" %
                             (self.args.include, self.args.stub_dir, self.args.stub_dir))
                .replace("{include}", self.args.include).replace("{helpers}", self.helpers)
                .replace("{src}", os.path.abspath(self.args.corpus)).replace("{tools}", HERE))

    def compiler(self, case):
        cc = case.get("cc")
        if cc:
            return shlex.split(cc)
        return {".c": ["cc"], ".cc": ["c++"], ".cpp": ["c++"], ".f90": ["gfortran"]}.get(case.ext)

    def build(self, case, helper=False):
        """Builds the case's program; returns (exe, None) or (None, reason),
        reason starting with "skip:" when a compiler is missing."""
        if case.ext == ".sh":
            return case.path, None
        cc = self.compiler(case)
        flags = shlex.split(self.expand(" ".join(case.lists["build"])))
        if not cc:
            return None, "no compiler for %s" % case.ext
        if not shutil.which(cc[0]):
            return None, "skip: %s not installed" % cc[0]
        exe = os.path.join(self.helpers if helper else self.out, case.name + (".so" if helper and
                                                                              "-shared" in flags else ""))
        objs = []
        if not helper and case.get("probe", "yes") != "no":
            obj, log = self.probe()
            if not obj:
                return None, "probe.c does not build:\n" + log
            objs.append(obj)
        if case.ext in (".cc", ".cpp"):
            std = ["-g", "-O1", "-D_GNU_SOURCE"]
        elif case.ext == ".c":
            std = ["-g", "-O1", "-D_GNU_SOURCE"]
        else:
            std = ["-g", "-O1"]
        cmd = cc + std + ["-I" + HERE + "/corpus", case.path] + objs + ["-o", exe] + flags
        key = hashlib.sha256((" ".join(cmd) + "\n").encode() + open(case.path, "rb").read() +
                             b"".join(open(o, "rb").read() for o in objs)).hexdigest()
        if self.stamp_ok(exe, key):
            return exe, None
        rc, log = self.run(cmd)
        if rc:
            return None, "build failed: %s\n%s" % (" ".join(cmd), log)
        self.write_stamp(exe, key)
        return exe, None


# ---------------------------------------------------------------- running


class Load:
    """CPU time the whole machine spent, to tell our runs from other work."""

    @staticmethod
    def busy():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        idle = v[3] + (v[4] if len(v) > 4 else 0)
        return (sum(v) - idle) / os.sysconf("SC_CLK_TCK")


class Run:
    """One execution of a case in one mode: what it did."""

    def __init__(self):
        self.status = None
        self.wall = 0.0
        self.cpu = 0.0
        self.stdout = b""
        self.stderr = b""
        self.fold_lines = []
        self.files = {}
        self.probe = {}
        self.traces = []
        self.dir = None
        self.pid = None


class Runner:
    def __init__(self, args, known):
        self.args = args
        self.known = known
        self.builder = Builder(args)
        self.tool_dir = args.tool_dir

    # -- the command line of one mode
    def fold_env(self, case, run_dir):
        env = {"FOLD_SAMPLE": case.get("fold-sample", "time@1ms")}
        env["FOLD_OUTPUT"] = os.path.join(run_dir, "traces", "fold.%e.%p.trace")
        for kv in case.lists["fold-env"] + self.args.fold_env:
            k, _, v = kv.partition("=")
            env[k] = self.expand_paths(v, run_dir)
        return env

    def expand_paths(self, text, run_dir):
        return (text.replace("{scratch}", os.path.join(run_dir, "scratch"))
                .replace("{traces}", os.path.join(run_dir, "traces")).replace("{run}", run_dir)
                .replace("{helpers}", self.builder.helpers).replace("{bin}", self.builder.out)
                .replace("{libfold}", self.args.libfold).replace("{foldrun}", self.args.foldrun)
                .replace("{src}", os.path.abspath(self.args.corpus)).replace("{tools}", HERE))

    def command(self, case, exe, mode, run_dir):
        """(argv, extra environment) of the run."""
        fenv = self.fold_env(case, run_dir) if mode != "plain" else {}
        if mode == "preload":
            prefix = ["env", "LD_PRELOAD=" + self.args.libfold] + ["%s=%s" % kv for kv in fenv.items()]
        elif mode == "foldrun":
            out = fenv.pop("FOLD_OUTPUT")
            prefix = ["env"] + ["%s=%s" % kv for kv in fenv.items()] + [self.args.foldrun, "-o", out]
        else:
            prefix = []
        template = case.get("cmd", "{fold} {exe} {args}")
        words = []
        for w in shlex.split(template):
            if w == "{fold}":
                words += prefix
            elif w == "{args}":
                words += shlex.split(self.expand_paths(case.get("args", ""), run_dir))
            else:
                words.append(self.expand_paths(w.replace("{exe}", exe), run_dir))
        env = {}
        # A command that starts with the fold prefix needs no env(1) process:
        # its variables go straight into the environment.
        if prefix and words[:len(prefix)] == prefix:
            words = words[1:]
            while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
                k, _, v = words.pop(0).partition("=")
                env[k] = v
        return words, env

    def base_env(self, case, run_dir):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/root"),
               "LC_ALL": "C", "TERM": "dumb", "OMPI_MCA_rmaps_base_oversubscribe": "1"}
        for kv in case.lists["env"]:
            k, _, v = kv.partition("=")
            env[k] = self.expand_paths(v, run_dir)
        return env

    def execute(self, case, exe, mode, run_dir):
        r = Run()
        r.dir = run_dir
        shutil.rmtree(run_dir, ignore_errors=True)
        scratch = os.path.join(run_dir, "scratch")
        os.makedirs(scratch)
        os.makedirs(os.path.join(run_dir, "traces"))
        argv, extra = self.command(case, exe, mode, run_dir)
        env = self.base_env(case, run_dir)
        env.update(extra)
        if case.get("probe", "yes") != "no":
            env["DIFF_PROBE"] = os.path.join(run_dir, "probe")
        limits = parse_limits("core=0 " + case.get("limits", ""))
        out_path = os.path.join(run_dir, "stdout")
        err_path = os.path.join(run_dir, "stderr")
        to_close = []

        def stream(spec, path, default_read=False):
            spec = spec or ("null" if default_read else "file")
            if spec == "file":
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                to_close.append(fd)
                return fd, None
            if spec == "null":
                return subprocess.DEVNULL, None
            if spec == "closed":
                return subprocess.DEVNULL, "close"
            if spec == "brokenpipe":
                rd, wr = os.pipe()
                os.close(rd)
                to_close.append(wr)
                return wr, None
            if spec.startswith("file:"):
                fd = os.open(self.expand_paths(spec[5:], run_dir), os.O_RDONLY)
                to_close.append(fd)
                return fd, None
            raise ValueError("%s: bad stdio %r" % (case.name, spec))

        stdin, in_act = stream(case.get("stdin"), None, True)
        stdout, out_act = stream(case.get("stdout"), out_path)
        stderr, err_act = stream(case.get("stderr"), err_path)
        closing = [fd for fd, act in ((0, in_act), (1, out_act), (2, err_act)) if act == "close"]
        ids = None
        if case.get("run-as"):
            import pwd
            pw = pwd.getpwnam(case.get("run-as"))
            ids = (pw.pw_uid, pw.pw_gid)
            for d in (run_dir, scratch, os.path.join(run_dir, "traces")):
                os.chown(d, *ids)

        def child_setup():
            for name, value in limits.items():
                resource.setrlimit(LIMITS[name], (value, value) if name != "nofile" else
                                   (value, max(value, resource.getrlimit(LIMITS[name])[1])))
            for fd in closing:
                os.close(fd)
            if ids:
                os.setgroups([])
                os.setgid(ids[1])
                os.setuid(ids[0])

        timeout = float(case.get("timeout", 30)) * self.args.timeout_scale
        t0 = time.monotonic()
        try:
            p = subprocess.Popen(argv, stdin=stdin, stdout=stdout, stderr=stderr, cwd=scratch, env=env,
                                 preexec_fn=child_setup, process_group=0, close_fds=True)
        except (OSError, subprocess.SubprocessError) as e:
            for fd in to_close:
                os.close(fd)
            r.status = "cannot run: %s (limits %s%s)" % (e, limits, ", as " + case.get("run-as")
                                                          if case.get("run-as") else "")
            return r
        for fd in to_close:
            os.close(fd)
        r.pid = p.pid
        timed_out = []

        def kill():
            timed_out.append(1)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass

        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        timer.cancel()
        r.wall = time.monotonic() - t0
        p.returncode = 0  # reaped above
        r.cpu = ru.ru_utime + ru.ru_stime
        # Whatever the run left behind in its group (a hung child) goes too.
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        if timed_out:
            r.status = "timeout %gs" % timeout
        elif os.WIFSIGNALED(status):
            r.status = "signal " + signame(os.WTERMSIG(status))
        else:
            r.status = "exit %d" % os.WEXITSTATUS(status)
        r.stdout = read_file(out_path)
        raw_err = read_file(err_path)
        r.stderr, r.fold_lines = split_fold_lines(raw_err, mode != "plain")
        r.files = scan_files(scratch, case.lists["ignore-files"])
        for when in ("start", "exit"):
            r.probe[when] = read_file(os.path.join(run_dir, "probe." + when))
        # Traces: in the run's trace directory, or where the case's own
        # FOLD_OUTPUT put them in the scratch directory.
        r.traces = sorted(glob.glob(os.path.join(run_dir, "traces", "*")))
        for dirpath, _, names in os.walk(scratch):
            r.traces += sorted(os.path.join(dirpath, n) for n in names if n.endswith(".trace"))
        return r


def read_file(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def split_fold_lines(raw, strip):
    """The program's stderr, and fold's own lines ("fold: ...") apart."""
    if not strip:
        return raw, []
    keep, fold = [], []
    for line in raw.splitlines(keepends=True):
        (fold if line.startswith(b"fold: ") else keep).append(line)
    return b"".join(keep), [l.decode(errors="replace").rstrip("\n") for l in fold]


def scan_files(root, ignore):
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames) + [d + "/" for d in dirnames]:
            path = os.path.join(dirpath, name.rstrip("/"))
            rel = os.path.relpath(path, root) + ("/" if name.endswith("/") else "")
            if any(fnmatch.fnmatch(rel.rstrip("/"), g) for g in ignore):
                continue
            if name.endswith("/"):
                out[rel] = ("dir", 0, b"")
                continue
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if os.path.islink(path):
                out[rel] = ("link", 0, os.readlink(path).encode())
            elif os.path.isfile(path):
                data = read_file(path) if st.st_size <= 1 << 20 else b""
                out[rel] = ("file", st.st_size, data if st.st_size <= 1 << 20 else
                            hashlib.sha256(open(path, "rb").read()).hexdigest().encode())
            else:
                out[rel] = ("special", 0, b"")
    return out


# ---------------------------------------------------------------- comparing


class Normaliser:
    def __init__(self, case, run, runner, mode):
        self.rules = []
        self.env_drop = set()
        for word in ",".join(case.lists["normalize"]).split(","):
            word = word.strip()
            if not word:
                continue
            if word not in ("pids", "addrs", "times", "numbers", "sort", "uniq"):
                raise ValueError("%s: unknown normaliser %r" % (case.name, word))
            self.rules.append(word)
        self.subs = []
        for s in case.lists["sub"]:
            sep = s[0]
            parts = s[1:].split(sep)
            if len(parts) < 2:
                raise ValueError("%s: bad sub=%r (expected /REGEX/REPLACEMENT/)" % (case.name, s))
            self.subs.append((re.compile(parts[0].encode()), parts[1].encode()))
        self.paths = [(run.dir + "/scratch").encode(), (run.dir + "/traces").encode(), run.dir.encode(),
                      runner.builder.out.encode()]
        self.path_names = [b"<SCRATCH>", b"<TRACES>", b"<RUN>", b"<BIN>"]
        self.pid = run.pid

    def text(self, data):
        for p, n in zip(self.paths, self.path_names):
            data = data.replace(p, n)
        for rule in self.rules:
            if rule == "pids":
                if self.pid:
                    data = re.sub(rb"\b%d\b" % self.pid, b"<PID>", data)
                data = re.sub(rb"(?i)\b(pid|ppid|child|tid|process)([ =:]+)\d+", rb"\1\2<PID>", data)
            elif rule == "addrs":
                data = re.sub(rb"0x[0-9a-fA-F]{5,}", b"<ADDR>", data)
            elif rule == "times":
                data = re.sub(rb"\b\d+(\.\d+)?\s*(ns|us|\xc2\xb5s|ms|s|sec|seconds)\b", b"<TIME>", data)
            elif rule == "numbers":
                data = re.sub(rb"\d+", b"N", data)
        for rx, repl in self.subs:
            data = rx.sub(repl, data)
        if "sort" in self.rules:
            data = b"".join(sorted(data.splitlines(keepends=True)))
        return data

    def probe(self, data, runner_env):
        """The probe's facts, without what the runner itself put there (the
        preload and the FOLD_* settings it passed)."""
        out = []
        for line in self.text(data).splitlines(keepends=True):
            m = re.match(rb"env ([^=]+)=", line)
            if m and m.group(1).decode() in runner_env:
                continue
            out.append(line)
        return b"".join(out)


def short_diff(a, b, limit=6):
    """The first lines that differ, '-' without fold, '+' with."""
    al = a.decode(errors="replace").splitlines()
    bl = b.decode(errors="replace").splitlines()
    out = []
    for line in difflib.unified_diff(al, bl, lineterm="", n=0):
        if line.startswith(("---", "+++", "@@")):
            continue
        out.append(line[:160])
        if len(out) >= limit:
            out.append("...")
            break
    return out


def observe(case, run, runner, mode):
    """What is compared, normalised: a dict aspect -> bytes."""
    n = Normaliser(case, run, runner, mode)
    runner_env = {"LD_PRELOAD", "FOLD_OUTPUT", "FOLD_SAMPLE"}
    for kv in case.lists["fold-env"] + runner.args.fold_env:
        runner_env.add(kv.partition("=")[0])
    obs = {"status": run.status.encode(), "stdout": n.text(run.stdout), "stderr": n.text(run.stderr)}
    files = []
    for rel, (kind, size, data) in sorted(run.files.items()):
        if kind == "file":
            body = n.text(data)
            files.append(b"%s %s %d\n" % (n.text(rel.encode()), kind.encode(),
                                          size if body == data else len(body)))
            files.append(body if body.endswith(b"\n") or not body else body + b"\n<no newline>\n")
        else:
            files.append(b"%s %s %s\n" % (n.text(rel.encode()), kind.encode(), n.text(data)))
    obs["files"] = b"".join(files)
    obs["probe"] = b"".join(b"[%s]\n" % w.encode() + n.probe(run.probe[w], runner_env)
                            for w in ("start", "exit"))
    return obs


# ---------------------------------------------------------------- checks of the trace


def trace_checks(case, run, runner, mode):
    """Failures (strings) of the case's checks on fold's output."""
    fails = []
    traces = [t for t in run.traces if os.path.isfile(t)]
    want = case.get("traces", ">=1")
    if want != "any":
        m = re.match(r"^(>=)?(\d+)$", want)
        if not m:
            raise ValueError("%s: bad traces=%r" % (case.name, want))
        n = int(m.group(2))
        if (m.group(1) and len(traces) < n) or (not m.group(1) and len(traces) != n):
            fails.append("%d trace file(s), expected %s" % (len(traces), want))
    main = None
    for t in traces:
        if run.pid and re.search(r"\.%d(\.\d+)?\.trace$" % run.pid, t):
            main = t
            break
    if not main and traces:
        main = traces[0]
    fold_err = "\n".join(run.fold_lines)
    for rx in case.lists["fold-err-has"]:
        if not re.search(rx, fold_err, re.M):
            fails.append("fold's stderr lacks /%s/: %s" % (rx, fold_err[:300] or "(nothing)"))
    for rx in case.lists["fold-err-not"]:
        m = re.search(rx, fold_err, re.M)
        if m:
            fails.append("fold's stderr has /%s/: %s" % (rx, line_of(fold_err, m)))
    tool_checks = [("dump-has", "dump-not", [runner.args.fold, "dump", "--stats"]),
                   ("summary-has", "summary-not", [runner.args.fold]),
                   ("profile-has", "profile-not", [runner.args.fold, "profile"])]
    for has, hasnot, cmd in tool_checks:
        if not (case.lists[has] or case.lists[hasnot]):
            continue
        if not main:
            fails.append("no trace for %s" % " ".join(os.path.basename(c) for c in cmd[:2]))
            continue
        p = subprocess.run(cmd + [main], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
                           env=dict(os.environ, COLUMNS="200"))
        text = p.stdout.decode(errors="replace")
        what = " ".join([os.path.basename(cmd[0])] + cmd[1:2])
        for rx in case.lists[has]:
            if not re.search(rx, text, re.M):
                fails.append("%s: no /%s/" % (what, rx))
        for rx in case.lists[hasnot]:
            m = re.search(rx, text, re.M)
            if m:
                fails.append("%s: /%s/ in: %s" % (what, rx, line_of(text, m)))
    for args in case.lists["trace-check"]:
        if not main:
            fails.append("no trace for trace_check")
            continue
        p = subprocess.run([runner.args.trace_check, main] + shlex.split(args), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=120)
        if p.returncode:
            fails.append("trace_check %s: %s" % (args, p.stdout.decode(errors="replace").strip()[:300]))
    for script in case.lists["check"]:
        env = dict(os.environ, TRACE=main or "", TRACES=" ".join(traces), FOLD=runner.args.fold,
                   TRACE_CHECK=runner.args.trace_check, SCRATCH=os.path.join(run.dir, "scratch"),
                   RUNDIR=run.dir, MODE=mode, STDOUT=os.path.join(run.dir, "stdout"),
                   STDERR=os.path.join(run.dir, "stderr"), PID=str(run.pid or ""))
        p = subprocess.run(["sh", "-c", runner.expand_paths(script, run.dir)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=env, cwd=run.dir, timeout=120)
        if p.returncode:
            fails.append("check failed: %s" % (p.stdout.decode(errors="replace").strip()[:300] or script))
    return fails


def line_of(text, m):
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    return text[start:end if end >= 0 else None][:200]


# ---------------------------------------------------------------- one case


class Verdict:
    def __init__(self, case):
        self.case = case
        self.kind = None  # same, differ, skip, broken
        self.reason = ""
        self.details = []
        self.status = {}
        self.ratio = None
        self.known = None
        self.outcome = None  # after comparing with the known failures


TRACE_CHECK_KEYS = ("dump-has", "dump-not", "summary-has", "summary-not", "profile-has", "profile-not",
                    "fold-err-has", "fold-err-not", "trace-check", "check")


def case_without_trace_checks(case):
    """The case under a hostile variant that changed how the program ends
    (it died of the broken pipe, say): the checks of its trace assume the
    normal end, so only the comparison with the run without fold remains."""
    c = Case.__new__(Case)
    c.__dict__ = dict(case.__dict__)
    c.keys = dict(case.keys)
    c.keys["traces"] = "any"
    c.lists = {k: ([] if k in TRACE_CHECK_KEYS else list(v)) for k, v in case.lists.items()}
    return c


def plain_problem(case, r, compare, ref, runner):
    """Why a run without fold cannot serve as the reference, or None: it did
    not do what the case's header says, or it differs from the first run."""
    want = case.get("expect-status")
    if want and r.status != want:
        return "without fold: %s, expected %s; stderr: %s" % (
            r.status, want, r.stderr.decode(errors="replace").strip()[:200])
    for rx in case.lists["expect-stdout"]:
        if not re.search(rx.encode(), r.stdout, re.M):
            return "without fold: stdout lacks /%s/: %s" % (rx, r.stdout.decode(errors="replace")[:200])
    if ref is not None:
        o = observe(case, r, runner, "plain")
        for aspect in compare:
            if aspect in o and o[aspect] != ref[aspect]:
                return "not deterministic without fold (%s): %s" % (
                    aspect, "; ".join(short_diff(ref[aspect], o[aspect], 3)))
    return None


def judge(runner, case):
    v = Verdict(case)
    for cmd in case.lists["needs"]:
        for need in cmd.split(","):
            need = need.strip()
            if need == "root":
                if os.geteuid() != 0:
                    v.kind, v.reason = "skip", "needs root"
                    return v
            elif not shutil.which(need):
                v.kind, v.reason = "skip", "%s not installed" % need
                return v
    for script in case.lists["skip-if"]:
        p = subprocess.run(["sh", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode == 0:
            v.kind, v.reason = "skip", p.stdout.decode(errors="replace").strip() or script
            return v
    exe, err = runner.builder.build(case)
    if not exe:
        v.kind = "skip" if err.startswith("skip:") else "broken"
        v.reason = err[5:].strip() if err.startswith("skip:") else err.strip()
        return v
    modes = [m for m in case.get("modes", ",".join(MODES)).split(",") if m in runner.args.modes]
    if "plain" not in modes:
        modes.insert(0, "plain")
    nruns = int(case.get("runs", runner.args.runs))
    compare = [c.strip() for c in case.get("compare", DEFAULT_COMPARE).split(",") if c.strip()]
    work = os.path.join(runner.args.work_dir, case.label())
    runs = {m: [] for m in modes}
    diffs = []
    stopped = set()
    busy0, t0 = Load.busy(), time.monotonic()
    ref = None
    # Alternate the modes so that a burst of other work hits all of them. A
    # mode that differed once is not run again (a hang costs its timeout).
    for i in range(nruns):
        for m in modes:
            if m in stopped:
                continue
            r = runner.execute(case, exe, m, os.path.join(work, "%s.%d" % (m, i)))
            runs[m].append(r)
            if m == "plain":
                problem = plain_problem(case, r, compare, ref, runner)
                if problem:
                    v.kind, v.reason = "broken", problem
                    v.status = {mm: [x.status for x in runs[mm]] for mm in modes if runs[mm]}
                    return v
                if ref is None:
                    ref = observe(case, r, runner, "plain")
                    if case.normal_status and r.status != case.normal_status:
                        case = case_without_trace_checks(case)
                continue
            o = observe(case, r, runner, m)
            found = []
            for aspect in compare:
                if aspect in o and o[aspect] != ref[aspect]:
                    found.append((m, i, aspect, short_diff(ref[aspect], o[aspect])))
            for f in trace_checks(case, r, runner, m):
                found.append((m, i, "trace", [f]))
            if found:
                diffs += found
                stopped.add(m)
    busy1, t1 = Load.busy(), time.monotonic()
    for m in modes:
        seen = []
        for r in runs[m]:
            if r.status not in seen:
                seen.append(r.status)
        v.status[m] = seen
    plain = runs["plain"]
    # Timing: the fastest run of each mode, against a load-aware bound.
    plain_t = min(r.wall for r in plain)
    fold_t = [min(r.wall for r in runs[m]) for m in modes[1:]]
    if fold_t and plain_t > 0:
        v.ratio = max(fold_t) / plain_t
    # Every case has a generous bound (--default-time), judged while other
    # work leaves at least a CPU free (the other case the runner runs beside
    # it included); a case's own time= is judged only on a quiet machine
    # (--max-other-load), and skipped otherwise.
    explicit = "time" in case.keys
    bound = case.get("time") or runner.args.default_time
    if bound and fold_t:
        factor, slack = parse_time_bound(bound)
        ours = sum(r.cpu for m in modes for r in runs[m])
        other = max(0.0, (busy1 - busy0) - ours) / max(t1 - t0, 1e-6)
        over = [(m, t) for m, t in zip(modes[1:], fold_t) if t > factor * plain_t + slack]
        if over:
            what = "; ".join("%s %.3fs > %g x %.3fs + %gms" % (m, t, factor, plain_t, slack * 1000)
                             for m, t in over)
            quiet = runner.args.max_other_load if explicit else max(0.5, (os.cpu_count() or 2) - 1.0)
            if other > quiet:
                if explicit and not diffs:
                    v.kind = "skip"
                    v.reason = "timing not judged: other work used %.1f of %d CPUs during the runs (%s)" % (
                        other, os.cpu_count(), what)
            else:
                diffs.append((over[0][0], 0, "time", [what + " (other work: %.2f CPUs)" % other]))
    if v.kind == "skip":
        return v
    if diffs:
        v.kind = "differ"
        aspects = []
        for m, i, aspect, lines in diffs:
            tag = "%s:%s" % (m, aspect)
            if tag not in aspects:
                aspects.append(tag)
        v.reason = ", ".join(aspects)
        seen = set()
        for m, i, aspect, lines in diffs:
            if (m, aspect) in seen:
                continue
            seen.add((m, aspect))
            v.details.append("%s run %d, %s:" % (m, i, aspect))
            v.details += ["    " + l for l in lines]
    else:
        v.kind = "same"
    if not runner.args.keep and v.kind == "same":
        shutil.rmtree(work, ignore_errors=True)
    return v


# ---------------------------------------------------------------- known failures


class Known:
    """tests/diff/known-failures: PATTERN DEFECT SYMPTOM... per line."""

    def __init__(self, path):
        self.entries = []
        if not path or not os.path.exists(path):
            return
        with open(path) as f:
            for no, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                parts = line.split(None, 2)
                if len(parts) < 3:
                    raise ValueError("%s:%d: expected PATTERN DEFECT SYMPTOM" % (path, no))
                flaky = parts[0].startswith("~")
                self.entries.append({"pattern": parts[0].lstrip("~"), "defect": parts[1], "symptom": parts[2],
                                     "line": no, "flaky": flaky, "hits": [], "passes": []})

    def match(self, label):
        for e in self.entries:
            if fnmatch.fnmatchcase(label, e["pattern"]):
                return e
        return None


def settle(verdicts, known):
    """Each verdict's outcome against the known failures; returns problems."""
    problems = []
    for v in verdicts:
        e = known.match(v.case.label())
        v.known = e
        if v.kind == "same":
            v.outcome = "same"
            if e:
                e["passes"].append(v)
        elif v.kind == "skip":
            v.outcome = "skip"
        elif v.kind == "differ" and e:
            v.outcome = "known"
            e["hits"].append(v)
        else:
            v.outcome = "FAIL" if v.kind == "differ" else "BROKEN"
            problems.append(v)
    fixed = []
    for e in known.entries:
        if e["passes"] and not e["hits"] and not e["flaky"]:
            fixed.append(e)
            for v in e["passes"]:
                v.outcome = "FIXED"
    return problems, fixed


# ---------------------------------------------------------------- main


def hogs_start(n):
    procs = []
    for _ in range(n):
        procs.append(subprocess.Popen(["sh", "-c", "while :; do :; done"], stdin=subprocess.DEVNULL,
                                      start_new_session=True))
    return procs


def hogs_stop(procs):
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-root", help="fold's build directory (finds libfold.so, foldrun, fold, ...)")
    ap.add_argument("--libfold")
    ap.add_argument("--foldrun")
    ap.add_argument("--fold")
    ap.add_argument("--trace-check")
    ap.add_argument("--stub-dir")
    ap.add_argument("--include", default=os.path.join(HERE, "..", "..", "include"))
    ap.add_argument("--corpus", default=os.path.join(HERE, "corpus"))
    ap.add_argument("--known", default=os.path.join(HERE, "known-failures"))
    ap.add_argument("--build-dir", help="where the corpus is built (default BUILD_ROOT/tests/diff)")
    ap.add_argument("--work-dir", help="scratch directories of the runs (default BUILD_DIR/work)")
    ap.add_argument("--runs", type=int, default=2, help="runs of each mode per case (default 2)")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="cases run at once (timing cases run alone)")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--fold-env", action="append", default=[], metavar="NAME=VALUE",
                    help="a fold setting for every run with fold, over the cases' own (repeatable)")
    ap.add_argument("--hostile", action="store_true", help="the hostile variants of hostile=yes cases")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="hostile variants to run")
    ap.add_argument("--hogs", type=int, default=None, help="CPU hogs beside the runs (default: 2 with --hostile)")
    ap.add_argument("--max-other-load", type=float, default=0.5,
                    help="CPUs of other work above which a timing bound is not judged (default 0.5)")
    ap.add_argument("--timeout-scale", type=float, default=1.0)
    ap.add_argument("--default-time", default="5+1000ms",
                    help="wall time bound of cases without time= (R+Sms; judged only on a quiet machine; "
                    "'' for none)")
    ap.add_argument("--keep", action="store_true", help="keep the run directories of identical cases too")
    ap.add_argument("--table", help="also write the table (markdown) to this file")
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("only", nargs="*", help="case names or globs")
    args = ap.parse_args()

    root = args.build_root
    if root:
        args.libfold = args.libfold or os.path.join(root, "src/runtime/libfold.so")
        args.foldrun = args.foldrun or os.path.join(root, "src/runtime/foldrun")
        args.fold = args.fold or os.path.join(root, "src/cli/fold")
        args.trace_check = args.trace_check or os.path.join(root, "tests/integration/runtime/trace_check")
        args.stub_dir = args.stub_dir or os.path.join(root, "src/stub")
        args.build_dir = args.build_dir or os.path.join(root, "tests/diff")
    for name in ("libfold", "foldrun", "fold", "trace_check", "stub_dir", "build_dir"):
        if not getattr(args, name):
            ap.error("--%s (or --build-root) is needed" % name.replace("_", "-"))
        setattr(args, name, os.path.abspath(getattr(args, name)))
    for name in ("libfold", "foldrun", "fold", "trace_check"):
        if not os.access(getattr(args, name), os.X_OK | os.R_OK):
            print("run.py: %s not found: %s (build fold first)" % (name, getattr(args, name)), file=sys.stderr)
            return 2
    args.include = os.path.abspath(args.include)
    args.tool_dir = HERE
    args.work_dir = os.path.abspath(args.work_dir or os.path.join(args.build_dir, "work-hostile" if args.hostile
                                                                  else "work"))
    args.modes = args.modes.split(",")
    try:
        known = Known(args.known)
        files = sorted(f for f in glob.glob(os.path.join(args.corpus, "*"))
                       if os.path.splitext(f)[1] in (".c", ".cc", ".cpp", ".f90", ".sh"))
        cases = [Case(f) for f in files]
    except ValueError as e:
        print("run.py: %s" % e, file=sys.stderr)
        return 2
    if args.only:
        cases = [c for c in cases if any(fnmatch.fnmatchcase(c.name, p) for p in args.only)]
    if args.hostile:
        variants = [x for x in args.variants.split(",") if x]
        for x in variants:
            if x not in VARIANTS:
                ap.error("unknown variant %r" % x)
        cases = [cv for c in cases if c.get("hostile") == "yes" for x in variants
                 for cv in [c.with_variant(x)] if cv]
    if not cases:
        print("run.py: no case to run", file=sys.stderr)
        return 2
    os.makedirs(args.work_dir, exist_ok=True)
    runner = Runner(args, known)
    hogs = hogs_start(args.hogs if args.hogs is not None else (2 if args.hostile else 0))
    start = time.monotonic()
    print("diff: %d case(s), %d run(s) per mode, modes %s%s; libfold %s" % (
        len(cases), args.runs, ",".join(args.modes), ", beside %d CPU hog(s)" % len(hogs) if hogs else "",
        args.libfold), flush=True)
    verdicts = []
    try:
        # Build first (in parallel), then run: cases with a timing bound or
        # serial=yes alone at the end, the others args.jobs at a time.
        helpers = [Case(f) for f in sorted(glob.glob(os.path.join(HERE, "helpers", "*.c")))]
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            for h, (exe, err) in zip(helpers, ex.map(lambda c: runner.builder.build(c, helper=True), helpers)):
                if not exe and not err.startswith("skip:"):
                    print("run.py: helper %s: %s" % (h.name, err), file=sys.stderr)
                    return 2
            list(ex.map(lambda c: runner.builder.build(c), cases))
        alone = [c for c in cases if "time" in c.keys or c.get("serial") == "yes"]
        together = [c for c in cases if c not in alone]

        def one(c):
            t = time.monotonic()
            try:
                v = judge(runner, c)
            except Exception as e:  # a harness error is a failure of that case
                v = Verdict(c)
                v.kind, v.reason = "broken", "runner error: %r" % e
            v.seconds = time.monotonic() - t
            if args.verbose:
                print("  %-40s %s %s (%.1fs)" % (c.label(), v.kind, v.reason[:80], v.seconds), flush=True)
            return v

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            verdicts += list(ex.map(one, together))
        verdicts += [one(c) for c in alone]
    finally:
        hogs_stop(hogs)
    elapsed = time.monotonic() - start
    order = {c.label(): i for i, c in enumerate(cases)}
    verdicts.sort(key=lambda v: order[v.case.label()])
    problems, fixed = settle(verdicts, known)
    return report(args, verdicts, problems, fixed, known, elapsed, len(hogs))


def report(args, verdicts, problems, fixed, known, elapsed, hogs):
    rows = []
    for v in verdicts:
        st = " / ".join("|".join(v.status[m]) for m in MODES if m in v.status)
        detail = v.reason
        if v.known and v.outcome in ("known", "FIXED", "same"):
            detail = "%s [%s: %s]" % (detail, v.known["defect"], v.known["symptom"])
        rows.append((v.case.label(), v.outcome, "%.2f" % v.ratio if v.ratio else "-",
                     "%.0f" % getattr(v, "seconds", 0), st, detail))
    w0 = max(len(r[0]) for r in rows)
    print("\n%-*s  %-7s  %-5s  %4s  %s" % (w0, "case", "outcome", "ratio", "secs",
                                         "status (plain / preload / foldrun); detail"))
    for r in rows:
        print("%-*s  %-7s  %-5s  %4s  %s; %s" % (w0, r[0], r[1], r[2], r[3], r[4], r[5][:200]))
    same = sum(v.outcome in ("same", "FIXED") for v in verdicts)
    differ = sum(v.outcome in ("known", "FAIL") for v in verdicts)
    skipped = [v for v in verdicts if v.outcome == "skip"]
    broken = sum(v.outcome == "BROKEN" for v in verdicts)
    judged = same + differ
    print("\nsummary: %d case(s): %d identical, %d differing (%d known, %d new), %d skipped, %d broken; "
          "identical rate %d/%d = %.0f%%; %.0f s%s" % (
              len(verdicts), same, differ, sum(v.outcome == "known" for v in verdicts),
              sum(v.outcome == "FAIL" for v in verdicts), len(skipped), broken, same, judged,
              100.0 * same / judged if judged else 0, elapsed, " beside %d CPU hogs" % hogs if hogs else ""))
    for v in skipped:
        print("  skipped %s: %s" % (v.case.label(), v.reason))
    for v in problems:
        print("\n%s %s: %s" % (v.outcome, v.case.label(), v.reason))
        if v.case.what:
            print("  (%s)" % v.case.what)
        for line in v.details[:40]:
            print("  " + line)
        print("  run directories kept in %s" % os.path.join(args.work_dir, v.case.label()))
    for v in verdicts:
        if v.outcome == "known" and args.verbose:
            print("\nknown %s: %s" % (v.case.label(), v.reason))
            for line in v.details[:20]:
                print("  " + line)
    for e in fixed:
        print("\nFIXED: %s (%s, known-failures line %d) now behaves identically: remove it from %s" % (
            e["pattern"], e["defect"], e["line"], args.known))
    if args.table:
        with open(args.table, "w") as f:
            f.write("| case | outcome | wall ratio | seconds | status (plain / preload / foldrun) | detail |\n")
            f.write("|---|---|---|---|---|---|\n")
            for r in rows:
                f.write("| %s |\n" % " | ".join(x.replace("|", "\\|") for x in r))
    return 1 if problems or fixed else 0


if __name__ == "__main__":
    sys.exit(main())
