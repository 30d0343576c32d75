#!/usr/bin/env python3
"""Checks a Chrome trace JSON against the Trace Event Format's documented schema (the
"Trace Event Format" document of the Chromium project: the JSON Object Format with a
traceEvents array; phases X, B, E, C, M, i; pid/tid integers; ts and dur in microseconds),
written here independently of Quartz's writer, and that complete events on one thread nest
as the format's viewers require. Also that a thread's state slices (categories state, blocked,
spinning) never overlap. Prints what the trace says as JSON on stdout:
per slice name its total duration (s), the integral of each counter (value x seconds), the
thread names, the number of complete events, and whether any two holds of one lock
overlapped in time.

usage: check_chrome_trace.py TRACE.json
Exit status 1 with the problems on stderr when the trace breaks the format.
"""
import json
import sys
from collections import defaultdict

PHASES = {"X", "B", "E", "C", "M", "i", "I"}
# Quartz's categories of a thread's states (the rest, "hold", may span several).
STATE_CATEGORIES = {"state", "blocked", "spinning"}
METADATA = {"process_name", "thread_name", "process_sort_index", "thread_sort_index",
            "process_labels"}


def main(path):
    problems = []
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        print("not the JSON Object Format: no traceEvents array", file=sys.stderr)
        return 1
    if trace.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        problems.append("displayTimeUnit must be ms or ns")

    slices = defaultdict(list)          # (pid, tid) -> [(start, end, name)]
    states = defaultdict(list)          # the same, the thread's states only
    totals = defaultdict(float)         # slice name -> seconds
    counters = defaultdict(list)        # counter name -> [(ts, value)]
    thread_names = {}
    for n, e in enumerate(trace["traceEvents"]):
        where = "event %d" % n
        if not isinstance(e, dict):
            problems.append(where + ": not an object")
            continue
        ph = e.get("ph")
        if ph not in PHASES:
            problems.append("%s: phase %r" % (where, ph))
            continue
        for key in ("pid", "tid"):
            if key in e and not isinstance(e[key], int):
                problems.append("%s: %s is not an integer" % (where, key))
        if not isinstance(e.get("name"), str):
            problems.append(where + ": no name")
        if ph == "M":
            if e["name"] not in METADATA:
                problems.append("%s: unknown metadata %r" % (where, e["name"]))
            args = e.get("args", {})
            if e["name"].endswith("_name") and not isinstance(args.get("name"), str):
                problems.append(where + ": metadata without args.name")
            if e["name"] == "thread_name":
                thread_names[(e["pid"], e["tid"])] = args.get("name")
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or ts < 0:
            problems.append(where + ": ts is not a time in microseconds")
            continue
        if ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, float)) or dur < 0:
                problems.append(where + ": complete event without a duration")
                continue
            if "tid" not in e or "pid" not in e:
                problems.append(where + ": complete event without pid/tid")
                continue
            slices[(e["pid"], e["tid"])].append((ts, ts + dur, e["name"]))
            if e.get("cat") in STATE_CATEGORIES:
                states[(e["pid"], e["tid"])].append((ts, ts + dur, e["name"]))
            totals[e["name"]] += dur / 1e6
        elif ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args or not all(
                    isinstance(v, (int, float)) for v in args.values()):
                problems.append(where + ": counter without numeric args")
                continue
            counters[e["name"]].append((ts, sum(args.values())))

    # Complete events of one thread nest: each starts and ends inside the one around it.
    # Times are printed to the nanosecond (0.001 us).
    epsilon = 0.0015
    for track, events in slices.items():
        events.sort(key=lambda s: (s[0], -(s[1] - s[0])))
        stack = []
        for start, end, name in events:
            while stack and stack[-1][1] <= start + epsilon:
                stack.pop()
            if stack and end > stack[-1][1] + epsilon:
                problems.append("track %s: %r [%f, %f] overlaps %r [%f, %f] without nesting"
                                % (track, name, start, end, stack[-1][2], stack[-1][0], stack[-1][1]))
                if len(problems) > 20:
                    break
            stack.append((start, end, name))

    # A thread is in one state at a time: its state slices (work, waits, spins) follow one
    # another without overlapping.
    for track, events in states.items():
        events.sort()
        for (s0, e0, n0), (s1, e1, n1) in zip(events, events[1:]):
            if s1 < e0 - epsilon:
                problems.append("track %s: state %r [%f, %f] overlaps %r [%f, %f]"
                                % (track, n1, s1, e1, n0, s0, e0))
                break

    # Holds of one lock by different threads: mutual exclusion says they never overlap.
    holds = defaultdict(list)
    for track, events in slices.items():
        for start, end, name in events:
            if name.startswith("hold "):
                holds[name].append((start, end))
    overlapping = {}
    for name, intervals in holds.items():
        intervals.sort()
        overlapping[name] = any(b[0] < a[1] - epsilon for a, b in zip(intervals, intervals[1:]))

    integrals = {}
    for name, points in counters.items():
        points.sort()
        integrals[name] = sum(v * (t1 - t0) / 1e6 for (t0, v), (t1, _) in zip(points, points[1:]))

    if problems:
        print("\n".join(problems[:20]), file=sys.stderr)
        return 1
    json.dump({"complete_events": sum(len(e) for e in slices.values()), "slice_s": totals, "counter_integral": integrals,
               "threads": sorted(thread_names.values()), "holds_overlap": overlapping}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
