#!/usr/bin/env python3
"""Reads the CSV tables of `quartz report --format csv -o DIR` with Python's csv module and
compares every row with `quartz report --json` of the same run: the same records, in the
same order, with the same numbers (exactly: both print the shortest form that reads back as
the same double).

usage: check_csv.py DIR REPORT.json
Prints "checked N values" and exits 0, or prints the differences and exits 1.
"""
import csv
import json
import os
import sys


def read(directory, table):
    with open(os.path.join(directory, table + ".csv"), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def main(directory, report_path):
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    problems = []
    checked = 0

    def same(where, text, expected):
        nonlocal checked
        checked += 1
        if isinstance(expected, float) or (isinstance(expected, int) and not isinstance(expected, bool)):
            ok = text != "" and float(text) == float(expected)
        elif expected is None:
            ok = text == ""
        else:
            ok = text == str(expected)
        if not ok:
            problems.append("%s: csv %r, json %r" % (where, text, expected))

    def rows(table, records, columns):
        got = read(directory, table)
        if len(got) != len(records):
            problems.append("%s: %d rows, json has %d" % (table, len(got), len(records)))
            return
        for n, (row, record) in enumerate(zip(got, records)):
            for column, value in columns(record).items():
                same("%s row %d %s" % (table, n, column), row[column], value)

    parallelism = report["parallelism_s"]
    rows("parallelism", list(enumerate(parallelism)),
         lambda r: {"processors_busy": r[0], "elapsed_s": r[1]})
    busy = lambda h: {"normalized_%d_busy_s" % i: v for i, v in enumerate(h)}
    rows("procedures", report["procedures"], lambda p: {
        "name": p["name"], "location": p["location"], "address": p["address"], "calls": p["calls"],
        "normalized_s": p["normalized_s"], "normalized_self_s": p["normalized_self_s"],
        "processor_s": p["processor_s"], "processor_self_s": p["processor_self_s"],
        "busy_s": p["state_s"]["busy"], "spinning_s": p["state_s"]["spinning"],
        "blocked_s": p["state_s"]["blocked"], "ready_s": p["state_s"]["ready"],
        **busy(p["histogram_s"])})
    rows("locks", report["locks"], lambda l: {
        k: l[k] for k in ("name", "kind", "address", "normalized_s", "wait_s", "wait_spinning_s",
                          "wait_blocked_s", "hold_s", "acquisitions", "contended", "posts",
                          "mean_wait_s", "mean_queue")})
    rows("threads", report["threads"], lambda t: {
        "index": t["index"], "parent": t["parent"], "name": t["name"],
        "normalized_s": t["normalized_s"], "busy_s": t["busy_s"], "spinning_s": t["spin_s"],
        "blocked_s": t["blocked_s"], "ready_s": t["ready_s"], "cpu_s": t["cpu_s"],
        "calls": t["calls"]})
    rows("contexts", report["contexts"], lambda c: {
        **{k: c[k] for k in ("id", "parent", "name", "kind", "address", "calls", "normalized_s",
                             "normalized_self_s", "processor_s", "processor_self_s",
                             "wait_self_s")},
        **busy(c["histogram_s"])})
    # The call graph: each procedure's children in the JSON, found among the CSV's rows.
    graph = {}
    for row in read(directory, "call_graph"):
        graph.setdefault(row["parent"], []).append(row)
    for p in report["procedures"]:
        got = graph.get(p["name"], [])
        if len(got) != len(p["children"]):
            problems.append("call_graph %s: %d children, json has %d"
                            % (p["name"], len(got), len(p["children"])))
            continue
        for row, child in zip(got, p["children"]):
            for k in ("name", "normalized_s", "share", "calls"):
                same("call_graph %s -> %s %s" % (p["name"], child["name"], k),
                     row["child" if k == "name" else k], child[k])

    if problems:
        print("\n".join(problems[:30]))
        return 1
    print("checked %d values" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
