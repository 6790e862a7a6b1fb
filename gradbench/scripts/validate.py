#!/usr/bin/env python3
"""Runs one of GradBench's Python evals against a tool, without Docker and without GradBench's CLI.

GradBench's harness (`gradbench run`) starts an eval process and a tool process and relays each line the
eval writes to the tool and each answer back. This script does the same relay, records every `analysis`
message the eval sends (its validation of one `evaluate` answer) and prints one line per evaluation:

    eval function description: valid|INVALID|FAILED  median=<ns>  runs=<n>

The eval runs in a checkout of github.com/gradbench/gradbench (`--gradbench`, its working directory),
with its Python package importable (`pip install -e python/gradbench numpy scipy pydantic dataclasses-json`)
and, for the evals whose answers are checked against GradBench's C++ `manual` tool, that tool built in
`tools/manual/bin` (`make -C tools/manual bin/<eval>`). Arguments after `--` go to the eval.

    python3 gradbench/scripts/validate.py --gradbench /path/to/gradbench --tool target/release/autodiff-gradbench \\
        --json results.jsonl lse -- --min-seconds 0.1

GradBench's C++ tools run as tools too: `--tool "python3 /path/to/cpp_tool.py manual"` (see there).

The exit code is 1 if any evaluation failed or was found invalid.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gradbench", required=True, help="checkout of gradbench/gradbench")
    parser.add_argument(
        "--tool", required=True, help="the tool's command, run in the checkout (split as a shell does)"
    )
    parser.add_argument("--python", default=sys.executable, help="Python with the gradbench package")
    parser.add_argument("--json", help="append one JSON line per evaluation to this file")
    parser.add_argument("eval")
    parser.add_argument("eval_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    eval_args = [a for a in args.eval_args if a != "--"]

    eval_proc = subprocess.Popen(
        [args.python, "-m", f"gradbench.evals.{args.eval}.run", *eval_args],
        cwd=args.gradbench,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    tool = shlex.split(args.tool)
    if os.path.exists(tool[0]):
        tool[0] = os.path.abspath(tool[0])
    tool_proc = subprocess.Popen(
        tool, cwd=args.gradbench, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    evaluations = {}
    failures = 0
    out = open(args.json, "a") if args.json else None
    for line in eval_proc.stdout:
        message = json.loads(line)
        if message["kind"] == "end":
            break
        tool_proc.stdin.write(line)
        tool_proc.stdin.flush()
        answer_line = tool_proc.stdout.readline()
        if not answer_line:
            print(f"{args.eval}: the tool closed its output", file=sys.stderr)
            return 1
        answer = json.loads(answer_line)
        if message["kind"] == "define" and not answer.get("success"):
            print(f"{args.eval}: define failed: {answer}")
            failures += 1
        if message["kind"] == "evaluate":
            timings = sorted(t["nanoseconds"] for t in answer.get("timings", []))
            record = {
                "eval": args.eval,
                "function": message["function"],
                "description": message.get("description", ""),
                "success": answer.get("success", False),
                "median_ns": timings[len(timings) // 2] if timings else None,
                "runs": len(timings),
                "error": answer.get("error"),
            }
            evaluations[message["id"]] = record
            if not record["success"]:
                failures += 1
                report(record, "FAILED", out)
        if message["kind"] == "analysis":
            record = evaluations[message["of"]]
            record["valid"] = message["valid"]
            if not message["valid"]:
                failures += 1
                record["error"] = message.get("error")
            report(record, "valid" if message["valid"] else "INVALID", out)
        eval_proc.stdin.write(answer_line)
        eval_proc.stdin.flush()
    eval_proc.stdin.close()
    tool_proc.stdin.close()
    eval_proc.wait()
    tool_proc.wait()
    if eval_proc.returncode != 0:
        print(f"{args.eval}: the eval exited with {eval_proc.returncode}")
        failures += 1
    return 1 if failures else 0


def report(record, verdict, out):
    print(
        f"{record['eval']} {record['function']} {record['description']}: {verdict}"
        f"  median={record['median_ns']}  runs={record['runs']}",
        flush=True,
    )
    if record.get("error"):
        print("    " + str(record["error"]).replace("\n", "\n    ")[:2000], flush=True)
    if out:
        out.write(json.dumps(record | {"verdict": verdict}) + "\n")
        out.flush()


if __name__ == "__main__":
    sys.exit(main())
