#!/usr/bin/env python3
"""Checks a `quartz report --json` of a program built outside Quartz's tree.

  check_report.py REPORT.json --procedure NAME FILE:LINE ... [--standard-library yes|no]

--procedure: the report names procedure NAME at FILE:LINE (where the source defines it).
--standard-library: whether the report has procedures of the C++ standard library (std::,
__gnu_cxx::), which instrumentation leaves out by default and keeps on request (give it a
report made with --all-frames: reports fold system code into its callers by default).
"""
import argparse
import json
import sys

STANDARD_LIBRARY_NAMESPACES = ("std::", "__gnu_cxx::")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("--procedure", nargs=2, action="append", default=[],
                        metavar=("NAME", "LOCATION"))
    parser.add_argument("--standard-library", choices=("yes", "no"))
    args = parser.parse_args()
    with open(args.report) as f:
        procedures = json.load(f)["procedures"]
    where = {p["name"]: p.get("location", "") for p in procedures}
    failures = []
    for name, location in args.procedure:
        if name not in where:
            failures.append(f"no procedure {name!r} in the report")
        elif where[name] != location:
            failures.append(f"{name!r} is at {where[name]!r}, not {location!r}")
    # Of the library's namespaces: not a procedure of the program's that takes their types.
    standard = [n for n in where if n.startswith(STANDARD_LIBRARY_NAMESPACES)]
    if args.standard_library == "no" and standard:
        failures.append(f"{len(standard)} standard library procedures, e.g. {standard[0]!r}")
    if args.standard_library == "yes" and not standard:
        failures.append("no standard library procedure")
    for failure in failures:
        print(f"{args.report}: {failure}", file=sys.stderr)
    if failures:
        print("procedures: " + ", ".join(sorted(where)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
