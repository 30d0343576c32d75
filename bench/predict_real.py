#!/usr/bin/env python3
"""Accuracy of `quartz predict` on real programs (issue 38 item 3: ranges on programs
outside bench/): bench/real_suite.py's compressors whose workers take blocks from a queue,
built instrumented and plain, run with 3 workers on the machine's 2 processors. Each is
recorded once with `--trace` (the instrumented build); every grouping listed for it is
predicted, then the plain build is run pinned as the grouping says (`quartz run
--no-profile --placement`), its wall time the median of N runs on a quiet machine (a run
during which other processes took over 5% of the processors is run again), interleaved with
the unpinned program's. Scored as
bench/predict_accuracy.py scores: inside the range, width, error of the most likely figure;
the recording replayed alone against the plain build run unpinned; and the error of each
grouping's change against that (predicted over alone, against measured over unpinned), which
the speed the machine recorded at (it drifts 10-25% here) does not move.

  bench/predict_real.py [--build DIR] [--dir DIR] [--runs N] [--only NAME,...] [--baseline]

Downloads, builds and inputs are bench/real_suite.py's, kept under --dir (default
BUILD/real-programs) and reused. docs/performance.md "Ranges".
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import quiet_runs
from real_suite import (Failure, build, download, environment, inputs, missing_tool, names_in,
                        plain_and_instrumented, select_programs, workload)

THREADS = 3
# Groupings of each program's threads with 3 workers (`quartz report` lists them): one that
# puts a worker beside the program's other threads and two on the other processor, one
# that puts every worker on one processor.
GROUPINGS = {
    # 0 reads, 1 signals, 2 terminator, 3-5 consumers (compress), 6 writes.
    "pbzip2": ["0,1,2,3,6|*", "0,1,2,6|*"],
    # 1 the primary worker, 2 sink, 3 source, 4-5 workers.
    "lbzip2": ["0,1,2,3,4|*", "0,1,2,3|*"],
    # 1-2 the I/O pools' threads, 3-5 compression jobs.
    "zstd": ["0,1,2,3|*", "0,1,2|*"],
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="Quartz's build directory")
    parser.add_argument("--dir", help="downloads, builds, inputs (default BUILD/real-programs)")
    parser.add_argument("--runs", type=int, default=3, help="pinned runs of each grouping")
    parser.add_argument("--only", help="comma-separated program names")
    parser.add_argument("--baseline", action="store_true",
                        help="record with `quartz run --baseline` (the unprofiled run's time)")
    options = parser.parse_args()
    bin_dir = os.path.abspath(os.path.join(options.build, "bin"))
    quartz = os.path.join(bin_dir, "quartz")
    directory = os.path.abspath(options.dir or os.path.join(options.build, "real-programs"))
    try:
        programs = select_programs(options.only or ",".join(GROUPINGS), False)
    except ValueError as e:
        print("predict_real: --only: %s" % e, file=sys.stderr)
        return 2
    if missing_tool(bin_dir):
        print("predict_real: no %s in %s (build Quartz first)" % (missing_tool(bin_dir), bin_dir),
              file=sys.stderr)
        return 1
    compilers = plain_and_instrumented(bin_dir, "gcc")
    rows, inside, widths, errors, changes = [], [], [], [], []
    work = tempfile.TemporaryDirectory()
    try:
        for program in programs:
            if program.name not in GROUPINGS:
                continue
            tarball = download(program, os.path.join(directory, "downloads"))
            plain, instrumented = [build(program, tarball, v, c, os.path.join(directory, "builds"))
                                   for v, c in compilers.items()]
            paths = inputs(os.path.join(directory, "inputs"), names_in(program.args))
            args = workload(program, paths, THREADS)
            if environment(program, THREADS):
                raise Failure("%s: takes its thread count from its environment" % program.name)
            store = os.path.join(work.name, program.name + ".db")
            record = [quartz, "run", "-q", "--trace", "--store", store]
            record += ["--baseline"] if options.baseline else []
            quiet_runs.quiet_run(record + ["--", instrumented] + args, "predict_real",
                                 subprocess.DEVNULL)
            questions = []
            for g in GROUPINGS[program.name]:
                questions += ["--group", g]
            p = json.loads(quiet_runs.run([quartz, "predict", "--store", store, "--json",
                                           "--no-save"] + questions, "predict_real"))
            # Unpinned (the recording replayed alone, against the plain program as it runs)
            # and each grouping, interleaved: the machine's drift falls on all of them.
            placements = [None] + GROUPINGS[program.name]
            times = {g: [] for g in placements}
            for _ in range(options.runs):
                for g in placements:
                    pin = ["--placement", g] if g else []
                    times[g].append(quiet_runs.quiet_run(
                        [quartz, "run", "-q", "--no-profile"] + pin + ["--", plain] + args,
                        "predict_real", subprocess.DEVNULL)[1])
            unpinned = statistics.median(times[None])
            rows.append((program.name, "as recorded, alone", {"predicted_s": p["base_s"]},
                         unpinned, None, 0.0))
            for g, predicted in zip(GROUPINGS[program.name], p["groupings"]):
                measured = statistics.median(times[g])
                # Against the recording replayed alone: how far the grouping's change is off,
                # whatever the speed the machine recorded at.
                change = 100 * (predicted["predicted_s"] / p["base_s"] / (measured / unpinned) - 1)
                changes.append(change)
                within = predicted["low_s"] <= measured <= predicted["high_s"]
                inside.append(within)
                widths.append(100 * predicted["width"])
                errors.append(100 * (predicted["predicted_s"] / measured - 1))
                rows.append((program.name, g, predicted, measured, within, change))
    except Failure as e:
        print("predict_real: %s" % e, file=sys.stderr)
        return 1
    print("runs discarded because other processes took over %.0f%% of the processors: %d" %
          (100 * quiet_runs.QUIET, quiet_runs.discarded))
    print()
    print("| program | grouping | pool split | predicted s | range s | width | measured s | "
          "inside | error | change's error |")
    print("|---|---|---|---:|---:|---:|---:|:-:|---:|---:|")
    for name, g, r, measured, within, change in rows:
        error = 100 * (r["predicted_s"] / measured - 1)
        if within is None:
            print("| %s | %s | - | %.3f | - | - | %.3f | - | %+.1f%% | - |" % (
                name, g, r["predicted_s"], measured, error))
            continue
        print("| %s | `%s` | %s | %.3f | %.3f-%.3f | %.1f%% | %.3f | %s | %+.1f%% | %+.1f%% |" % (
            name, g, r.get("split_pools") or "-", r["predicted_s"], r["low_s"], r["high_s"],
            100 * r["width"], measured, "yes" if within else "**no**", error, change))
    print()
    if changes:
        print("inside the range: %d of %d; median width %.1f%%; median |error| %.1f%%, max %.1f%%;"
              " the change against the recording alone: median |error| %.1f%%, max %.1f%%"
              % (sum(inside), len(inside), statistics.median(widths),
                 statistics.median(abs(e) for e in errors), max(abs(e) for e in errors),
                 statistics.median(abs(c) for c in changes), max(abs(c) for c in changes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
