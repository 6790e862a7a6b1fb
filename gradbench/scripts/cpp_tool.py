#!/usr/bin/env python3
"""One of GradBench's C++ tools (`manual` by default, or the one named by the first argument, such as
`tapenade`) behind the protocol, for `validate.py` and `table.py`.

GradBench runs its C++ tools through its `gradbench.cpp` module, whose `define` rebuilds the eval's
binary (`make -B`) every time. This does the same without rebuilding: it answers `define` with whether
`tools/<tool>/bin/<eval>` exists (build them once: `make -C tools/manual bin/<eval>`, with `cpp/json.hpp`
linked to nlohmann's `json.hpp`) and runs each `evaluate` through `gradbench.cpp.evaluate`. It runs with
the checkout as its working directory and GradBench's Python package importable.
"""

import json
import os
import sys

from gradbench import cpp


def main() -> None:
    tool = sys.argv[1] if len(sys.argv) > 1 else "manual"
    for line in sys.stdin:
        message = json.loads(line)
        response = {"id": message["id"]}
        kind = message["kind"]
        if kind == "start":
            response["tool"] = tool
        elif kind == "define":
            response["success"] = os.path.exists(f"tools/{tool}/bin/{message['module']}")
        elif kind == "evaluate":
            response |= cpp.evaluate(
                tool=tool,
                module=message["module"],
                function=message["function"],
                input=message["input"],
            )
        print(json.dumps(response), flush=True)


if __name__ == "__main__":
    main()
