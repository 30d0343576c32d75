#!/usr/bin/env python3
"""Accuracy of `quartz predict` (docs/performance.md): record each sample once with --trace,
predict regroupings and procedure changes, then run each for real (`quartz run --placement`
for groupings; a variant of the sample with the procedure really removed, sped up or moved
for procedure changes) and score the predicted ranges against the measured elapsed times.

  bench/predict_accuracy.py [BUILD_DIR] [--runs N] [--save DIR | --from DIR] [--models M,M]

Measured times are the median of N runs (default 3) of the sample's own elapsed_s, without
profiling. Needs a quiet machine: a run (recording or measurement) during which other
processes took more than 5% of the processors (/proc/stat's busy time less this script's
children's) is thrown away and run again; the count is printed.
--save DIR keeps the recordings (DIR/<sample>.db) and the measured times (DIR/measured.json);
--from DIR predicts again from them without recording or measuring (to compare models on
the same recordings); --models is passed to `quartz predict`.

Scores, over every grouping and procedure change (the recorded configuration apart): the
share of measured times inside the predicted range [low, high], the median range width
((high - low) / the most likely figure), and for each sample how much slower the grouping
predicted best measured than the grouping measured best.
"""
import json
import os
import statistics
import sys
import tempfile

import quiet_runs

build = "build"
runs = 3
save = source = models = None
args = sys.argv[1:]
while args:
    a = args.pop(0)
    if a == "--runs":
        runs = int(args.pop(0))
    elif a == "--save":
        save = args.pop(0)
    elif a == "--from":
        source = args.pop(0)
    elif a == "--models":
        models = args.pop(0)
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
    # Unequal workers with a short shared lock (issue 15 item 4): 0 main, worker i is i + 1;
    # "0,1,4|*" puts the shortest and the longest on one processor.
    ("tests/e2e/unequal_workers", [], ["0,1,4|*", "0,1,2|*", "0,1,3|*"],
     [("--speedup", "do_chunk=50", ["--chunk-us", "100"])]),
]


def program(sample):
    """A sample's path: build/samples/NAME, or a path under the build directory."""
    return f"{build}/{sample}" if "/" in sample else f"{build}/samples/{sample}"


def run(cmd):
    return quiet_runs.run(cmd, "predict_accuracy")


def quiet_run(cmd):
    return quiet_runs.quiet_run(cmd, "predict_accuracy")[0]


def elapsed(out):
    for line in out.splitlines():
        if line.startswith("elapsed_s="):
            return float(line.split("=", 1)[1])
    sys.exit("predict_accuracy: the sample printed no elapsed_s")


measured_times = {}
if source:
    with open(f"{source}/measured.json") as f:
        measured_times = json.load(f)


def measure(sample, sample_args, placement=None):
    key = " ".join([sample] + sample_args + (["--placement", placement] if placement else []))
    if source:
        return measured_times[key]
    cmd = [quartz, "run", "--no-profile", "-q"]
    if placement:
        cmd += ["--placement", placement]
    cmd += ["--", program(sample)] + sample_args
    measured_times[key] = statistics.median(elapsed(quiet_run(cmd)) for _ in range(runs))
    return measured_times[key]


def error(predicted, measured):
    return 100.0 * (predicted - measured) / measured


rows = []
recorded_errors, group_errors, procedure_errors = [], [], []
inside, widths, best_losses = [], [], []


def score(sample, errors, question, predicted, measured):
    """One answer (a grouping or a change) against its measured time: error, range, row."""
    e = error(predicted["predicted_s"], measured)
    errors.append(abs(e))
    inside.append(predicted["low_s"] <= measured <= predicted["high_s"])
    widths.append(100.0 * predicted["width"])
    rows.append((sample, question, predicted["predicted_s"], predicted, measured, e))


tmp = tempfile.TemporaryDirectory()
stores = source or save or tmp.name
if save:
    os.makedirs(save, exist_ok=True)
for sample, sample_args, groupings, changes in CASES:
    store = f"{stores}/{os.path.basename(sample)}.db"
    if not source:
        if os.path.exists(store):
            os.remove(store)
        quiet_run([quartz, "run", "--trace", "-q", "--store", store, "--", program(sample)] +
                  sample_args)
    questions = []
    for g in groupings:
        questions += ["--group", g]
    for flag, value, _ in changes:
        questions += [flag, value]
    if models:
        questions += ["--models", models]
    p = json.loads(run([quartz, "predict", "--store", store, "--json", "--no-save"] + questions))
    measured = measure(sample, sample_args)
    # The recording replayed alone, as the plain program runs (its range is the check's,
    # beside the sampler, against the recorded time: not scored here).
    e = error(p["base_s"], measured)
    recorded_errors.append(abs(e))
    rows.append((sample, "as recorded, alone (unpinned, P=%d)" % p["processors"], p["base_s"],
                 None, measured, e))
    grouping_measured = []
    for g, predicted in zip(groupings, p["groupings"]):
        m = measure(sample, sample_args, g)
        grouping_measured.append(m)
        score(sample, group_errors, f"--group \"{g}\" ({predicted['names']})", predicted, m)
    if len(grouping_measured) > 1:
        verdict = p["groupings_best"]
        chosen = grouping_measured[verdict["best"]]
        best_losses.append((sample, 100.0 * (chosen / min(grouping_measured) - 1),
                            verdict["separated"], len(verdict["tied"])))
    for (flag, value, variant), predicted in zip(changes, p["procedures"]):
        m = measure(sample, sample_args + variant)
        score(sample, procedure_errors, f"{flag} {value} (vs {' '.join(variant)})", predicted, m)
    models_used = [m["name"] for m in p["models"]]
if not source:
    print(f"runs discarded because other processes took over "
          f"{100 * quiet_runs.QUIET:.0f}% of the processors: {quiet_runs.discarded}")
if save:
    with open(f"{save}/measured.json", "w") as f:
        json.dump(measured_times, f, indent=1)

print("models:", ", ".join(models_used))
print()
print("| sample | question | predicted s | range s | width | measured s | inside | error |")
print("|---|---|---:|---:|---:|---:|:-:|---:|")
for sample, question, predicted, r, measured, e in rows:
    if r is None:
        print(f"| {sample} | {question} | {predicted:.3f} | - | - | {measured:.3f} | - | {e:+.1f}% |")
        continue
    within = "yes" if r["low_s"] <= measured <= r["high_s"] else "**no**"
    print(f"| {sample} | {question} | {predicted:.3f} | {r['low_s']:.3f}-{r['high_s']:.3f} | "
          f"{100 * r['width']:.1f}% | {measured:.3f} | {within} | {e:+.1f}% |")
print()


def summary(name, errors):
    if errors:
        print(f"{name}: median |error| {statistics.median(errors):.1f}%, max {max(errors):.1f}% ({len(errors)} cases)")


summary("recorded configuration", recorded_errors)
summary("regroupings", group_errors)
summary("procedure changes", procedure_errors)
print(f"groupings and changes inside the range: {sum(inside)} of {len(inside)} "
      f"({100.0 * sum(inside) / len(inside):.0f}%; target 90%)")
print(f"median range width: {statistics.median(widths):.1f}% (target under 10%)")
print("predicted best grouping, measured against the measured best (target: never over 5% slower):")
for sample, loss, separated, tied in best_losses:
    status = "separated" if separated else f"not separated from {tied} other(s)"
    print(f"  {sample}: {loss:+.1f}% ({status})")
if best_losses:
    print(f"  worst: {max(l for _, l, _, _ in best_losses):+.1f}%")
