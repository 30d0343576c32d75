"""Runs on a quiet machine, for the benchmarks that compare a prediction with the time a
program took (predict_accuracy.py, predict_real.py): a run during which other processes
took more than QUIET of the processors (/proc/stat's busy time less this process's
children's) only ever ran slower, so it is thrown away and run again."""
import os
import subprocess
import sys
import time

QUIET = 0.05  # of the processors' time, what other processes may take during a run
discarded = 0  # runs thrown away because other processes took more


def busy_seconds():
    """The machine's busy processor time so far (/proc/stat: all but idle and iowait)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / os.sysconf("SC_CLK_TCK")


def children_seconds():
    t = os.times()
    return t.children_user + t.children_system


def run(cmd, who):
    """`cmd`'s output; exits naming `who` when it fails."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{who}: {' '.join(cmd)} failed: {r.stderr.strip()}")
    return r.stdout


def quiet_run(cmd, who, stdout=subprocess.PIPE):
    """Runs `cmd` until other processes took at most QUIET of the processors during a run,
    waiting a little between tries; exits when they never do. Its output (None when
    `stdout` is given) and its wall time, seconds."""
    global discarded
    for _ in range(300):  # ten minutes at least
        busy, children, start = busy_seconds(), children_seconds(), time.monotonic()
        r = subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True)
        wall = time.monotonic() - start
        if r.returncode != 0:
            sys.exit(f"{who}: {' '.join(cmd)} failed: {r.stderr.strip()}")
        others = (busy_seconds() - busy) - (children_seconds() - children)
        if others <= QUIET * wall * os.cpu_count():
            return r.stdout, wall
        discarded += 1
        time.sleep(2)
    sys.exit(f"{who}: the machine stayed busy running {' '.join(cmd)}")
