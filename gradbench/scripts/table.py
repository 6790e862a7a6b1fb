#!/usr/bin/env python3
"""Times every eval through GradBench's own Python evals, for this tool and for one of GradBench's C++
tools (`manual`, or `--cpp-tool tapenade`), and prints a table of docs/gradbench.md: per workload,
each tool's median primal and derivative times and their ratio, and our derivative against theirs.

    python3 gradbench/scripts/table.py --gradbench /path/to/gradbench --python /path/to/venv/bin/python \\
        --tool target/release/autodiff-gradbench --min-seconds 0.5 > table.md

Each eval runs through `validate.py` (so every answer is also validated; a row whose answer was not
valid is marked), with the workloads listed in `WORKLOADS` below (a subset of GradBench's defaults, to
keep the run to about a quarter of an hour). The C++ tool runs through `cpp_tool.py`, needing
`tools/<tool>/bin/<eval>` built in the checkout (`manual` has no `particle` or `saddle`; `tapenade` has
`gmm`, `ba`, `ht` and `lstm`): where it has no binary its columns say n/a.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

# (eval, arguments for its run.py, primal function, derivative function)
WORKLOADS = [
    ("lse", ["-n", "10000", "1280000"], "primal", "gradient"),
    ("llsq", ["-n", "1024", "16392"], "primal", "gradient"),
    ("ode", ["-n", "1000", "100000", "-s", "10"], "primal", "gradient"),
    ("det", ["-l", "7", "11"], "primal", "gradient"),
    ("kmeans", ["-k", "10", "100", "-n", "1000", "-d", "8"], "cost", "dir"),
    ("gmm", ["-d", "2", "10", "64", "-k", "5", "25"], "objective", "jacobian"),
    ("ba", ["--min", "1", "--max", "2"], "objective", "jacobian"),
    ("ht", ["--min", "1", "--max", "11"], "objective", "jacobian"),
    ("lstm", ["-l", "2", "4", "-c", "1024", "4096"], "objective", "jacobian"),
    ("particle", [], None, None),
    ("saddle", [], None, None),
]

HERE = os.path.dirname(os.path.abspath(__file__))


def run(args, tool, eval_name, eval_args):
    """The records `validate.py` writes for one eval and one tool, keyed by (function, description)."""
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as out:
        subprocess.run(
            [
                sys.executable,
                os.path.join(HERE, "validate.py"),
                "--gradbench", args.gradbench,
                "--python", args.python,
                "--tool", tool,
                "--json", out.name,
                eval_name,
                "--",
                "--min-seconds", str(args.min_seconds),
                *eval_args,
            ],
            stdout=sys.stderr,
            check=False,
        )
        records = [json.loads(line) for line in out]
    return {(r["function"], r["description"]): r for r in records}


def fmt_time(ns):
    if ns is None:
        return "n/a"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "n/a"


def time_of(record):
    if record is None or not record.get("success"):
        return None
    return record["median_ns"]


def mark(record):
    return "" if record is None or record.get("verdict") == "valid" else " (not valid)"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gradbench", required=True)
    parser.add_argument("--python", required=True)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--min-seconds", type=float, default=0.5)
    parser.add_argument("--cpp-tool", default="manual", help="the C++ tool to compare with")
    parser.add_argument("--only", nargs="*", help="evals to run (default: all)")
    args = parser.parse_args()
    cpp_tool = f"{args.python} {os.path.join(HERE, 'cpp_tool.py')} {args.cpp_tool}"
    name = args.cpp_tool

    print(f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at the start; medians of runs of at least "
          f"{args.min_seconds} s in total.\n")
    print("| eval | workload | ours: primal | ours: derivative | ours: derivative / primal "
          f"| {name}: primal | {name}: derivative | {name}: derivative / primal | ours / {name}, derivative |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for eval_name, eval_args, primal, derivative in WORKLOADS:
        if args.only and eval_name not in args.only:
            continue
        ours = run(args, args.tool, eval_name, eval_args)
        if primal is None:
            # particle and saddle: four functions, no primal, no C++ tool to compare with.
            for (function, description), r in ours.items():
                print(f"| {eval_name} (`{function}`) | {description} | | {fmt_time(time_of(r))}{mark(r)} "
                      f"| | | | | |")
            sys.stdout.flush()
            continue
        theirs = run(args, cpp_tool, eval_name, eval_args)
        descriptions = [d for (f, d) in ours if f == derivative]
        for description in descriptions:
            op, od = ours.get((primal, description)), ours.get((derivative, description))
            mp, md = theirs.get((primal, description)), theirs.get((derivative, description))
            print(
                f"| {eval_name} (`{derivative}`) | {description} "
                f"| {fmt_time(time_of(op))}{mark(op)} | {fmt_time(time_of(od))}{mark(od)} "
                f"| {ratio(time_of(od), time_of(op))} "
                f"| {fmt_time(time_of(mp))} | {fmt_time(time_of(md))} "
                f"| {ratio(time_of(md), time_of(mp))} | {ratio(time_of(od), time_of(md))} |"
            )
        sys.stdout.flush()
    print(f"\nLoad average {os.getloadavg()[0]:.1f} at the end.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
