#!/usr/bin/env python3
"""cpu_share.py [--min-share F] [--threads N] [--judge WHAT] -- [NAME=VALUE...] CMD ARGS...

Runs CMD (NAME=VALUE words before it are set in its environment only, as
env(1) does, so LD_PRELOAD reaches the program and not this script; standard streams and environment inherited; this script's own lines go
to standard error, so CMD's output can be kept apart) and measures how much
CPU it got: its own CPU time (user + system, from the kernel's accounting of
the finished process and its children) over N threads' worth of the wall time
it took. A test whose verdict depends on the program running undisturbed (a
fidelity check on wall-time phases, a timer comparison) calls its program
through this and cannot then fail, or pass, because the machine was busy:

- CMD fails: its exit status is returned, as without this wrapper.
- CMD got less than F of N CPUs: one line "SKIP: ... got only 61% of a CPU
  ...; WHAT cannot be judged" with the figures, and exit 77 (ctest's
  SKIP_RETURN_CODE).
- Otherwise exit 0, after one line with the figures on stderr.

A program that has not finished after --patience seconds (default 20) while
getting less than F of N CPUs is not waited for: on a machine that busy a
wall-time test program can take minutes, and the test would time out instead
of saying why. It is killed and the test skips with the figures so far.

The machine's load (the share of all CPUs busy during the run, from
/proc/stat, and the load average) is printed alongside, so a skip says what
was taking the CPU.

A virtual machine can also be stopped by its host, which its guest kernel
does not see: the program's CPU time counts those stops as running. With
--max-stalls P the stall probe (tests/tools/stalls.c, compiled once with cc)
runs for 0.3 s after CMD and measures the share of its CPU time lost to such
hidden stops longer than --stall-over microseconds (default 8); above P
percent the test skips with the figures ("the machine stopped ..."). A test
program whose truth leaves out its steps longer than that (time lost to
interruptions) cannot be compared with fold, which sees those stops as time
the program spent.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time

TICK = os.sysconf("SC_CLK_TCK")


def cpu_ticks():
    """(busy, total) jiffies over all CPUs, from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return None
    idle = v[3] + (v[4] if len(v) > 4 else 0)  # idle + iowait
    return sum(v) - idle, sum(v)


def cpu_so_far(pid):
    """CPU seconds (user + system) the running process has used, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
    except (OSError, IndexError, ValueError):
        return None


def stall_probe(over_us):
    """(hidden %, the probe's line) from tests/tools/stalls.c, or None."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stalls.c")
    cache = os.path.join(os.environ.get("TMPDIR", "/tmp"), "fold-stalls-%d" % os.getuid())
    try:
        if not os.path.exists(cache) or os.path.getmtime(cache) < os.path.getmtime(src):
            tmp = "%s.%d" % (cache, os.getpid())
            subprocess.run(["cc", "-O2", "-o", tmp, src], check=True, capture_output=True)
            os.replace(tmp, cache)
        out = subprocess.run([cache, "0.3", str(over_us)], check=True, capture_output=True,
                             text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    m = re.search(r"([0-9.]+)% hidden", out)
    return (float(m.group(1)), out) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--min-share", type=float, default=0.9, help="least share of N CPUs (default 0.9)")
    ap.add_argument("--threads", type=int, default=1, help="threads that should each have a CPU (default 1)")
    ap.add_argument("--judge", default="fidelity", help="what the test judges, for the skip message")
    ap.add_argument("--patience", type=float, default=20.0,
                    help="seconds after which a program starved of CPU is stopped (default 20)")
    ap.add_argument("--report", metavar="FILE",
                    help="write the figures line to FILE instead of standard error (CMD's own output stays apart)")
    ap.add_argument("--max-stalls", type=float, metavar="P",
                    help="skip when the machine's hidden stops take more than P%% of a CPU's time")
    ap.add_argument("--stall-over", type=float, default=8.0, metavar="US",
                    help="stops longer than US microseconds count (default 8)")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    env = dict(os.environ)
    while cmd and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", cmd[0]):
        name, value = cmd.pop(0).split("=", 1)
        env[name] = value
    if not cmd:
        ap.error("no command given")

    before = cpu_ticks()
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env)
    # A watchdog thread judges starvation; this thread blocks in wait4, so
    # the wall time ends when the program does.
    starved = []
    done = threading.Event()

    def watchdog():
        while not done.wait(0.5):
            wall = time.monotonic() - t0
            if wall <= a.patience:
                continue
            cpu = cpu_so_far(proc.pid)
            if cpu is not None and cpu < a.min_share * a.threads * wall and not done.is_set():
                starved.append(cpu)
                proc.send_signal(signal.SIGKILL)
                return

    dog = threading.Thread(target=watchdog, daemon=True)
    dog.start()
    _, status, ru = os.wait4(proc.pid, 0)
    done.set()
    dog.join()
    starved = starved[0] if starved else None
    wall = time.monotonic() - t0
    after = cpu_ticks()
    rc = os.waitstatus_to_exitcode(status)
    if rc != 0 and starved is None:
        return rc if rc > 0 else 128 - rc

    cpu = ru.ru_utime + ru.ru_stime if starved is None else starved
    share = cpu / (wall * a.threads) if wall > 0 else 1.0
    machine = ""
    if before and after and after[1] > before[1]:
        busy = (after[0] - before[0]) / (after[1] - before[1])
        machine = "; the machine's CPUs were %.0f%% busy (load average %s)" % (
            100 * busy, open("/proc/loadavg").read().split()[0])
    what = "a CPU" if a.threads == 1 else "%d CPUs" % a.threads
    figures = "%.2f s of CPU in %.2f s of wall time%s" % (cpu, wall, machine)
    if starved is not None:
        figures += "; stopped after %.0f s" % wall
    if share < a.min_share:
        print("SKIP: %s got only %.0f%% of %s (%s); %s cannot be judged" %
              (os.path.basename(cmd[0]), 100 * share, what, figures, a.judge), file=sys.stderr)
        return 77
    if a.max_stalls is not None:
        probe = stall_probe(a.stall_over)
        if probe and probe[0] > a.max_stalls:
            print("SKIP: the machine stopped the stall probe for %.1f%% of its CPU time in stops over "
                  "%g us that its kernel does not see (the host's: %s); a program's own account of its "
                  "time and fold's part there, so %s cannot be judged on this machine" %
                  (probe[0], a.stall_over, probe[1], a.judge), file=sys.stderr)
            return 77
        if probe:
            figures += "; hidden stops %.1f%%" % probe[0]
    line = "cpu_share: %s got %.0f%% of %s (%s)" % (os.path.basename(cmd[0]), 100 * share, what, figures)
    if a.report:
        with open(a.report, "w") as f:
            f.write(line + "\n")
    else:
        print(line, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
