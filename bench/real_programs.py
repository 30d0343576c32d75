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
reused; a build is redone when its command changes. docs/performance.md "Real programs".
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request

DEBIAN_POOL = "http://deb.debian.org/debian/pool/main/"
# The generated inputs, by name: a compressible mix of text, counting integers and random
# bytes, and a random genome with reads sampled from it.
MIX_MIB = 48
MIX_SMALL_MIB = 16
GENOME_BASES = 4_000_000
READS, READ_BASES = 5000, 4000


class Program:
    """One program of the suite: where its source is, how it is built, what it runs."""

    def __init__(self, name, language, pool_path, sha256, size, build, binary, args,
                 decode=None):
        self.name = name
        self.language = language
        self.url = DEBIAN_POOL + pool_path
        self.sha256, self.size = sha256, size  # from Checksums-Sha256 of bookworm's Sources
        # Shell commands, {cc} and {cxx} filled in, run in the source; or such commands by
        # compiler ("gcc", "clang").
        self.build = build
        self.binary = binary  # relative to the source
        # The workload's arguments, with {threads} and the inputs' names ({mix}, ...) filled
        # in; the output on stdout.
        self.args = args
        self.decode = decode  # arguments that print the input back from {out}, if any

    @property
    def tarball(self):
        return self.url.rsplit("/", 1)[1]


PROGRAMS = [
    Program("pbzip2", "C++", "p/pbzip2/pbzip2_1.1.13.orig.tar.gz",
            "bca3d7b50e4e5f963c82cb9626bb72e4062d83bc2b8b028eee22efdcda972b9b", 48219,
            # clang refuses its "%"PRIuMAX (a C++11 literal suffix) unless told.
            {"gcc": "make -j2 CXX={cxx}",
             "clang": "make -j2 CXX='{cxx} -Wno-reserved-user-defined-literal'"}, "pbzip2",
            ["-p{threads}", "-9", "-c", "{mix}"], ["-d", "-p{threads}", "-c", "{out}"]),
    Program("lbzip2", "C", "l/lbzip2/lbzip2_2.5.orig.tar.bz2",
            "eec4ff08376090494fa3710649b73e5412c3687b4b9b758c93f73aa7be27555b", 514852,
            # gnulib's own fix for glibc 2.28, which no longer defines _IO_ftrylockfile.
            "sed -i 's/defined _IO_ftrylockfile/defined _IO_EOF_SEEN || &/' lib/fseterr.c && "
            "./configure -q CC={cc} && make -j2", "src/lbzip2",
            ["-n", "{threads}", "-9", "-c", "{mix}"], ["-d", "-n", "{threads}", "-c", "{out}"]),
    Program("zstd", "C", "libz/libzstd/libzstd_1.5.4+dfsg2.orig.tar.xz",
            "8cf4bbb65e77ec348d052c8d6230eba66d435bddf64c8b5be2fcb16880c19953", 1582660,
            "make -j2 -C programs zstd CC={cc} HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0",
            "programs/zstd",
            ["-q", "-T{threads}", "-12", "-B4MiB", "-c", "{mix}"], ["-q", "-d", "-c", "{out}"]),
    Program("xz", "C", "x/xz-utils/xz-utils_5.4.1.orig.tar.xz",
            "5d9827aa1875b21c288f78864bb26d2650b436ea8d2cad364e4921eb6266a5a5", 1485272,
            "./configure -q CC={cc} --disable-shared --disable-nls --disable-doc "
            "--disable-scripts --disable-xzdec --disable-lzmadec --disable-lzmainfo "
            "--disable-lzma-links && make -j2",
            "src/xz/xz",
            ["-T{threads}", "-2", "--block-size=2MiB", "-c", "{mix_small}"],
            ["-d", "-T{threads}", "-c", "{out}"]),
    Program("minimap2", "C", "m/minimap2/minimap2_2.24+dfsg.orig.tar.xz",
            "bd8e76cad8e4d4ea19844707bf4f2a825de10372dc6c8ba15426ef9c20854b0f", 195056,
            "make -j2 CC={cc}", "minimap2",
            ["-t", "{threads}", "-c", "-x", "map-ont", "{ref}", "{reads}"]),
]


class Failure(Exception):
    """A step that stops the suite: printed on one line, status 1."""


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download(program, directory):
    """The program's tarball, downloaded once and checked against its pinned sha256."""
    path = os.path.join(directory, program.tarball)
    if os.path.exists(path) and sha256_of(path) == program.sha256:
        return path
    os.makedirs(directory, exist_ok=True)
    partial = path + ".part"
    try:
        with urllib.request.urlopen(program.url, timeout=60) as response, \
                open(partial, "wb") as out:
            shutil.copyfileobj(response, out)
    except (urllib.error.URLError, OSError) as e:
        raise Failure("cannot download %s: %s" % (program.url, getattr(e, "reason", e)))
    if sha256_of(partial) != program.sha256:
        raise Failure("%s: sha256 %s, expected %s" % (program.url, sha256_of(partial),
                                                      program.sha256))
    os.replace(partial, path)
    return path


def build(program, tarball, variant, compilers, directory):
    """The program built from a fresh copy of its source: its binary's path. Kept while
    the build command (which names the compilers) stays the same."""
    command = program.build
    if isinstance(command, dict):
        command = command[compilers["family"]]
    command = command.format(cc=compilers["cc"], cxx=compilers["cxx"])
    if compilers.get("wrapped"):  # the compilers quartz-cc and quartz-c++ call
        command = "export QUARTZ_CC=%s QUARTZ_CXX=%s; %s" % (*compilers["wrapped"], command)
    root = os.path.join(directory, "%s-%s" % (program.name, variant))
    stamp = os.path.join(root, "built-with")
    with tarfile.open(tarball) as tar:
        top = tar.getnames()[0].split("/")[0]
    binary = os.path.join(root, top, program.binary)
    if os.path.exists(stamp) and open(stamp).read() == command and os.path.exists(binary):
        return binary
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    with tarfile.open(tarball) as tar:
        # The "data" filter, where this Python has it: no links or paths out of `root`.
        tar.extractall(root, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    log = os.path.join(root, "build.log")
    with open(log, "w") as out:
        done = subprocess.run(command, shell=True, cwd=os.path.join(root, top), stdout=out,
                              stderr=subprocess.STDOUT)
    if done.returncode != 0 or not os.path.exists(binary):
        raise Failure("%s: the %s build failed (%s): see %s" % (program.name, variant, command,
                                                              log))
    with open(stamp, "w") as f:
        f.write(command)
    return binary


def mix_input(size):
    """Compressible bytes: lines of words from a fixed vocabulary (70%), runs of counting
    32-bit integers (15%), random bytes (15%), from a fixed seed."""
    rng = random.Random(9)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocabulary = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 10)))
                  for _ in range(5000)]
    out = bytearray()
    while len(out) < size:
        kind = rng.random()
        if kind < 0.7:
            out += " ".join(rng.choices(vocabulary, k=20000)).encode() + b"\n"
        elif kind < 0.85:
            base = rng.getrandbits(32)
            out += b"".join(((base + 3 * i) & 0xFFFFFFFF).to_bytes(4, "little")
                            for i in range(16384))
        else:
            out += rng.randbytes(32768)
    return bytes(out[:size])


def genome_input():
    """A random reference (FASTA) and reads sampled from both strands with about 4%
    substitutions and 1% deletions, from a fixed seed."""
    rng = random.Random(7)
    reference = bytes(rng.choices(b"ACGT", k=GENOME_BASES))
    complement = bytes.maketrans(b"ACGT", b"TGCA")
    fasta = bytearray(b">chr1\n")
    for i in range(0, GENOME_BASES, 80):
        fasta += reference[i:i + 80] + b"\n"
    reads = bytearray()
    for r in range(READS):
        start = rng.randrange(0, GENOME_BASES - READ_BASES)
        read = bytearray(reference[start:start + READ_BASES])
        for _ in range(READ_BASES // 20):
            read[rng.randrange(READ_BASES)] = rng.choice(b"ACGT")
        for _ in range(READ_BASES // 100):
            del read[rng.randrange(len(read))]
        if rng.random() < 0.5:
            read = bytearray(bytes(read).translate(complement)[::-1])
        reads += b">read%d\n" % r + bytes(read) + b"\n"
    return bytes(fasta), bytes(reads)


def inputs(directory, needed):
    """The generated inputs' paths, by the names the programs' arguments use."""
    os.makedirs(directory, exist_ok=True)
    paths = {"mix": os.path.join(directory, "mix-%dMiB.bin" % MIX_MIB),
             "mix_small": os.path.join(directory, "mix-%dMiB.bin" % MIX_SMALL_MIB),
             "ref": os.path.join(directory, "genome.fa"),
             "reads": os.path.join(directory, "reads.fa")}

    def write(path, data):
        with open(path + ".part", "wb") as f:
            f.write(data)
        os.replace(path + ".part", path)

    if "mix" in needed and not os.path.exists(paths["mix"]):
        write(paths["mix"], mix_input(MIX_MIB << 20))
    if "mix_small" in needed and not os.path.exists(paths["mix_small"]):
        write(paths["mix_small"], mix_input(MIX_SMALL_MIB << 20))
    if ({"ref", "reads"} & needed) and not (os.path.exists(paths["ref"]) and
                                           os.path.exists(paths["reads"])):
        fasta, reads = genome_input()
        write(paths["ref"], fasta)
        write(paths["reads"], reads)
    return paths


def names_in(args):
    return {a[1:-1] for a in args if a.startswith("{") and a.endswith("}")}


def timed(command, stdout_path, stderr_path):
    """Runs `command` with its output in stdout_path: its wall time, seconds."""
    with open(stdout_path, "wb") as out, open(stderr_path, "ab") as err:
        started = time.perf_counter()
        done = subprocess.run(command, stdout=out, stderr=err)
        elapsed_s = time.perf_counter() - started
    if done.returncode != 0:
        raise Failure("%s exited with status %d: see %s" % (" ".join(command), done.returncode,
                                                           stderr_path))
    return elapsed_s


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
    args = [a.format(threads=threads, **paths) for a in program.args]
    plain_cmd = [binaries["plain"]] + args

    def under_quartz(capture, *options):
        return [quartz, "run", "-q", "--no-import", *options, "-o", capture, "--",
                binaries["quartz"]] + args

    reference = os.path.join(work, "plain-0.out")
    plain_s, quartz_s, outputs, violations = [], [], [], []
    checks = []
    for r in range(repeat):
        out = os.path.join(work, "plain-%d.out" % r)
        plain_s.append(timed(plain_cmd, out, log))
        outputs.append(out)
        capture = os.path.join(work, "quartz-%d.qcap" % r)
        out = os.path.join(work, "quartz-%d.out" % r)
        quartz_s.append(timed(under_quartz(capture), out, log))
        outputs.append(out)
        checks.append(check_run(quartz, capture, "%s, quartz run %d" % (program.name, r + 1),
                                violations))
    seen = threads_seen(quartz, os.path.join(work, "quartz-0.qcap"))
    replay = "-"
    if not smallest:
        capture = os.path.join(work, "trace.qcap")
        out = os.path.join(work, "trace.out")
        timed(under_quartz(capture, "--trace"), out, log)
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
    expected = sha256_of(reference)
    differing = [o for o in outputs if sha256_of(o) != expected]
    output = "same" if not differing else "DIFFERS (%s)" % ", ".join(
        os.path.basename(o) for o in differing)
    if program.decode:
        decoded = os.path.join(work, "decoded")
        timed([binaries["plain"]] + [a.format(out=reference, threads=threads)
                                     for a in program.decode], decoded, log)
        source = [a for a in args if os.path.isfile(a)][0]
        if sha256_of(decoded) != sha256_of(source):
            output += ", DOES NOT DECODE to its input"
        else:
            output += ", decodes"
        os.remove(decoded)
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
        "failed": bool(differing) or passed != len(checks) or "DOES NOT" in output,
    }
    return row, violations


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="Quartz's build directory")
    parser.add_argument("--dir", help="downloads, builds, inputs (default BUILD/real-programs)")
    parser.add_argument("--repeat", type=int, default=5, help="interleaved runs of each kind")
    parser.add_argument("--only", help="comma-separated program names")
    parser.add_argument("--threads", type=int, default=2,
                        help="the programs' worker threads (-p, -n, -T, -t)")
    parser.add_argument("--compiler", choices=("gcc", "clang"), default="gcc",
                        help="both builds' compiler (clang: hooks after inlining)")
    parser.add_argument("--smallest", action="store_true",
                        help="CI: the smallest download only; one run each way, output and "
                        "invariants (no trace, no dilation)")
    options = parser.parse_args()
    bin_dir = os.path.abspath(os.path.join(options.build, "bin"))
    quartz = os.path.join(bin_dir, "quartz")
    directory = os.path.abspath(options.dir or os.path.join(options.build, "real-programs"))
    for tool in ("quartz", "quartz-cc", "quartz-c++"):
        if not os.access(os.path.join(bin_dir, tool), os.X_OK):
            print("real_programs: no %s in %s (build Quartz first)" % (tool, bin_dir),
                  file=sys.stderr)
            return 1
    programs = PROGRAMS
    if options.only:
        wanted = options.only.split(",")
        programs = [p for p in PROGRAMS if p.name in wanted]
        if len(programs) != len(wanted):
            print("real_programs: --only: known programs are %s" %
                  ", ".join(p.name for p in PROGRAMS), file=sys.stderr)
            return 2
    repeat = options.repeat
    if options.smallest:
        # The smallest download, which is also the quickest build.
        programs = [min(programs, key=lambda p: p.size)]
        repeat = 1
    cc, cxx = ("gcc", "g++") if options.compiler == "gcc" else ("clang", "clang++")
    suffix = "" if options.compiler == "gcc" else "-" + options.compiler
    compilers = {"plain" + suffix: {"cc": cc, "cxx": cxx, "family": options.compiler},
                 "quartz" + suffix: {"cc": os.path.join(bin_dir, "quartz-cc"),
                                     "cxx": os.path.join(bin_dir, "quartz-c++"),
                                     "wrapped": (cc, cxx), "family": options.compiler}}
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
          "output | invariants | replay's error; its range, the plain run inside or not |")
    print("|---|---|---:|---:|---:|---:|---|---|---:|")
    for r in rows:
        print("| %s | %s | %d | %.3f s | %.3f s | %+.1f%% | %s | %s | %s |" % (
            r["program"], r["language"], r["threads"], r["plain_s"], r["quartz_s"],
            100 * (r["quartz_s"] / r["plain_s"] - 1), r["output"], r["invariants"],
            r["replay"]))
    for v in violations:
        print("violation: " + v)
    return 1 if any(r["failed"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
