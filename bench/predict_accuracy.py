#!/usr/bin/env python3
"""Accuracy of `quartz predict` (docs/performance.md): record each sample once with --trace,
predict regroupings and procedure changes, then run each for real (`quartz run --placement`
for groupings; a variant of the sample with the procedure really removed, sped up or moved
for procedure changes) and tabulate predicted against measured elapsed time.

  bench/predict_accuracy.py [BUILD_DIR] [--runs N]

Measured times are the median of N runs (default 3) of the sample's own elapsed_s, without
profiling. Needs a quiet machine: anything else running moves the measurements.
"""
import json
import statistics
import subprocess
import sys
import tempfile

build = "build"
runs = 3
args = sys.argv[1:]
while args:
    a = args.pop(0)
    if a == "--runs":
        runs = int(args.pop(0))
    else:
        build = a
quartz = f"{build}/bin/quartz"

# sample, its arguments, groupings (every thread named, '*' for the rest), procedure
# changes as (question flag, value, the sample's arguments that really make the change).
CASES = [
    ("pairs", [], ["0,1,2|*", "0,1,3|*", "*"],
     [("--zero", "pong_work", ["--pong-us", "0"])]),
    ("client_server", ["--requests", "600"], ["0,1|*", "0,1,2|*", "*"],
     [("--zero", "serve_class_b", ["--b-us", "0"]),
      ("--migrate", "serve_class_b", ["--clients-serve-b", "1"])]),
    ("pipeline", ["--items", "300"], ["0,2|*", "0,1,2|*", "*"],
     [("--speedup", "stage_transform=66.667", ["--slow-factor", "1"])]),
    ("imbalance", ["--unit-ms", "100"], ["0,1,4|*", "0,3,4|*", "*"],
     [("--speedup", "do_share=50", ["--unit-ms", "50"])]),
    ("lock_contention", ["--iterations", "1000"], ["0,1,2|*", "*"],
     [("--zero", "update_shared_state", ["--hold-us", "0"])]),
    ("serial_init", ["--kernels", "8"], ["0,1|*", "*"],
     [("--zero", "log_message", ["--log-lines", "0"])]),
    # Condition-variable programs of the e2e tests (issue 15 item 1): 0 main, 1-3
    # consumers, 4 the producer; 0 the submitter, 1-3 the pool's workers.
    ("tests/e2e/producer_consumers", [], ["0,4|*", "*"],
     [("--zero", "consume_items", ["--consume-us", "0"])]),
    ("tests/e2e/thread_pool", [], ["0,1|*", "*"],
     [("--zero", "run_task", ["--task-us", "0"])]),
]


def program(sample):
    """A sample's path: build/samples/NAME, or a path under the build directory."""
    return f"{build}/{sample}" if "/" in sample else f"{build}/samples/{sample}"


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"predict_accuracy: {' '.join(cmd)} failed: {r.stderr.strip()}")
    return r.stdout


def elapsed(out):
    for line in out.splitlines():
        if line.startswith("elapsed_s="):
            return float(line.split("=", 1)[1])
    sys.exit("predict_accuracy: the sample printed no elapsed_s")


def measure(sample, sample_args, placement=None):
    cmd = [quartz, "run", "--no-profile", "-q"]
    if placement:
        cmd += ["--placement", placement]
    cmd += ["--", program(sample)] + sample_args
    return statistics.median(elapsed(run(cmd)) for _ in range(runs))


def error(predicted, measured):
    return 100.0 * (predicted - measured) / measured


rows = []
recorded_errors, group_errors, procedure_errors = [], [], []
with tempfile.TemporaryDirectory() as tmp:
    store = f"{tmp}/accuracy.db"
    for sample, sample_args, groupings, changes in CASES:
        run([quartz, "run", "--trace", "-q", "--store", store, "--", program(sample)] + sample_args)
        questions = []
        for g in groupings:
            questions += ["--group", g]
        for flag, value, _ in changes:
            questions += [flag, value]
        p = json.loads(run([quartz, "predict", "--store", store, "--json", "--no-save"] + questions))
        measured = measure(sample, sample_args)
        e = error(p["recorded_s"], measured)
        recorded_errors.append(abs(e))
        rows.append((sample, "as recorded (unpinned, P=%d)" % p["processors"], p["recorded_s"], measured, e))
        for g, predicted in zip(groupings, p["groupings"]):
            m = measure(sample, sample_args, g)
            e = error(predicted["predicted_s"], m)
            group_errors.append(abs(e))
            rows.append((sample, f"--group \"{g}\" ({predicted['names']})", predicted["predicted_s"], m, e))
        for (flag, value, variant), predicted in zip(changes, p["procedures"]):
            m = measure(sample, sample_args + variant)
            e = error(predicted["predicted_s"], m)
            procedure_errors.append(abs(e))
            rows.append((sample, f"{flag} {value} (vs {' '.join(variant)})", predicted["predicted_s"], m, e))

print("| sample | question | predicted s | measured s | error |")
print("|---|---|---:|---:|---:|")
for sample, question, predicted, measured, e in rows:
    print(f"| {sample} | {question} | {predicted:.3f} | {measured:.3f} | {e:+.1f}% |")
print()


def summary(name, errors):
    if errors:
        print(f"{name}: median |error| {statistics.median(errors):.1f}%, max {max(errors):.1f}% ({len(errors)} cases)")


summary("recorded configuration", recorded_errors)
summary("regroupings", group_errors)
summary("procedure changes", procedure_errors)
