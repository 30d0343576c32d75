#!/usr/bin/env python3
"""Accuracy of `quartz predict` on real programs (issue 38 item 3: ranges on programs
outside bench/): bench/real_suite.py's compressors whose workers take blocks from a queue,
built instrumented and plain, run with 3 workers on the machine's 2 processors. In each of
N rounds on a quiet machine (a run during which other processes took over 5% of the
processors is run again), the instrumented build is recorded with `--trace`, then the plain
build is run unpinned and pinned as each grouping listed for it says (`quartz run
--no-profile --placement`). Each round's recording predicts each grouping, scored against
that round's runs, taken seconds after it: the machine's speed drifts 10-25% over minutes
here, and a recording measured against runs minutes away carries that drift. Scored as
bench/predict_accuracy.py scores: inside the range, width, error of the most likely figure;
the recording replayed alone against the plain build run unpinned; and the error of each
grouping's change against that (predicted over alone, against measured over unpinned).

  bench/predict_real.py [--build DIR] [--dir DIR] [--runs N] [--only NAME,...] [--baseline]
                        [--save DIR | --from DIR] [--models M,M]

--save DIR keeps the recordings (DIR/<program>-<round>.db) and the measured times
(DIR/measured.json); --from DIR predicts again from them without building, recording or
measuring (to compare models on the same recordings); --models is passed to `quartz predict`.

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


def store_of(stores, program, round_):
    return os.path.join(stores, "%s-%d.db" % (program.name, round_))


def record_and_measure(program, options, quartz, bin_dir, directory, stores, placements):
    """Rounds of a recording of the instrumented build, then one run of the plain build in
    each placement ("" unpinned); returns each round's wall times by placement."""
    compilers = plain_and_instrumented(bin_dir, "gcc")
    tarball = download(program, os.path.join(directory, "downloads"))
    plain, instrumented = [build(program, tarball, v, c, os.path.join(directory, "builds"))
                           for v, c in compilers.items()]
    paths = inputs(os.path.join(directory, "inputs"), names_in(program.args))
    args = workload(program, paths, THREADS)
    if environment(program, THREADS):
        raise Failure("%s: takes its thread count from its environment" % program.name)
    rounds = []
    for r in range(options.runs):
        record = [quartz, "run", "-q", "--trace", "--store", store_of(stores, program, r)]
        record += ["--baseline"] if options.baseline else []
        quiet_runs.quiet_run(record + ["--", instrumented] + args, "predict_real",
                             subprocess.DEVNULL)
        times = {}
        for g in placements:
            pin = ["--placement", g] if g else []
            times[g] = quiet_runs.quiet_run(
                [quartz, "run", "-q", "--no-profile"] + pin + ["--", plain] + args,
                "predict_real", subprocess.DEVNULL)[1]
        rounds.append(times)
    return rounds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="Quartz's build directory")
    parser.add_argument("--dir", help="downloads, builds, inputs (default BUILD/real-programs)")
    parser.add_argument("--runs", type=int, default=3,
                        help="rounds: a recording, then a run unpinned and in each grouping")
    parser.add_argument("--only", help="comma-separated program names")
    parser.add_argument("--baseline", action="store_true",
                        help="record with `quartz run --baseline` (the unprofiled run's time)")
    kept = parser.add_mutually_exclusive_group()
    kept.add_argument("--save", help="keep the recordings and measured times in this directory")
    kept.add_argument("--from", dest="source", help="predict again from a --save directory")
    parser.add_argument("--models", help="scheduler models, passed to `quartz predict`")
    options = parser.parse_args()
    bin_dir = os.path.abspath(os.path.join(options.build, "bin"))
    quartz = os.path.join(bin_dir, "quartz")
    directory = os.path.abspath(options.dir or os.path.join(options.build, "real-programs"))
    try:
        programs = select_programs(options.only or ",".join(GROUPINGS), False)
    except ValueError as e:
        print("predict_real: --only: %s" % e, file=sys.stderr)
        return 2
    if options.save:
        os.makedirs(options.save, exist_ok=True)
    if missing_tool(bin_dir):
        print("predict_real: no %s in %s (build Quartz first)" % (missing_tool(bin_dir), bin_dir),
              file=sys.stderr)
        return 1
    rows, inside, inside_medians, widths, errors, changes = [], [], [], [], [], []
    work = tempfile.TemporaryDirectory()
    stores = options.source or options.save or work.name
    measured_file = os.path.join(stores, "measured.json")
    measured = json.load(open(measured_file)) if options.source else {}
    try:
        for program in programs:
            if program.name not in GROUPINGS or (options.source and program.name not in measured):
                continue
            placements = [""] + GROUPINGS[program.name]
            if not options.source:
                measured[program.name] = record_and_measure(
                    program, options, quartz, bin_dir, directory, stores, placements)
            questions = ["--models", options.models] if options.models else []
            for g in GROUPINGS[program.name]:
                questions += ["--group", g]
            scored = {g: [] for g in placements}
            for r, times in enumerate(measured[program.name]):
                p = json.loads(quiet_runs.run(
                    [quartz, "predict", "--store", store_of(stores, program, r), "--json",
                     "--no-save"] + questions, "predict_real"))
                alone = {"predicted_s": p["base_s"], "low_s": 0, "high_s": 0, "width": 0}
                for g, predicted in zip(placements, [alone] + p["groupings"]):
                    scored[g].append((predicted, times[g], p["base_s"], times[""]))
            for g in placements:
                row = score(scored[g])
                rows.append((program.name, g, row))
                if g:
                    inside.extend(row["inside"])
                    inside_medians.append(row["medians_inside"])
                    widths.extend(row["widths"])
                    errors.extend(row["errors"])
                    changes.extend(row["changes"])
    except Failure as e:
        print("predict_real: %s" % e, file=sys.stderr)
        return 1
    if options.save:
        with open(measured_file, "w") as f:
            json.dump(measured, f, indent=1)
    print("runs discarded because other processes took over %.0f%% of the processors: %d" %
          (100 * quiet_runs.QUIET, quiet_runs.discarded))
    print()
    print("| program | grouping | pool split | predicted s | range s | width | measured s | "
          "inside | rounds inside | error | change's error |")
    print("|---|---|---|---:|---:|---:|---:|:-:|:-:|---:|---:|")
    for name, g, row in rows:
        if not g:
            print("| %s | as recorded, alone | - | %.3f | - | - | %.3f | - | - | %+.1f%% | - |" % (
                name, row["predicted_s"], row["measured_s"], row["error"]))
            continue
        print("| %s | `%s` | %s | %.3f | %.3f-%.3f | %.1f%% | %.3f | %s | %d of %d | %+.1f%% | "
              "%+.1f%% |" % (name, g, row["split_pools"] or "-", row["predicted_s"],
                             row["low_s"], row["high_s"], row["width"], row["measured_s"],
                             "yes" if row["medians_inside"] else "**no**", sum(row["inside"]),
                             len(row["inside"]), row["error"], row["change"]))
    print()
    if changes:
        print("inside the range: the rounds' medians %d of %d, each round %d of %d; median width "
              "%.1f%%; median |error| %.1f%%, max %.1f%%; the change against the recording alone: "
              "median |error| %.1f%%, max %.1f%%"
              % (sum(inside_medians), len(inside_medians), sum(inside), len(inside),
                 statistics.median(widths),
                 statistics.median(abs(e) for e in errors), max(abs(e) for e in errors),
                 statistics.median(abs(c) for c in changes), max(abs(c) for c in changes)))
    return 0


def score(rounds):
    """One grouping's rounds, each (its prediction, its measured time, the recording replayed
    alone, the unpinned time): medians over the rounds, and each round's scores. The medians
    of interleaved rounds share the machine's speed of the while; one round's recording and
    runs, seconds apart, still differ by the run-to-run noise (5-15% here)."""
    inside = [p["low_s"] <= m <= p["high_s"] for p, m, _, _ in rounds]
    errors = [100 * (p["predicted_s"] / m - 1) for p, m, _, _ in rounds]
    # Against the recording replayed alone: how far the grouping's change is off, whatever
    # the speed the machine recorded at.
    changes = [100 * (p["predicted_s"] / alone / (m / unpinned) - 1)
               for p, m, alone, unpinned in rounds]
    median = lambda key: statistics.median(p[key] for p, _, _, _ in rounds)
    measured_s = statistics.median(m for _, m, _, _ in rounds)
    return {"predicted_s": median("predicted_s"), "low_s": median("low_s"),
            "high_s": median("high_s"), "width": 100 * median("width"),
            "measured_s": measured_s,
            "medians_inside": median("low_s") <= measured_s <= median("high_s"),
            "split_pools": rounds[0][0].get("split_pools"), "inside": inside,
            "widths": [100 * p["width"] for p, _, _, _ in rounds], "errors": errors,
            "error": statistics.median(errors), "changes": changes,
            "change": statistics.median(changes)}


if __name__ == "__main__":
    sys.exit(main())
