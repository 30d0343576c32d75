// `quartz help COMMAND`: each command's options.
#include <string>

#include "cli/command_line.h"
#include "cli/commands.h"

namespace quartz::cli {

// Each line of the help text as it is printed.
// clang-format off
std::string command_help(const std::string& command) {
  if (command == "run") {
    return "usage: quartz run [options] -- PROGRAM [ARGS...]\n"
           "  Runs PROGRAM with libquartz preloaded, samples it, and stores the run.\n"
           "  -o, --output FILE       capture file (default: quartz-captures/ next to the store)\n"
           "  --store STORE           experiment store: a file or a postgresql:// URI\n"
           "                          (default: ./quartz.db or $QUARTZ_STORE)\n"
           "  --no-import             write the capture only\n"
           "  --label KEY=VALUE       label the run (repeatable; e.g. branch=main, ci=1234)\n"
           "  -q, --quiet             no messages from quartz\n"
           "  --baseline              first run PROGRAM once without profiling (its input and\n"
           "                          output /dev/null) and record its processor and elapsed\n"
           "                          time: the report gives the profiler's dilation and\n"
           "                          'quartz predict' removes the measured overhead. Only for\n"
           "                          programs that may run twice (QUARTZ_BASELINE)\n"
           "  The runtime's options (each also read from its QUARTZ_* variable when it is in\n"
           "  the environment; a flag overrides it):\n"
           "  --period-us N           time between samples, microseconds (default: 1000 with a\n"
           "                          reserved core, 2000 when sharing the processors)\n"
           "                          (QUARTZ_PERIOD_US)\n"
           "  --checkpoint-ms N       rewrite the capture this often (default 1000)\n"
           "                          (QUARTZ_CHECKPOINT_MS)\n"
           "  --budget PCT            patched entries may cost PCT% of the program's own\n"
           "                          processor time; past it the costliest are turned off\n"
           "                          early in the run (default 5; 0: every call counted)\n"
           "                          (QUARTZ_BUDGET)\n"
           "  --procedures GLOBS      patch only the entries of the functions whose symbol\n"
           "                          matches one of these comma-separated patterns (C++:\n"
           "                          mangled names, e.g. '*Sorter*,main') (QUARTZ_PROCEDURES)\n"
           "  --reserve, --no-reserve reserve a core for the sampler, all its hardware\n"
           "                          threads (default: with 8+ cores) (QUARTZ_RESERVE)\n"
           "  --reserved-cores LIST   the processors to reserve (e.g. 7 or 7,71; implies\n"
           "                          --reserve) (QUARTZ_RESERVED_CORES)\n"
           "  --sampler-priority P    realtime (default: the sampler keeps its period among\n"
           "                          many threads; normal when not permitted) or normal\n"
           "                          (QUARTZ_SAMPLER_PRIORITY)\n"
           "  --stack-capacity N      profile stack entries per thread (default 512)\n"
           "                          (QUARTZ_STACK_CAPACITY)\n"
           "  --objects-log2 N        synchronization objects: the table starts with 2^N and\n"
           "                          grows to 255 x 2^N (default 14, up to 24)\n"
           "                          (QUARTZ_OBJECTS_LOG2)\n"
           "  --call-graph-log2 N     process-wide call edges: the table starts with 2^N and\n"
           "                          grows to 255 x 2^N (default 16, up to 24)\n"
           "                          (QUARTZ_CALL_GRAPH_LOG2)\n"
           "  --thread-edges-log2 N   call edges counted per thread before the process-wide\n"
           "                          table: 2^N (default 10) (QUARTZ_THREAD_EDGES_LOG2)\n"
           "  --thread-objects-log2 N objects counted per thread before the process-wide\n"
           "                          table: 2^N (default 8) (QUARTZ_THREAD_OBJECTS_LOG2)\n"
           "  --follow-exec           also profile programs PROGRAM executes (QUARTZ_FOLLOW_EXEC)\n"
           "  --trace                 also record synchronization events for 'quartz predict'\n"
           "                          (written to CAPTURE.trace and stored with the run)\n"
           "                          (QUARTZ_TRACE)\n"
           "  --trace-capacity N      events queued per thread between drains (default 16384;\n"
           "                          implies --trace) (QUARTZ_TRACE_CAPACITY)\n"
           "  --trace-cpu-us N        a traced thread reads its CPU clock at most this often\n"
           "                          (default 50; implies --trace) (QUARTZ_TRACE_CPU_US)\n"
           "  --placement SPEC        pin threads to cores: groups separated by '|', members\n"
           "                          by ',': thread indices, names (NAME* matches a prefix)\n"
           "                          or '*' for the rest; group i runs on the i-th processor\n"
           "                          (QUARTZ_PLACEMENT)\n"
           "  --no-profile            run with --placement only: no sampling, no capture\n"
           "  --disable               load the runtime but leave it idle: no capture, no\n"
           "                          placement (QUARTZ_DISABLE)\n"
           "  The exit status is PROGRAM's (128+N if killed by signal N).\n";
  }
  if (command == "compare") {
    return "usage: quartz compare A B [options]\n"
           "  What changed from A to B, each a run or a comma-separated series of runs of the\n"
           "  same program (3,4,5): the elapsed time, each procedure's and lock's normalized\n"
           "  time (matched by name; those beyond noise), and the findings that appeared or\n"
           "  went away. Noise: the runs' sampling, and with several runs a side their spread.\n"
           "  --store STORE           experiment store: a file or a postgresql:// URI\n"
           "                          (default: ./quartz.db or $QUARTZ_STORE)\n"
           "  --json                  JSON output\n"
           "  --fail-if-slower PCT    exit with status 1 when B is more than PCT% slower than A,\n"
           "                          beyond noise (a performance gate in CI)\n";
  }
  if (command == "scale") {
    return "usage: quartz scale [options] -- PROGRAM [ARGS...]\n"
           "       quartz scale --series RUN [options]\n"
           "  Runs PROGRAM under 'quartz run' on 1, 2, .. P processors (the program's affinity),\n"
           "  stores the runs as a series and reports speedup, efficiency, non-scalability,\n"
           "  and where the time lost as processors are added goes, by procedure, object and\n"
           "  thread. The program's output goes to standard error.\n"
           "  --processors LIST       processor counts, e.g. 1,2 (default: 1 to all allowed)\n"
           "  --repeat N              runs per count, interleaved; the median counts (default 1)\n"
           "  --series RUN            report the stored series RUN belongs to; run nothing\n"
           "  --top N                 regions listed (default 10)\n"
           "  --store STORE           experiment store: a file or a postgresql:// URI\n"
           "                          (default: ./quartz.db or $QUARTZ_STORE)\n"
           "  --json                  JSON output\n";
  }
  if (command == "diagnose") {
    return "usage: quartz diagnose [RUN] [options]\n"
           "  What is wrong with a run: performance properties (serial bottleneck, lock\n"
           "  contention, spin waste, load imbalance, oversubscription, blocking), each with\n"
           "  its severity (the share of the elapsed time it explains), its confidence, the\n"
           "  evidence and what to do. RUN: an id, 'latest' (default) or a capture file.\n"
           "  --store STORE           experiment store: a file or a postgresql:// URI\n"
           "                          (default: ./quartz.db or $QUARTZ_STORE)\n"
           "  --json                  JSON output\n"
           "  --min-severity PCT      leave out findings below PCT% of elapsed (default 1)\n"
           "  --all-frames            name system code (std::, the C library) in findings too,\n"
           "                          instead of the program's procedure that called it\n";
  }
  if (command == "report") {
    return "usage: quartz report [RUN] [--format F] [-o PATH] [--json] [--top N] [--all-frames]\n"
           "                     [--store STORE]\n"
           "  RUN: a run number, 'latest' (the default), or a capture file.\n"
           "  --format F   text (default), json, pprof (gzipped profile.proto), collapsed\n"
           "               (flame graph stacks), chrome-trace (timeline of a --trace run),\n"
           "               csv (every table into the directory -o DIR, or --table NAME:\n"
           "               parallelism, procedures, call_graph, locks, threads, contexts)\n"
           "  -o, --output PATH  write there instead of to standard output\n"
           "  --top N      rows per table (default 20)\n"
           "  --all-frames show system code (std::, the C library) as procedures of its own;\n"
           "               by default its time is the program's procedure that called it\n"
           "  --store STORE the store: a file or a postgresql:// URI (default: ./quartz.db or\n"
           "               $QUARTZ_STORE)\n";
  }
  if (command == "import") {
    return "usage: quartz import CAPTURE... [--label KEY=VALUE]... [--store STORE]\n"
           "  Stores capture files (and CAPTURE.trace next to one) as runs. A capture already\n"
           "  stored is not stored again: its run is named, and the status is 1.\n"
           "  --label KEY=VALUE       label the runs (e.g. branch=main), to find them with\n"
           "                          'quartz list --label'\n";
  }
  if (command == "predict") {
    return "usage: quartz predict [RUN] [questions] [--json] [--store STORE]\n"
           "  Predicts from a run recorded with 'quartz run --trace' (RUN: a run number,\n"
           "  'latest' (the default), or a capture file with CAPTURE.trace next to it).\n"
           "  Always: the recorded configuration replayed (the model's error) and the\n"
           "  critical path. Every answer is a range: its figure under each plausible\n"
           "  scheduler model, the most likely one's given too. Questions, each may be\n"
           "  repeated:\n"
           "  --group SPEC            elapsed time with threads grouped onto processors, one\n"
           "                          per group: \"0,1|2,3\" (indices, names, NAME*, '*' = the rest)\n"
           "  --cores K               the best groupings of the threads onto K processors\n"
           "  --zero PROC             if procedure PROC took no time\n"
           "  --speedup PROC=PCT      if PROC took PCT% less time\n"
           "  --migrate PROC          if PROC ran on the thread its next signal or post wakes\n"
           "  --best N                groupings listed per --cores (default 5)\n"
           "  --models M,M            scheduler models to replay under, the most likely first\n"
           "                          (default: barging,fair+wake_to_last+no_pull+barging,\n"
           "                          turns+instant_wake+barging,run_to_block+instant_wake+\n"
           "                          wake_to_last+no_pull+barging,fair): fair, slices,\n"
           "                          turns or run_to_block, then +instant_wake,\n"
           "                          +wake_to_last, +no_pull, +barging (e.g. slices+barging);\n"
           "                          when the first barges, a model without +barging keeps\n"
           "                          the recorded lock order and counts in the recorded\n"
           "                          configuration's range only\n"
           "  --allow-drops           predict even if the trace lost events\n"
           "  --no-save               do not store the predictions with the run\n";
  }
  if (command == "check") {
    return "usage: quartz check [RUN] [--store STORE]\n"
           "  Checks the figures every run must have, whatever the program: none negative or\n"
           "  NaN; the parallelism bins add up to the elapsed time; normalized time at most\n"
           "  processor time; fewer threads waiting for an object than the run had; each\n"
           "  thread's state times add up to its lifetime (within a sampling period), its busy\n"
           "  and processor time at most its lifetime. Prints 'ok', or each figure that cannot\n"
           "  be on a line of its own and exits with status 1. RUN: an id, 'latest' (default)\n"
           "  or a capture file.\n"
           "  --store STORE           experiment store: a file or a postgresql:// URI\n"
           "                          (default: ./quartz.db or $QUARTZ_STORE)\n";
  }
  if (command == "list") {
    return "usage: quartz list [--label KEY=VALUE]... [--host HOST] [--store STORE]\n"
           "  The runs in the store, one a line, with their labels (and hosts, when they are\n"
           "  several). Reads a read-only store too.\n"
           "  --label KEY=VALUE       only the runs with this label (all of those given)\n"
           "  --host HOST             only the runs made on HOST\n";
  }
  if (command == "push") {
    return "usage: quartz push --to STORE [RUNS...] [--store STORE]\n"
           "       quartz push --from STORE [RUNS...] [--store STORE]\n"
           "  Copies runs (all, or the run numbers given) of the store (--store, default\n"
           "  ./quartz.db or $QUARTZ_STORE) to STORE, or of STORE into it: each with its\n"
           "  capture, trace, predictions, labels, build and the links between the runs\n"
           "  copied. A run already there (the same capture) is named and not copied again.\n"
           "  STORE is a file or a server (postgresql://USER@HOST/DATABASE; the password from\n"
           "  PGPASSWORD or ~/.pgpass).\n";
  }
  throw UsageError("help: unknown command '" + command + "'");
}

// clang-format on

}  // namespace quartz::cli
