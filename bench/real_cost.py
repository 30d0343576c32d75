#!/usr/bin/env python3
"""The real cost of profiling (issue 13 item 6): the programs of bench/real_programs.py
(pbzip2, lbzip2, zstd, xz, minimap2 from Debian's source tarballs), each run plain, under
`quartz run` in each instrumentation mode of the wrappers with and without `--budget`,
as gprof's `-pg` build, under `uftrace record` (the same `-pg` build) and under
`perf record -g` (the plain build).

Cost: each variant's command, from start to end (the program, the tool's start and the
files it writes: `quartz run --no-import`, `uftrace record`, `perf record -g`; the -pg
build writing gmon.out), timed in interleaved rounds: one round runs every variant once,
each round in an order rotated by one. The table gives each variant's median over the
plain build's median, per program, and the median and worst over programs; "plain
spread" is the plain build's (max - min) / median over the rounds, the noise.

Accuracy (DESIGN.md's processor time against perf's samples): the plain build under
`perf record --call-graph dwarf`, each sample given to the innermost frame in the
program's own binary, so that system libraries and the kernel count for the program's
procedure that called them (Quartz folds system code into its callers the same way) and
inlined code for the function it was inlined into (perf's symbols). The procedures that
take 95% of the time perf finds in the program's procedures must be named in the profile
of the run with default settings (the wrappers' default mode, no --budget), each one's
share of processor time within 5 points of perf's. Quartz's share: the processor time of
the calling contexts (`quartz report --json`) at the procedure, at objects it holds or
waits for, and at procedures the plain binary does not have (inlined there), over all
contexts' processor time.

Output: every run's output against the plain build's, byte for byte, and the plain output
decoded back to the input (the compressors).

Modes are asked of the wrappers as QUARTZ_INSTRUMENT=MODE and budgets of `quartz run` as
--budget PCT ("none": no --budget, `quartz run`'s own default). Each is tried first on a
small probe program; a mode the wrappers reject, ignore or build as another mode, a budget
`quartz run` rejects, and a tool that is missing are skipped, each with one line saying
why.

  bench/real_cost.py [--build DIR] [--dir DIR] [--repeat N] [--only NAME,...]
                     [--threads N] [--compiler gcc|clang] [--modes hooks,inlined,patch]
                     [--budgets none,5] [--tools gprof,uftrace,perf] [--timeout S]
  bench/real_cost.py --smallest       a check that it works: one program, one round

Downloads, builds and inputs are bench/real_suite.py's, under --dir (default
BUILD/real-programs), shared with bench/real_programs.py. The status is 1 when an output
differs or a run fails, and on a failed download or build of a plain program (one line
saying why); targets missed are printed, not a status. docs/performance.md "Real cost".
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

from real_suite import (Failure, build, compiler_pair, decodes, download, inputs, missing_tool,
                        names_in, select_programs, sha256_of, timed, workload)

COVERAGE = 0.95  # of the time in the program's procedures, by perf of the plain build
TOLERANCE_POINTS = 5.0  # each covered procedure's share of processor time, Quartz to perf
ACCURACY_HZ = 1000  # perf's samples per second and thread (each with 8 KB of stack)
TARGET_MEDIAN, TARGET_WORST = 1.10, 1.25  # issue 13, default settings, over plain
CAPTURE = "run.qcap"

# What the wrappers build for each mode, tried before the programs. twice() is inlined
# into add_twice(), called in a loop: the modes differ on such code.
PROBE_C = r"""
static int twice(int x) { return 2 * x; }
__attribute__((noinline)) int add_twice(int a, int b) { return twice(a) + b; }
int main(int argc, char** argv) {
  int sum = 0;
  for (int i = 0; i < argc + 1000; i++) sum = add_twice(sum, i) & 0xffff;
  return argv[0][0] == 0 ? sum : 0;
}
"""
UNKNOWN_MODE = "no-such-mode"  # a mode no wrapper has: rejected, unless the variable is ignored


class Variant:
    """One way of running a program: its column, the build it runs, and its command."""

    def __init__(self, name, build_key, command):
        self.name = name
        self.build_key = build_key
        self.command = command  # (binary, arguments, run directory) -> the command


def first_line(text):
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0].strip() if lines else "no message"


def clean_environment(extra):
    """This process's environment without the wrappers' QUARTZ_INSTRUMENT* variables, and
    with `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUARTZ_INSTRUMENT")}
    env.update(extra)
    return env


def compile_probe(compiler, env, directory, name):
    """The probe compiled (-O2) and linked by `compiler` with `env` into directory/name/:
    (its object's bytes, its binary), or (None, the compiler's first line of error)."""
    source = os.path.join(directory, "probe.c")
    if not os.path.exists(source):
        with open(source, "w") as f:
            f.write(PROBE_C)
    # Compiled in one place under one name, so that the objects of two modes differ only
    # where the code does (-g records the directory).
    for args in (["-O2", "-c", "probe.c", "-o", "probe.o"], ["probe.o", "-o", "probe"]):
        done = subprocess.run([compiler] + args, cwd=directory, capture_output=True, text=True,
                              env=clean_environment(env))
        if done.returncode != 0:
            return None, first_line(done.stderr or done.stdout)
    kept = os.path.join(directory, name)
    os.makedirs(kept, exist_ok=True)
    with open(os.path.join(directory, "probe.o"), "rb") as f:
        code = f.read()
    os.replace(os.path.join(directory, "probe"), os.path.join(kept, "probe"))
    return code, os.path.join(kept, "probe")


def try_command(command, cwd):
    """Runs a probe's command: None when it succeeds, else its first line of error."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode == 0:
        return None
    return "status %d: %s" % (done.returncode, first_line(done.stderr or done.stdout))


def probe_modes(quartz, wrapper, wrapped, modes, directory):
    """What the wrappers build for each mode: ({mode: the environment that asks for it},
    {mode: its probe binary}, the mode they build when asked nothing or None, skip lines).
    Wrappers that ignore QUARTZ_INSTRUMENT (before the modes) get today's variables: hooks
    is what they build unasked, inlined is QUARTZ_INSTRUMENT_INLINED=1."""
    unasked, _ = compile_probe(wrapper, wrapped, directory, "unasked")
    if unasked is None:
        raise Failure("%s cannot build a probe program" % wrapper)
    unknown, _ = compile_probe(wrapper, dict(wrapped, QUARTZ_INSTRUMENT=UNKNOWN_MODE),
                               directory, "unknown")
    ignored = unknown == unasked
    tool = os.path.basename(wrapper)
    available, binaries, default, skips, built = {}, {}, None, [], {}
    for mode in modes:
        asked = {"QUARTZ_INSTRUMENT": mode}
        if ignored:
            if mode not in ("hooks", "inlined"):
                skips.append("quartz %s: this %s ignores QUARTZ_INSTRUMENT (=%s builds as "
                             "unasked): no such mode yet" % (mode, tool, UNKNOWN_MODE))
                continue
            asked = {} if mode == "hooks" else {"QUARTZ_INSTRUMENT_INLINED": "1"}
        code, binary = compile_probe(wrapper, dict(wrapped, **asked), directory, mode)
        if code is None:
            skips.append("quartz %s: %s rejects %s: %s" % (
                mode, tool, " ".join("%s=%s" % kv for kv in asked.items()), binary))
            continue
        if code in built:
            skips.append("quartz %s: %s builds it exactly as %s with %s (the same probe "
                         "object)" % (mode, tool, built[code], wrapped["QUARTZ_CC"]))
            continue
        why = try_command([quartz, "run", "-q", "--no-import", "-o", os.path.join(
            directory, mode, CAPTURE), "--", binary], directory)
        if why:
            skips.append("quartz %s: quartz run fails on the probe built so: %s" % (mode, why))
            continue
        built[code] = mode
        available[mode], binaries[mode] = asked, binary
        if code == unasked:
            default = mode
    return available, binaries, default, skips


def probe_budgets(quartz, budgets, mode_probes, directory):
    """The (mode, budget) pairs `quartz run` takes ("none": no option), and skip lines for
    the others: one per budget when every mode's probe fails alike."""
    taken, skips = [], []
    for budget in budgets:
        refused = {}
        for mode, probe in mode_probes.items():
            if budget != "none":
                why = try_command([quartz, "run", "-q", "--no-import", "--budget", budget, "-o",
                                   os.path.join(directory, CAPTURE), "--", probe], directory)
                if why:
                    refused[mode] = why
                    continue
            taken.append((mode, budget))
        if refused and len(refused) == len(mode_probes) and len(set(refused.values())) == 1:
            skips.append("--budget %s: quartz run rejects it: %s" % (
                budget, next(iter(refused.values()))))
        else:
            skips += ["quartz %s, budget %s: quartz run rejects --budget %s on a %s build: %s" %
                      (mode, budget, budget, mode, why) for mode, why in refused.items()]
    return taken, skips


def pg_compilers(cc, cxx, directory):
    """gprof's and uftrace's compilers: scripts that add -pg to every compile and link."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for compiler in (cc, cxx):
        path = os.path.join(directory, "pg-" + compiler)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n# gprof's build (bench/real_cost.py): -pg everywhere.\n"
                    "exec %s -pg \"$@\"\n" % compiler)
        os.chmod(path, 0o755)
        paths.append(path)
    return paths


def probe_tools(tools, pg_cc, cc, directory):
    """The tools that work here, skip lines for the others, and notes."""
    working, skips, notes = [], [], []
    _, pg_probe = compile_probe(pg_cc, {}, directory, "pg") if (
        {"gprof", "uftrace"} & set(tools)) else (None, None)
    for tool in tools:
        if tool in ("gprof", "uftrace") and not os.path.exists(pg_probe or ""):
            skips.append("%s: %s cannot build the probe: %s" % (tool, pg_cc, pg_probe))
            continue
        if tool == "gprof":
            why = try_command([pg_probe], directory)
        elif tool == "uftrace":
            why = "not installed" if not shutil.which("uftrace") else try_command(
                ["uftrace", "record", "-d", os.path.join(directory, "uftrace.data"), pg_probe],
                directory)
        elif tool == "perf":
            _, plain_probe = compile_probe(cc, {}, directory, "plain")
            why = "not installed" if not shutil.which("perf") else try_command(
                ["perf", "record", "-g", "-o", os.path.join(directory, "perf.data"), "--",
                 plain_probe], directory)
        else:
            why = "unknown tool (gprof, uftrace, perf)"
        if why:
            skips.append("%s: %s" % (tool, why))
        else:
            working.append(tool)
    if "perf" in working:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            paranoid = int(f.read())
        if paranoid > 1:
            notes.append("kernel.perf_event_paranoid is %d: perf samples no kernel code, which "
                         "Quartz counts (sysctl kernel.perf_event_paranoid=-1)" % paranoid)
    return working, skips, notes


CLONE_SUFFIX = re.compile(r"(\.(constprop|isra|part|cold|lto_priv|localalias|llvm)(\.\d+)?)+$")


def procedure_key(name):
    """A procedure's name as perf and Quartz both give it: without gcc's clone suffixes
    (.constprop.0, .isra.0, .part.0, .cold), parameters, template arguments and return
    type, so that "void disposeMemory<char>(char*&)" and "disposeMemory<char>" match."""
    name = re.sub(r" \[clone [^\]]*\]", "", name).strip()
    name = CLONE_SUFFIX.sub("", name).replace("(anonymous namespace)", "{anonymous}")
    name = re.sub(r"\s+(const|volatile|&|&&)$", "", name)
    if name.endswith(")"):  # the parameters, unless this is "operator()" without them
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                if not name[:i].endswith("operator"):
                    name = name[:i]
                break
    plain, depth = [], 0
    for c in name:  # template arguments out, so that the return type is the first word
        if c == "<" and "operator<" not in name:
            depth += 1
        elif c == ">" and depth:
            depth -= 1
        elif depth == 0:
            plain.append(c)
    return "".join(plain).split(" ")[-1] or name


def system_procedure(key):
    """Code of the C++ standard library compiled into the program's binary, which Quartz
    folds into the program's procedure that called it (profile/system_code.h decides by
    the source file, under /usr/include; here by namespace)."""
    return key.startswith(("std::", "__gnu_cxx::", "__cxxabiv1::"))


def perf_shares(plain_binary, perf_data):
    """Each procedure's share of the samples of `perf_data` (by period), a sample given to
    the innermost frame of its call chain in the plain binary that is not the standard
    library's: ({key: share}, share in no procedure of the program, share whose leaf was
    outside the binary, samples, perf's warnings)."""
    done = subprocess.run(["perf", "script", "-i", perf_data, "--no-inline", "-F",
                           "tid,period,ip,sym,dso"], capture_output=True, text=True)
    if done.returncode != 0:
        raise Failure("perf script -i %s: %s" % (perf_data, first_line(done.stderr)))
    program = os.path.realpath(plain_binary)
    by_key, outside, elsewhere, total, samples = {}, 0, 0, 0, 0
    frame = re.compile(r"\s*[0-9a-f]+ (.*) \((.*)\)$")
    for block in done.stdout.split("\n\n"):
        lines = [line for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        period = int(lines[0].split()[-1])
        frames = [m.groups() for m in map(frame.match, lines[1:]) if m]
        total += period
        samples += 1
        if frames and frames[0][1] != program:
            elsewhere += period
        own = [procedure_key(s) for s, dso in frames if dso == program]
        key = next((k for k in own if not system_procedure(k)), own[0] if own else None)
        if key is None:
            outside += period
        else:
            by_key[key] = by_key.get(key, 0) + period
    if not total:
        raise Failure("perf recorded no samples in %s" % perf_data)
    warnings = "; ".join(line.strip() for line in done.stderr.splitlines()
                         if "lost" in line.lower())
    return ({k: v / total for k, v in by_key.items()}, outside / total, elsewhere / total,
            samples, warnings)


def plain_procedures(binary):
    """The keys of the functions the plain binary defines (what perf can name)."""
    done = subprocess.run(["nm", "-C", "--defined-only", binary], capture_output=True,
                          text=True, check=True)
    keys = set()
    for line in done.stdout.splitlines():
        fields = line.split(" ", 2)
        if len(fields) == 3 and fields[1] in "tTwWi":
            keys.add(procedure_key(fields[2]))
    return keys


def quartz_shares(quartz, capture, plain_keys):
    """Each procedure's share of processor time in a capture (`quartz report --json`): a
    calling context's own processor time goes to its procedure (an object's context: the
    procedure that holds or waits for it), and a procedure the plain binary does not define
    to the nearest caller that it does (inlined there, so perf names that caller):
    ({key: share}, share in no procedure, {keys of the procedures the profile names})."""
    done = subprocess.run([quartz, "report", capture, "--json"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise Failure("quartz report %s --json: %s" % (capture, first_line(done.stderr)))
    report = json.loads(done.stdout)
    contexts = {c["id"]: c for c in report["contexts"]}
    owner = {}

    def procedure_of(context_id):
        """The key the context's time goes to, or None outside every procedure."""
        if context_id in owner:
            return owner[context_id]
        chain, cursor = [], context_id
        while cursor is not None and cursor not in owner:
            chain.append(cursor)
            cursor = contexts[cursor]["parent"]
        above = owner.get(cursor) if cursor is not None else None
        for c in reversed(chain):  # from the outermost down
            context = contexts[c]
            if context["kind"] == "procedure":
                key = procedure_key(context["name"])
                if key in plain_keys or above is None:
                    above = key
            owner[c] = above
        return owner[context_id]

    by_key, outside, total = {}, 0.0, 0.0
    for c in report["contexts"]:
        time_s = c["processor_self_s"]
        total += time_s
        key = procedure_of(c["id"])
        if key is None:
            outside += time_s
        else:
            by_key[key] = by_key.get(key, 0) + time_s
    named = {procedure_key(p["name"]) for p in report["procedures"]}
    if total <= 0:
        raise Failure("%s: no processor time in the profile" % capture)
    return {k: v / total for k, v in by_key.items()}, outside / total, named


def covered(shares):
    """The procedures that take COVERAGE of the time in procedures, largest first."""
    inside = sum(shares.values())
    chosen, sum_so_far = [], 0.0
    for key, share in sorted(shares.items(), key=lambda kv: -kv[1]):
        if sum_so_far >= COVERAGE * inside:
            break
        chosen.append(key)
        sum_so_far += share
    return chosen


def accuracy(quartz, program, plain_binary, capture, perf_data, label):
    """The accuracy check of one program: printed lines and whether it passed."""
    perf, perf_outside, elsewhere, samples, warnings = perf_shares(plain_binary, perf_data)
    profile, quartz_outside, named = quartz_shares(quartz, capture,
                                                   plain_procedures(plain_binary))
    lines = ["%s: %s, against perf of the plain build (%d samples at %d Hz, DWARF call "
             "chains; %.1f%% of them in system libraries or the kernel, given to the "
             "program's procedure that called them)%s" % (
                 program.name, label, samples, ACCURACY_HZ, 100 * elsewhere,
                 "; perf: " + warnings if warnings else ""),
             "",
             "| procedure | perf | quartz | difference | |",
             "|---|---:|---:|---:|---|"]
    passed = True
    chosen = covered(perf)
    for key in chosen:
        share = profile.get(key, 0.0)
        difference = 100 * (share - perf[key])
        if key not in named:
            verdict = "FAIL: not in the profile"
        elif abs(difference) > TOLERANCE_POINTS:
            verdict = "FAIL: more than %g points" % TOLERANCE_POINTS
        else:
            verdict = "pass"
        passed = passed and verdict == "pass"
        lines.append("| %s | %.1f%% | %.1f%% | %+.1f | %s |" % (key, 100 * perf[key],
                                                               100 * share, difference,
                                                               verdict))
    others = [k for k in profile if k not in chosen]
    lines.append("| (the other procedures) | %.1f%% | %.1f%% | | |" % (
        100 * sum(v for k, v in perf.items() if k not in chosen),
        100 * sum(profile[k] for k in others)))
    lines.append("| (in no procedure of the program) | %.1f%% | %.1f%% | | |" % (
        100 * perf_outside, 100 * quartz_outside))
    lines.append("")
    lines.append("%s: accuracy %s: %s %d%% of perf's time in the program's procedures" % (
        program.name, "pass" if passed else "FAIL",
        "1 procedure takes" if len(chosen) == 1 else "%d procedures take" % len(chosen),
        round(100 * COVERAGE)))
    return lines, passed


def variants_for(quartz, runs, tools):
    """The variants, in the table's order: plain, Quartz by mode and budget (`runs`), the
    tools."""
    variants = [Variant("plain", "plain", lambda binary, args, run: [binary] + args)]
    for mode in dict.fromkeys(mode for mode, _ in runs):  # in the order of --modes
        for budget in [b for m, b in runs if m == mode]:
            options = [] if budget == "none" else ["--budget", budget]
            name = "quartz %s" % mode + ("" if budget == "none" else ", budget %s" % budget)
            variants.append(Variant(name, "quartz " + mode, lambda binary, args, run, o=options: [
                quartz, "run", "-q", "--no-import", *o, "-o", os.path.join(run, CAPTURE), "--",
                binary] + args))
    if "gprof" in tools:
        variants.append(Variant("gprof", "pg", lambda binary, args, run: [binary] + args))
    if "uftrace" in tools:
        variants.append(Variant("uftrace", "pg", lambda binary, args, run: [
            "uftrace", "record", "-d", os.path.join(run, "uftrace.data"), binary] + args))
    if "perf" in tools:
        variants.append(Variant("perf record -g", "plain", lambda binary, args, run: [
            "perf", "record", "-g", "-o", os.path.join(run, "perf.data"), "--", binary] + args))
    return variants


def run_program(program, variants, binaries, paths, options, work, default_variant):
    """The rounds of one program: {variant: wall times, s}, {variant: why it failed},
    the variants whose output differed, the plain output's verdict, and the capture of the
    first run with default settings (or None)."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    log = os.path.join(work, "stderr.log")
    args = workload(program, paths, options.threads)
    reference = os.path.join(work, "plain.out")
    # An untimed plain run first: the reference output, and the input in the page cache.
    timed([binaries["plain"]] + args, reference, log, timeout_s=options.timeout)
    decoded = decodes(program, binaries["plain"], reference, args, options.threads, work, log)
    expected = sha256_of(reference)
    times = {v.name: [] for v in variants}
    failed, differing, capture = {}, set(), None
    run_dir, out = os.path.join(work, "run"), os.path.join(work, "run.out")
    for r in range(options.repeat):
        shift = r % len(variants)
        for v in variants[shift:] + variants[:shift]:
            if v.name in failed or v.build_key not in binaries:
                continue
            shutil.rmtree(run_dir, ignore_errors=True)
            os.makedirs(run_dir)
            command = v.command(binaries[v.build_key], args, run_dir)
            try:
                times[v.name].append(timed(command, out, log, cwd=run_dir,
                                           timeout_s=options.timeout))
            except Failure as e:
                failed[v.name] = str(e)
                continue
            if sha256_of(out) != expected:
                differing.add(v.name)
            if v is default_variant and capture is None:
                capture = os.path.join(work, "default.qcap")
                os.replace(os.path.join(run_dir, CAPTURE), capture)
    shutil.rmtree(run_dir, ignore_errors=True)
    if os.path.exists(out):
        os.remove(out)
    verdict = {None: "", True: ", decodes", False: ", DOES NOT DECODE"}[decoded]
    return times, failed, differing, verdict, capture


def perf_for_accuracy(binary, args, work, options, expected):
    """The plain build under perf with DWARF call chains (untimed): perf.data's path."""
    data = os.path.join(work, "accuracy.perf.data")
    out = os.path.join(work, "accuracy.out")
    timed(["perf", "record", "-q", "-F", str(ACCURACY_HZ), "--call-graph", "dwarf", "-o", data,
           "--", binary] + args, out, os.path.join(work, "stderr.log"),
          timeout_s=options.timeout)
    same = sha256_of(out) == expected
    os.remove(out)
    if not same:
        raise Failure("the plain build's output under perf differs")
    return data


def factor_table(rows, variants):
    """The cost table's lines: per program each variant's median over plain's; and
    {variant: [(factor, program)]}."""
    names = [v.name for v in variants
             if any(r["times"].get(v.name) or v.name in r["failed"] for r in rows)]
    lines = ["| program | plain | plain spread | " + " | ".join(names[1:]) + " | output |",
             "|---|---:|---:|" + "---:|" * (len(names) - 1) + "---|"]
    factors = {n: [] for n in names}
    for r in rows:
        plain = r["times"].get("plain")
        cells = []
        for n in names[1:]:
            if n in r["failed"]:
                cells.append("failed")
            elif r["times"].get(n) and plain:
                factor = statistics.median(r["times"][n]) / statistics.median(plain)
                factors[n].append((factor, r["program"]))
                cells.append("×%.2f" % factor)
            else:
                cells.append("-")
        output = "same" if not r["differing"] else "DIFFERS: " + ", ".join(
            sorted(r["differing"]))
        lines.append("| %s | %s | %s | %s | %s |" % (
            r["program"], "%.3f s" % statistics.median(plain) if plain else "failed",
            "-" if r["spread"] is None else "%.1f%%" % (100 * r["spread"]),
            " | ".join(cells), output + r["decoded"]))
    for label, pick in (("median", statistics.median), ("worst", max)):
        cells = ["×%.2f" % pick(f for f, _ in factors[n]) if factors[n] else "-"
                 for n in names[1:]]
        lines.append("| %s | | | %s | |" % (label, " | ".join(cells)))
    return lines, factors


def listed(text):
    return [item for item in text.split(",") if item]


def build_variants(program, tarball, builds, keys, suffix, directory):
    """The program's builds that `keys` name: ({key: binary}, {key: why it failed}). The
    plain build must succeed."""
    binaries, failures = {}, {}
    for key in sorted(keys, key=lambda k: k != "plain"):
        name, compilers = builds[key]
        try:
            binaries[key] = build(program, tarball, name + suffix, compilers, directory)
        except Failure as e:
            if key == "plain":
                raise
            failures[key] = str(e)
    return binaries, failures


def check_accuracy(quartz, program, plain_binary, args, options, work, capture, label):
    """The accuracy check of one program's run with default settings against perf of the
    plain build: printed lines and whether it passed."""
    try:
        data = perf_for_accuracy(plain_binary, args, work, options,
                                 sha256_of(os.path.join(work, "plain.out")))
        lines, passed = accuracy(quartz, program, plain_binary, capture, data, label)
        os.remove(data)
    except Failure as e:
        lines, passed = ["%s: accuracy FAIL: %s" % (program.name, e)], False
    return lines, passed


def print_targets(rows, factors, variants, default_variant):
    """Issue 13's cost targets, for the default settings and for each budget."""
    if default_variant and factors.get(default_variant.name):
        found = factors[default_variant.name]
        median, (worst, where) = statistics.median(f for f, _ in found), max(found)
        print("%s, default settings: median ×%.2f (target ≤ ×%.2f: %s), worst ×%.2f, %s "
              "(target ≤ ×%.2f: %s)" % (
                  default_variant.name, median, TARGET_MEDIAN,
                  "met" if median <= TARGET_MEDIAN else "NOT MET", worst, where,
                  TARGET_WORST, "met" if worst <= TARGET_WORST else "NOT MET"))
    elif not default_variant:
        print("no variant runs with default settings (the wrappers' default mode among "
              "--modes, and none among --budgets): targets and accuracy not checked")
    spread = {r["program"]: r["spread"] for r in rows}
    for v in variants:
        budget = re.search(r", budget ([0-9.]+)$", v.name)
        if not budget or not factors.get(v.name):
            continue
        cells = []
        for factor, program in factors[v.name]:
            bound = 1 + float(budget.group(1)) / 100 + (spread[program] or 0)
            cells.append("%s ×%.2f (%s)" % (program, factor,
                                             "met" if factor <= bound else "NOT MET"))
        print("%s, target ≤ ×(1 + %s%% + the plain spread): %s" % (
            v.name, budget.group(1), ", ".join(cells)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="Quartz's build directory")
    parser.add_argument("--dir", help="downloads, builds, inputs (default BUILD/real-programs)")
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds")
    parser.add_argument("--only", help="comma-separated program names")
    parser.add_argument("--threads", type=int, default=2,
                        help="the programs' worker threads (-p, -n, -T, -t)")
    parser.add_argument("--compiler", choices=("gcc", "clang"), default="gcc",
                        help="every build's compiler")
    parser.add_argument("--modes", default="hooks,inlined,patch",
                        help="Quartz's instrumentation modes (QUARTZ_INSTRUMENT for the wrappers)")
    parser.add_argument("--budgets", default="none,5",
                        help="quartz run --budget values; none: the option not given")
    parser.add_argument("--tools", default="gprof,uftrace,perf",
                        help="the other profilers (gprof, uftrace, perf)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds a run may take")
    parser.add_argument("--smallest", action="store_true",
                        help="a check that it works: the smallest program, one round")
    options = parser.parse_args()
    bin_dir = os.path.abspath(os.path.join(options.build, "bin"))
    quartz = os.path.join(bin_dir, "quartz")
    directory = os.path.abspath(options.dir or os.path.join(options.build, "real-programs"))
    if missing_tool(bin_dir):
        print("real_cost: no %s in %s (build Quartz first)" % (missing_tool(bin_dir), bin_dir),
              file=sys.stderr)
        return 1
    try:
        programs = select_programs(options.only, options.smallest)
    except ValueError as e:
        print("real_cost: --only: %s" % e, file=sys.stderr)
        return 2
    if options.smallest:
        options.repeat = 1
    cc, cxx = compiler_pair(options.compiler)
    suffix = "" if options.compiler == "gcc" else "-" + options.compiler
    probes = os.path.join(directory, "cost-probes" + suffix)
    shutil.rmtree(probes, ignore_errors=True)
    os.makedirs(probes)
    wrapped = {"QUARTZ_CC": cc, "QUARTZ_CXX": cxx}
    pg_cc, pg_cxx = pg_compilers(cc, cxx, os.path.join(directory, "compilers"))
    try:
        modes, mode_probes, default_mode, skips = probe_modes(
            quartz, os.path.join(bin_dir, "quartz-cc"), wrapped, listed(options.modes), probes)
        runs, budget_skips = probe_budgets(quartz, listed(options.budgets), mode_probes, probes)
        tools, tool_skips, notes = probe_tools(listed(options.tools), pg_cc, cc, probes)
    except Failure as e:
        print("real_cost: %s" % e, file=sys.stderr)
        return 1
    skips += budget_skips + tool_skips
    variants = variants_for(quartz, runs, tools)
    default_variant = next((v for v in variants if default_mode and
                            v.name == "quartz %s" % default_mode), None)
    builds = {"plain": ("plain", {"cc": cc, "cxx": cxx, "family": options.compiler}),
              "pg": ("pg", {"cc": pg_cc, "cxx": pg_cxx, "family": options.compiler})}
    for mode, asked in modes.items():
        # Unasked, the same build as real_programs.py's, and shared with it.
        builds["quartz " + mode] = ("quartz-" + mode if asked else "quartz", {
            "cc": os.path.join(bin_dir, "quartz-cc"), "cxx": os.path.join(bin_dir, "quartz-c++"),
            "env": dict(wrapped, **asked), "family": options.compiler})
    rows, accuracy_lines, accuracy_passed, failed = [], [], [], False
    try:
        for program in programs:
            tarball = download(program, os.path.join(directory, "downloads"))
            binaries, build_failures = build_variants(
                program, tarball, builds, {v.build_key for v in variants}, suffix,
                os.path.join(directory, "builds"))
            paths = inputs(os.path.join(directory, "inputs"), names_in(program.args))
            print("real_cost: %s built, running" % program.name, file=sys.stderr, flush=True)
            work = os.path.join(directory, "cost-runs", program.name + suffix)
            times, run_failures, differing, decoded, capture = run_program(
                program, variants, binaries, paths, options, work, default_variant)
            run_failures.update({v.name: build_failures[v.build_key] for v in variants
                                 if v.build_key in build_failures})
            plain = times["plain"]
            rows.append({"program": program.name, "times": times, "failed": run_failures,
                         "differing": differing, "decoded": decoded,
                         "spread": (max(plain) - min(plain)) / statistics.median(plain)
                         if len(plain) > 1 else None})
            failed = failed or bool(run_failures or differing) or "NOT" in decoded
            if not default_variant:
                continue
            if not capture:
                lines, passed = ["%s: accuracy not checked: no run of %s" % (
                    program.name, default_variant.name)], False
            elif "perf" not in tools:
                lines, passed = ["%s: accuracy not checked: no perf (not in --tools, or "
                                 "skipped)" % program.name], False
            else:
                lines, passed = check_accuracy(
                    quartz, program, binaries["plain"], workload(program, paths,
                                                                 options.threads),
                    options, work, capture,
                    "%s (the wrappers' default mode, no --budget)" % default_variant.name)
            accuracy_lines += [""] + lines
            accuracy_passed.append(passed)
    except Failure as e:
        print("real_cost: %s" % e, file=sys.stderr)
        return 1

    print("Built with %s; %d worker threads; median of %d interleaved round%s (each runs "
          "every variant once, in an order rotated by one each round); each cell: the "
          "variant's median wall time over the plain build's." % (
              options.compiler, options.threads, options.repeat,
              "" if options.repeat == 1 else "s"))
    for line in skips:
        print("skipped: " + line)
    for line in notes:
        print("note: " + line)
    print()
    lines, factors = factor_table(rows, variants)
    print("\n".join(lines))
    print()
    print_targets(rows, factors, variants, default_variant)
    print("\n".join(accuracy_lines))
    if accuracy_passed:
        print()
        print("accuracy: %d of %d programs pass" % (sum(accuracy_passed),
                                                   len(accuracy_passed)))
    for r in rows:
        for name, why in r["failed"].items():
            print("failed: %s, %s: %s" % (r["program"], name, why))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
