"""The real-program suite (issue 9 item 9), shared by bench/real_programs.py and
bench/real_cost.py: open-source multithreaded programs from Debian's source tarballs
(pinned by sha256), or from a folder of a git repository at a pinned commit (a program
Debian does not package), how each is built with a given compiler, the workloads generated
from a fixed seed, timed runs and the check that an output is the plain build's.

A git program's repository is cloned once into DIR/downloads/OWNER+NAME.git; without a
network, put a clone there (git clone --bare).

Downloads, builds and inputs live under one directory (BUILD/real-programs by default) and
are reused; a build is redone when its command, compilers and environment included,
changes.
"""

import hashlib
import os
import random
import shlex
import shutil
import signal
import subprocess
import tarfile
import time
import urllib.error
import urllib.request

DEBIAN_POOL = "http://deb.debian.org/debian/pool/main/"
# The generated inputs, by name: a compressible mix of text, counting integers and random
# bytes; a random genome with reads sampled from it; a protein alignment evolved along a
# random tree; short reads (FASTQ) that run into sequencing adapters, and the adapters.
MIX_MIB = 48
MIX_SMALL_MIB = 16
GENOME_BASES = 4_000_000
READS, READ_BASES = 5000, 4000
PROTEINS, PROTEIN_SITES = 300, 250
SHORT_READS, SHORT_READ_BASES, ADAPTERS = 60_000, 150, 16


class Program:
    """One program of the suite: where its source is, how it is built, what it runs."""

    def __init__(self, name, language, pool_path, sha256, size, build, binary, args,
                 decode=None, env=None, files=None, needs=(), git=None):
        self.name = name
        self.language = language
        # From Debian's pool (sha256 from Checksums-Sha256 of bookworm's Sources), or, with
        # `git` = (repository URL, commit, folder) and pool_path None, that folder of that
        # commit (the commit is the pin).
        self.url = git[0] if git else DEBIAN_POOL + pool_path
        self.git = git
        self.sha256, self.size = sha256, size
        # Shell commands, {cc} and {cxx} filled in, run in the source; or such commands by
        # compiler ("gcc", "clang").
        self.build = build
        self.binary = binary  # relative to the source
        # The workload's arguments, with {threads} and the inputs' names ({mix}, ...) filled
        # in; the output on stdout.
        self.args = args
        self.decode = decode  # arguments that print the input back from {out}, if any
        # Variables the workload's runs are given, {threads} filled in: for a program that
        # takes its thread count from nowhere else.
        self.env = env or {}
        # Files written into the source before the build, by path: a port the tarball
        # lacks (part of the build's stamp).
        self.files = files or {}
        # Debian packages its build needs that scripts/install-deps.sh does not install:
        # named when the build fails; --smallest (CI) passes such a program over.
        self.needs = needs

    @property
    def tarball(self):
        if self.git:
            return "%s-%s.tar" % (self.name, self.git[1][:12])
        return self.url.rsplit("/", 1)[1]


# flexbar 3.5.0's tarball is written for TBB 2020, whose tbb::pipeline, tbb::filter,
# tbb::atomic and tbb::task_scheduler_init oneTBB dropped (Debian's 3.5.0-5 ports it in
# debian/patches). The same port in one header, its sources' names pointed at it by the
# build: each filter keeps its mode and the pipeline its tokens, on oneTBB's
# parallel_pipeline; the thread count through global_control; atomics that copy, as
# TBB 2020's did (flexbar copies its adapters' counters).
TBB2020_H = """\
#include <atomic>
#include <vector>
#include <tbb/global_control.h>
#include <tbb/parallel_pipeline.h>
namespace tbb2020 {
template <typename T> struct atomic : std::atomic<T> {
  atomic(T v = T()) : std::atomic<T>(v) {}
  atomic(const atomic &a) : std::atomic<T>(a.load()) {}
  atomic &operator=(const atomic &a) { this->store(a.load()); return *this; }
  using std::atomic<T>::operator=;
};
struct filter {
  enum mode { parallel, serial_in_order, serial_out_of_order };
  explicit filter(mode m) : m(m) {}
  virtual ~filter() {}
  virtual void *operator()(void *item) = 0;
  tbb::filter_mode kind() const {
    return m == parallel ? tbb::filter_mode::parallel : m == serial_in_order
        ? tbb::filter_mode::serial_in_order : tbb::filter_mode::serial_out_of_order;
  }
  mode m;
};
// As TBB 2020's: the first filter's NULL ends the input; a later one's drops the item.
struct pipeline {
  std::vector<filter *> filters;
  void add_filter(filter &f) { filters.push_back(&f); }
  void run(size_t tokens) {
    filter *first = filters.front(), *last = filters.back();
    auto chain = tbb::make_filter<void, void *>(first->kind(), [=](tbb::flow_control &fc) {
      void *item = (*first)(nullptr);
      if (!item) fc.stop();
      return item;
    });
    for (size_t i = 1; i + 1 < filters.size(); i++) {
      filter *f = filters[i];
      chain = chain & tbb::make_filter<void *, void *>(f->kind(), [=](void *item) {
        return item ? (*f)(item) : nullptr;
      });
    }
    tbb::parallel_pipeline(tokens, chain & tbb::make_filter<void *, void>(
        last->kind(), [=](void *item) { if (item) (*last)(item); }));
  }
};
struct task_scheduler_init {
  tbb::global_control threads;
  explicit task_scheduler_init(int n)
      : threads(tbb::global_control::max_allowed_parallelism, n) {}
};
}
"""


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
    # OpenMP: libgomp with gcc, LLVM's libomp with clang. Debian's defines (its
    # Makefile.patch: -DUSE_DOUBLE) with the flags FastTree's header recommends.
    # FastTree's top-hits phase lets a thread hand a seed's hits to a close neighbor that
    # another thread may be computing (its header: "results on repeated runs may not be
    # 100% identical"): -close 0.01 leaves no neighbor close, so every sequence's top hits
    # are its own and the tree is the same at any thread count.
    Program("fasttree", "C", "f/fasttree/fasttree_2.1.11.orig.tar.xz",
            "7f15713f02afb167f4f33dc067b5b2282b219b22fbaa17eb8f771a7147a05a5c", 96068,
            "{cc} -O3 -finline-functions -funroll-loops -DOPENMP -fopenmp -DUSE_DOUBLE "
            "-o FastTreeMP fasttree.c -lm", "FastTreeMP",
            ["-close", "0.01", "{proteins}"], env={"OMP_NUM_THREADS": "{threads}"}),
    # oneTBB: a tbb pipeline of a serial reader, parallel alignment and an in-order writer
    # (the reads out in their order at any thread count). The log, with its times, goes to
    # /dev/null; the trimmed reads to stdout.
    Program("flexbar", "C++", "f/flexbar/flexbar_3.5.0.orig.tar.gz",
            "656168934b6cb367ee6d4adad0c40506bc107c888d129fe191c6f3f3446a4ac9", 44021,
            "sed -i 's/tbb::\\(atomic\\|filter\\|pipeline\\|task_scheduler_init\\)\\b/"
            "tbb2020::\\1/g; s|<tbb/pipeline.h>|\"tbb2020.h\"|; /task_scheduler_init.h/d' "
            "src/*.h && cmake -S . -B b -DCMAKE_C_COMPILER={cc} -DCMAKE_CXX_COMPILER={cxx} "
            ">/dev/null && make -C b -j2", "b/flexbar",
            ["-r", "{fastq}", "-a", "{adapters}", "-n", "{threads}", "--stdout-reads",
             "--output-log", "/dev/null"],
            files={"src/tbb2020.h": TBB2020_H}, needs=("libseqan2-dev",)),
    # Lock-heavy (issue 38): PARSEC's deduplicating compressor, a pipeline of stages with
    # -t threads each, a mutex per chunk and per hash bucket (24,000-38,000 objects on the
    # mix), spinlocks around its buffers, condition variables between stages. Its output
    # goes to -o, here stdout. gcc 10+ needs -fcommon (its headers define globals).
    Program("dedup", "C", None, None, 194_560,
            "CFLAGS='-O2 -I. -fcommon' make version=pthreads CC={cc}", "dedup",
            ["-c", "-p", "-t", "{threads}", "-i", "{mix}", "-o", "/dev/stdout"],
            needs=("zlib1g-dev",),
            git=("https://github.com/bamos/parsec-benchmark",
                 "2e492f771c6749577fe4e7610d516a9e7f8ad580", "pkgs/kernels/dedup/src")),
]


class Failure(Exception):
    """A step that stops the suite: printed on one line, status 1."""


def select_programs(only, smallest):
    """The programs named in `only` (comma-separated; all if None), or of those the one
    with the smallest download (also the quickest build) when `smallest`, passing over
    those that need packages of their own while others are left. Raises ValueError
    naming the known programs when a name is unknown."""
    programs = PROGRAMS
    if only:
        wanted = only.split(",")
        programs = [p for p in PROGRAMS if p.name in wanted]
        if len(programs) != len(wanted):
            raise ValueError("known programs are %s" % ", ".join(p.name for p in PROGRAMS))
    if smallest:
        programs = [p for p in programs if not p.git] or programs
        programs = [min([p for p in programs if not p.needs] or programs,
                        key=lambda p: p.size)]
    return programs


def compiler_pair(family):
    """The plain C and C++ compilers of a family: ("gcc", "g++") or ("clang", "clang++")."""
    return ("gcc", "g++") if family == "gcc" else ("clang", "clang++")


def missing_tool(bin_dir):
    """The first of Quartz's tools the suite needs that `bin_dir` lacks, or None."""
    for tool in ("quartz", "quartz-cc", "quartz-c++"):
        if not os.access(os.path.join(bin_dir, tool), os.X_OK):
            return tool
    return None


def plain_and_instrumented(bin_dir, family):
    """The two builds compared, by variant name: the program's own with `family`'s compilers
    ("plain"), and the same through Quartz's wrappers ("quartz"); "-clang" after clang's."""
    cc, cxx = compiler_pair(family)
    suffix = "" if family == "gcc" else "-" + family
    return {"plain" + suffix: {"cc": cc, "cxx": cxx, "family": family},
            "quartz" + suffix: {"cc": os.path.join(bin_dir, "quartz-cc"),
                                "cxx": os.path.join(bin_dir, "quartz-c++"),
                                "env": {"QUARTZ_CC": cc, "QUARTZ_CXX": cxx}, "family": family}}


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def git_tarball(program, directory):
    """A git program's folder at its commit as a tarball (top folder: its name), from a
    clone of its repository made once."""
    url, commit, folder = program.git
    path = os.path.join(directory, program.tarball)
    if os.path.exists(path):
        return path
    os.makedirs(directory, exist_ok=True)
    owner, name = url.rstrip("/").split("/")[-2:]
    clone = os.path.join(directory, "%s+%s.git" % (owner, name))
    if not os.path.isdir(clone):
        done = subprocess.run(["git", "clone", "-q", "--bare", url, clone],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise Failure("cannot clone %s (%s): put a clone at %s" % (
                url, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "git",
                clone))
    partial = path + ".part"
    with open(partial, "wb") as out:
        done = subprocess.run(["git", "-C", clone, "archive", "--prefix=%s/" % program.name,
                               "%s:%s" % (commit, folder)], stdout=out, stderr=subprocess.PIPE,
                              text=False)
    if done.returncode != 0:
        raise Failure("%s: no %s at commit %s in %s" % (program.name, folder, commit, clone))
    os.replace(partial, path)
    return path


def download(program, directory):
    """The program's tarball, downloaded once and checked against its pinned sha256 (a git
    program's made from its pinned commit)."""
    if program.git:
        return git_tarball(program, directory)
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
    """The program built from a fresh copy of its source: its binary's path. `compilers`:
    "cc" and "cxx" (filled into the build command), "family" ("gcc" or "clang": which
    command), and optionally "env", variables exported before the command (the compilers
    quartz-cc and quartz-c++ call, the instrumentation mode). Kept while the command, with
    its exports, stays the same."""
    command = program.build
    if isinstance(command, dict):
        command = command[compilers["family"]]
    command = command.format(cc=compilers["cc"], cxx=compilers["cxx"])
    if compilers.get("env"):
        command = "export %s; %s" % (" ".join("%s=%s" % (name, shlex.quote(value))
                                              for name, value in compilers["env"].items()),
                                     command)
    # The stamp: the command, and the wrappers' own text (a changed wrapper builds anew).
    built_with = command
    for tool in sorted({compilers["cc"], compilers["cxx"]}):
        if os.path.isfile(tool):
            with open(tool, "rb") as f:
                built_with += "\n%s %s" % (tool, hashlib.sha256(f.read()).hexdigest())
    for path, text in sorted(program.files.items()):
        built_with += "\n%s %s" % (path, hashlib.sha256(text.encode()).hexdigest())
    root = os.path.join(directory, "%s-%s" % (program.name, variant))
    stamp = os.path.join(root, "built-with")
    with tarfile.open(tarball) as tar:
        top = tar.getnames()[0].split("/")[0]
    binary = os.path.join(root, top, program.binary)
    if os.path.exists(stamp) and open(stamp).read() == built_with and os.path.exists(binary):
        return binary
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    with tarfile.open(tarball) as tar:
        # The "data" filter, where this Python has it: no links or paths out of `root`.
        tar.extractall(root, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    for path, text in program.files.items():
        with open(os.path.join(root, top, path), "w") as f:
            f.write(text)
    log = os.path.join(root, "build.log")
    with open(log, "w") as out:
        done = subprocess.run(command, shell=True, cwd=os.path.join(root, top), stdout=out,
                              stderr=subprocess.STDOUT)
    if done.returncode != 0 or not os.path.exists(binary):
        raise Failure("%s: the %s build failed (%s): see %s%s" % (
            program.name, variant, command, log,
            "; it needs %s" % ", ".join(program.needs) if program.needs else ""))
    with open(stamp, "w") as f:
        f.write(built_with)
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


def protein_input():
    """A protein alignment (FASTA) of PROTEINS sequences of PROTEIN_SITES: a random
    ancestor evolved along a random tree (a random leaf split in two until there are
    enough, each branch changing 2-10% of the sites), a 1-20 site gap in 30% of the
    sequences, from a fixed seed."""
    rng = random.Random(13)
    amino_acids = "ACDEFGHIKLMNPQRSTVWY"

    def evolve(sequence):
        rate = rng.uniform(0.02, 0.10)
        return "".join(rng.choice(amino_acids) if rng.random() < rate else a
                       for a in sequence)

    leaves = ["".join(rng.choices(amino_acids, k=PROTEIN_SITES))]
    while len(leaves) < PROTEINS:
        parent = leaves.pop(rng.randrange(len(leaves)))
        leaves += [evolve(parent), evolve(parent)]
    fasta = []
    for i, sequence in enumerate(leaves):
        if rng.random() < 0.3:
            start, length = rng.randrange(PROTEIN_SITES - 20), rng.randint(1, 20)
            sequence = sequence[:start] + "-" * length + sequence[start + length:]
        fasta.append(">p%d\n%s\n" % (i, sequence))
    return "".join(fasta).encode()


def adapter_input():
    """Short reads (FASTQ), each a 40-200 base insert from a random 1 Mb genome, then the
    TruSeq adapter, then random bases, cut to SHORT_READ_BASES, with 3 substitutions and
    random qualities; and ADAPTERS adapters (FASTA): TruSeq's and random ones of 30, from a
    fixed seed."""
    rng = random.Random(11)
    truseq = b"AGATCGGAAGAGCACACGTCTGAACTCCAGTCAC"
    genome = bytes(rng.choices(b"ACGT", k=1_000_000))
    qualities = bytes(range(ord("#"), ord("K")))
    fastq = bytearray()
    for r in range(SHORT_READS):
        insert = rng.randint(40, 200)
        start = rng.randrange(len(genome) - insert)
        read = bytearray((genome[start:start + insert] + truseq +
                          bytes(rng.choices(b"ACGT", k=SHORT_READ_BASES)))[:SHORT_READ_BASES])
        for _ in range(3):
            read[rng.randrange(SHORT_READ_BASES)] = rng.choice(b"ACGT")
        fastq += b"@r%d\n%s\n+\n%s\n" % (r, bytes(read),
                                          bytes(rng.choices(qualities, k=SHORT_READ_BASES)))
    adapters = b">truseq\n" + truseq + b"\n" + b"".join(
        b">a%d\n%s\n" % (i, bytes(rng.choices(b"ACGT", k=30))) for i in range(ADAPTERS - 1))
    return bytes(fastq), adapters


def inputs(directory, needed):
    """The generated inputs' paths, by the names the programs' arguments use."""
    os.makedirs(directory, exist_ok=True)
    paths = {"mix": os.path.join(directory, "mix-%dMiB.bin" % MIX_MIB),
             "mix_small": os.path.join(directory, "mix-%dMiB.bin" % MIX_SMALL_MIB),
             "ref": os.path.join(directory, "genome.fa"),
             "reads": os.path.join(directory, "reads.fa"),
             "proteins": os.path.join(directory, "proteins.fa"),
             "fastq": os.path.join(directory, "short-reads.fq"),
             "adapters": os.path.join(directory, "adapters.fa")}

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
    if "proteins" in needed and not os.path.exists(paths["proteins"]):
        write(paths["proteins"], protein_input())
    if ({"fastq", "adapters"} & needed) and not (os.path.exists(paths["fastq"]) and
                                                os.path.exists(paths["adapters"])):
        fastq, adapters = adapter_input()
        write(paths["fastq"], fastq)
        write(paths["adapters"], adapters)
    return paths


def names_in(args):
    return {a[1:-1] for a in args if a.startswith("{") and a.endswith("}")}


def workload(program, paths, threads):
    """The program's arguments, inputs and thread count filled in."""
    return [a.format(threads=threads, **paths) for a in program.args]


def environment(program, threads):
    """The environment of the program's runs: this one with the program's variables, the
    thread count filled in; None (this one) for a program that has none."""
    if not program.env:
        return None
    return dict(os.environ, **{name: value.format(threads=threads)
                               for name, value in program.env.items()})


def timed(command, stdout_path, stderr_path, cwd=None, timeout_s=None, env=None):
    """Runs `command` in `cwd` (with the environment `env`, this one if None) with its
    output in stdout_path: its wall time, seconds. Past `timeout_s` the command's process
    group is killed and the run fails."""
    with open(stdout_path, "wb") as out, open(stderr_path, "ab") as err:
        started = time.perf_counter()
        # Its own process group, so that a timeout ends what it started too (the program
        # under a profiler's command).
        process = subprocess.Popen(command, stdout=out, stderr=err, cwd=cwd, env=env,
                                   start_new_session=timeout_s is not None)
        try:
            status = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise Failure("%s: no end after %d s, stopped" % (" ".join(command), timeout_s))
        elapsed_s = time.perf_counter() - started
    if status != 0:
        raise Failure("%s exited with status %d: see %s" % (" ".join(command), status,
                                                           stderr_path))
    return elapsed_s


def decodes(program, plain_binary, reference, args, threads, work, log):
    """Whether the plain binary decodes `reference` (its own output on `args`) back to the
    input; None for a program that does not decode."""
    if not program.decode:
        return None
    decoded = os.path.join(work, "decoded")
    timed([plain_binary] + [a.format(out=reference, threads=threads) for a in program.decode],
          decoded, log)
    source = [a for a in args if os.path.isfile(a)][0]
    same = sha256_of(decoded) == sha256_of(source)
    os.remove(decoded)
    return same


def compare_outputs(program, plain_binary, args, threads, reference, outputs, work, log):
    """Whether every output is the reference's, byte for byte, and (for the programs that
    decode) whether the plain binary decodes the reference back to the input: a short
    verdict ("same, decodes", "DIFFERS (names)...") and whether it failed."""
    expected = sha256_of(reference)
    differing = [o for o in outputs if sha256_of(o) != expected]
    verdict = "same" if not differing else "DIFFERS (%s)" % ", ".join(
        os.path.basename(o) for o in differing)
    decoded = decodes(program, plain_binary, reference, args, threads, work, log)
    if decoded is not None:
        verdict += ", decodes" if decoded else ", DOES NOT DECODE to its input"
    return verdict, bool(differing) or decoded is False
