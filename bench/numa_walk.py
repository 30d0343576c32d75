#!/usr/bin/env python3
"""How the sampler's walk of T busy threads scales past one package: one sampler for the
machine, the same reading its own node's threads first, or one reader per NUMA node
(docs/design.md, "Past one socket").

Measured on this machine by sampler_bench (two processors of one package): a cache line's
round trip between them, a depth-32 stack read whose lines the owner rewrote on the other
processor (and one the reader rewrote itself), a running thread's CPU clock read from the
other processor (and a sleeping one's). Their differences, divided by a one-way transfer,
are the lines a thread snapshot fetches from its owner's processor (the clock's is an upper
bound: the kernel's run-queue path also runs more code). Assumed: a line from another
package costs RATIO times one from the same package (2 by default: about 100 ns against
200 ns on two-socket x86 servers). Simulated: T busy threads placed by the scheduler at
random over N nodes, the sampler on the last; a reader per node walks only its node's
threads, and the sampler then streams the others' samples (half a line a thread, from
another package, 10 lines in flight) and meets them at a barrier.

  bench/numa_walk.py BUILD_DIR [--ratio 2] [--period-us 1000] [--runs 3] [--seed 1]

It keeps processors 0 and 1 busy for about 20 s a run: run it on an otherwise idle machine.
"""
import argparse
import json
import random
import subprocess
import sys

ATTRIBUTION_US = 0.34  # per thread sample at depth 32 (docs/performance.md)
STREAM_MLP = 10  # lines in flight when reading an array in order (prefetched)


def measure(build, runs):
    """Each benchmark's least median of `runs` runs of 5 repetitions: the run least
    disturbed by the machine's other work (the VM's system calls drift from run to run)."""
    seen = {}
    for _ in range(runs):
        out = subprocess.run(
            [f"{build}/bench/sampler_bench", "--benchmark_format=json",
             "--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true",
             "--benchmark_min_time=0.2",
             "--benchmark_filter=LineRoundTrip|StackReadElsewhere/threads:64/depth:32/"
             "changing:1|ThreadClockElsewhere"],
            check=True, capture_output=True, text=True).stdout
        for b in json.loads(out)["benchmarks"]:
            if b.get("aggregate_name") != "median":
                continue
            per_item = b.get("items_per_second")  # items: threads read
            seen.setdefault(b["run_name"], []).append(1e9 / per_item if per_item
                                                      else b["real_time"])
    return {name: min(values) for name, values in seen.items()}


def find(medians, part):
    names = [n for n in medians if part in n]
    if len(names) != 1:
        sys.exit(f"numa_walk: expected one benchmark named like {part}, got {names}")
    return medians[names[0]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--ratio", type=float, default=2.0)
    ap.add_argument("--period-us", type=float, default=1000.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    m = measure(a.build, a.runs)
    one_way = find(m, "LineRoundTrip") / 2
    stack_here = find(m, "changing:1/elsewhere:0")
    stack_there = find(m, "changing:1/elsewhere:1")
    clock_running = find(m, "running:1")
    clock_asleep = find(m, "running:0")
    stack_lines = max(0.0, (stack_there - stack_here) / one_way)
    clock_lines = max(0.0, (clock_running - clock_asleep) / one_way)
    near_us = (clock_running + stack_there) / 1000 + ATTRIBUTION_US
    far_us = near_us + (stack_lines + clock_lines) * one_way * (a.ratio - 1) / 1000
    print(f"measured: a line one way {one_way:.0f} ns; a depth-32 stack read whose top "
          f"changed {stack_here:.0f} ns written here, {stack_there:.0f} ns written on the "
          f"other processor ({stack_lines:.1f} lines); a running thread's clock "
          f"{clock_running:.0f} ns, asleep {clock_asleep:.0f} ns (<= {clock_lines:.1f} lines)")
    print(f"a busy thread's snapshot: {near_us:.2f} us on the sampler's package, "
          f"{far_us:.2f} us on another (a line x{a.ratio:g}): +{100 * (far_us / near_us - 1):.0f}%")
    print()
    period = a.period_us
    print(f"| busy threads | nodes | walk: one sampler | walk: a reader per node "
          f"| read in {period:g} us: one sampler | own node first (far nodes') "
          f"| a reader per node |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    rng = random.Random(a.seed)
    merge_line_us = one_way * a.ratio / 1000
    for nodes in (1, 2, 4):
        for threads in (256, 1024, 4096):
            node_of = [rng.randrange(nodes) for _ in range(threads)]
            home = nodes - 1
            near = sum(1 for n in node_of if n == home)
            far = threads - near
            # One sampler, in any order: the same lines come over.
            one = near * near_us + far * far_us
            # Own node first: as many lines, but a walk cut at the period leaves the far
            # nodes' threads unread.
            near_time = min(period, near * near_us)
            far_read = min(far, (period - near_time) / far_us) if far else 0
            # A reader per node walks its own; the sampler then streams the others' samples
            # (half a line a thread, prefetched: STREAM_MLP lines in flight) and meets them
            # at a barrier (a line each way per reader).
            per_node = max(sum(near_us for n in node_of if n == k) for k in range(nodes))
            merge = (far * 0.5 / STREAM_MLP + 2 * (nodes - 1)) * merge_line_us
            readers = per_node + merge

            def share(walk):
                return f"{100 * min(1.0, period / walk):.0f}%"

            far_share = f"{100 * far_read / far:.0f}%" if far else "-"
            print(f"| {threads} | {nodes} | {one:.0f} us | {readers:.0f} us | {share(one)} "
                  f"| {far_share} | {share(readers)} |")


if __name__ == "__main__":
    main()
