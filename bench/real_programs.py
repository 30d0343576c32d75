#!/usr/bin/env python3
"""Real programs under Quartz (issue 9 item 9): open-source multithreaded programs built
from Debian's source tarballs, each plain (its own build, gcc or clang) and instrumented
(the build/bin/quartz-cc and quartz-c++ wrappers), run on a fixed generated workload.

Per program it checks that the instrumented program's output under `quartz run` is the
plain one's, byte for byte (and that the plain output decodes back to the input), checks
every run's invariants (`quartz check`, analysis/invariants.h), reads the replay's own
error of a `--trace` run (`quartz predict --json`: recorded_s against observed_s, and
whether the plain program's median time is inside recorded_range, the scheduler models'), and
measures the dilation: the median wall time under `quartz run` over the median plain,
from interleaved runs. It prints one table row per program; the status is 1 when an
output differs or an invariant fails, and on a failed download or build (one line saying
why).

  bench/real_programs.py [--build DIR] [--dir DIR] [--repeat N] [--only NAME,...]
                         [--threads N] [--compiler gcc|clang]
  bench/real_programs.py --smallest     CI: the smallest program, output and invariants

Downloads, builds and inputs are kept under --dir (default BUILD/real-programs) and
reused; a build is redone when its command changes. The programs, their builds and inputs
are bench/real_suite.py's, shared with bench/real_cost.py. docs/performance.md "Real
programs".
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

from real_suite import (Failure, build, compare_outputs, download, environment, inputs,
                        missing_tool, names_in, plain_and_instrumented, select_programs, timed,
                        workload)


def check_run(quartz, capture, label, violations):
    """`quartz check` on a capture: its violations, each prefixed with `label`, appended."""
    done = subprocess.run([quartz, "check", capture], capture_output=True, text=True)
    if done.returncode not in (0, 1) or (done.returncode == 0 and done.stdout != "ok\n"):
        raise Failure("quartz check %s: status %d: %s" % (capture, done.returncode,
                                                          done.stderr.strip()))
    if done.returncode == 1:
        violations += ["%s: %s" % (label, line) for line in done.stdout.splitlines()]
    return done.returncode == 0


def threads_seen(quartz, capture):
    """The threads Quartz saw in a run (`quartz report --json`)."""
    done = subprocess.run([quartz, "report", capture, "--json", "--top", "100000"],
                          capture_output=True, text=True, check=True)
    return len(json.loads(done.stdout)["threads"])


def first_finding(quartz, capture):
    """`quartz diagnose`'s first finding of a run: "property: subject (severity)", or "-"."""
    done = subprocess.run([quartz, "diagnose", capture, "--json"], capture_output=True,
                          text=True, check=True)
    findings = json.loads(done.stdout)["findings"]
    if not findings:
        return "-"
    f = findings[0]
    return "%s: %s (%.1f%%)" % (f["property"], f["subject"].replace("|", "/"),
                               100 * f["severity"])


def replay_error(quartz, capture):
    """The replay's own error: the recorded configuration replayed (recorded_s, the most
    likely scheduler model's) against the run's elapsed time (observed_s), as a fraction,
    and the range the scheduler models give it (recorded_range: low_s, high_s, width); or
    None and why not."""
    done = subprocess.run([quartz, "predict", capture, "--json", "--no-save"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()
        return None, said[0].replace("|", "/")
    p = json.loads(done.stdout)
    return p["recorded_s"] / p["observed_s"] - 1, p["recorded_range"]


def run_program(program, binaries, paths, threads, quartz, work, repeat, smallest):
    """Runs one program: its table row and its invariant violations."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    log = os.path.join(work, "stderr.log")
    args = workload(program, paths, threads)
    env = environment(program, threads)
    plain_cmd = [binaries["plain"]] + args

    def under_quartz(capture, *options):
        return [quartz, "run", "-q", "--no-import", *options, "-o", capture, "--",
                binaries["quartz"]] + args

    reference = os.path.join(work, "plain-0.out")
    plain_s, quartz_s, outputs, violations = [], [], [], []
    checks = []
    for r in range(repeat):
        out = os.path.join(work, "plain-%d.out" % r)
        plain_s.append(timed(plain_cmd, out, log, env=env))
        outputs.append(out)
        capture = os.path.join(work, "quartz-%d.qcap" % r)
        out = os.path.join(work, "quartz-%d.out" % r)
        quartz_s.append(timed(under_quartz(capture), out, log, env=env))
        outputs.append(out)
        checks.append(check_run(quartz, capture, "%s, quartz run %d" % (program.name, r + 1),
                                violations))
    seen = threads_seen(quartz, os.path.join(work, "quartz-0.qcap"))
    finding = first_finding(quartz, os.path.join(work, "quartz-0.qcap"))
    replay = "-"
    if not smallest:
        capture = os.path.join(work, "trace.qcap")
        out = os.path.join(work, "trace.out")
        timed(under_quartz(capture, "--trace"), out, log, env=env)
        outputs.append(out)
        checks.append(check_run(quartz, capture, "%s, quartz run --trace" % program.name,
                                violations))
        error, why = replay_error(quartz, capture)
        if error is None:
            replay = "none: " + why
        else:
            # The plain program's median time against the range of the recorded
            # configuration (issue 15 item 5).
            inside = why["low_s"] <= statistics.median(plain_s) <= why["high_s"]
            replay = "%+.1f%%, range %.3f-%.3f s (%.0f%% wide), plain %s" % (
                100 * error, why["low_s"], why["high_s"], 100 * why["width"],
                "inside" if inside else "OUTSIDE")
    output, differs = compare_outputs(program, binaries["plain"], args, threads, reference,
                                      outputs, work, log)
    passed = sum(checks)
    row = {
        "program": program.name,
        "language": program.language,
        "threads": seen,
        "plain_s": statistics.median(plain_s),
        "quartz_s": statistics.median(quartz_s),
        "output": output,
        "invariants": "%d/%d runs ok" % (passed, len(checks)),
        "replay": replay,
        "finding": finding,
        "failed": differs or passed != len(checks),
    }
    return row, violations


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="Quartz's build directory")
    parser.add_argument("--dir", help="downloads, builds, inputs (default BUILD/real-programs)")
    parser.add_argument("--repeat", type=int, default=5, help="interleaved runs of each kind")
    parser.add_argument("--only", help="comma-separated program names")
    parser.add_argument("--threads", type=int, default=2,
                        help="the programs' worker threads (-p, -n, -T, -t, OMP_NUM_THREADS)")
    parser.add_argument("--compiler", choices=("gcc", "clang"), default="gcc",
                        help="both builds' compiler (clang: hooks after inlining)")
    parser.add_argument("--smallest", action="store_true",
                        help="CI: the smallest download only; one run each way, output and "
                        "invariants (no trace, no dilation)")
    options = parser.parse_args()
    bin_dir = os.path.abspath(os.path.join(options.build, "bin"))
    quartz = os.path.join(bin_dir, "quartz")
    directory = os.path.abspath(options.dir or os.path.join(options.build, "real-programs"))
    if missing_tool(bin_dir):
        print("real_programs: no %s in %s (build Quartz first)" % (missing_tool(bin_dir), bin_dir),
              file=sys.stderr)
        return 1
    try:
        programs = select_programs(options.only, options.smallest)
    except ValueError as e:
        print("real_programs: --only: %s" % e, file=sys.stderr)
        return 2
    repeat = 1 if options.smallest else options.repeat
    suffix = "" if options.compiler == "gcc" else "-" + options.compiler
    compilers = plain_and_instrumented(bin_dir, options.compiler)
    rows, violations = [], []
    try:
        for program in programs:
            tarball = download(program, os.path.join(directory, "downloads"))
            built = [build(program, tarball, v, c, os.path.join(directory, "builds"))
                     for v, c in compilers.items()]
            binaries = {"plain": built[0], "quartz": built[1]}
            paths = inputs(os.path.join(directory, "inputs"), names_in(program.args))
            print("real_programs: %s built, running" % program.name, file=sys.stderr,
                  flush=True)
            row, found = run_program(program, binaries, paths, options.threads, quartz,
                                     os.path.join(directory, "runs", program.name + suffix),
                                     repeat,
                                     options.smallest)
            rows.append(row)
            violations += found
    except Failure as e:
        print("real_programs: %s" % e, file=sys.stderr)
        return 1

    print("Built with %s; %d worker threads; median of %d interleaved run%s each way; the "
          "output of every run against the first plain run's; invariants: `quartz check` of "
          "each run under quartz%s." % (options.compiler, options.threads, repeat,
                                         "" if repeat == 1 else "s", "" if options.smallest
                                         else " (and of the --trace run)"))
    print()
    print("| program | language | threads seen | plain | under quartz run | dilation | "
          "output | invariants | replay's error; its range, the plain run inside or not | "
          "first finding (first run) |")
    print("|---|---|---:|---:|---:|---:|---|---|---:|---|")
    for r in rows:
        print("| %s | %s | %d | %.3f s | %.3f s | %+.1f%% | %s | %s | %s | %s |" % (
            r["program"], r["language"], r["threads"], r["plain_s"], r["quartz_s"],
            100 * (r["quartz_s"] / r["plain_s"] - 1), r["output"], r["invariants"],
            r["replay"], r["finding"]))
    for v in violations:
        print("violation: " + v)
    return 1 if any(r["failed"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
