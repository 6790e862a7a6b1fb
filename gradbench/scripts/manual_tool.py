#!/usr/bin/env python3
"""GradBench's C++ `manual` tool behind the protocol, for `validate.py` and `table.py`.

GradBench runs C++ tools through its `gradbench.cpp` module, whose `define` rebuilds the eval's binary
(`make -B`) every time. This does the same without rebuilding: it answers `define` with whether
`tools/manual/bin/<eval>` exists (build them once: `make -C tools/manual bin/<eval>`, with
`cpp/json.hpp` linked to nlohmann's `json.hpp`) and runs each `evaluate` through
`gradbench.cpp.evaluate`. It runs with the checkout as its working directory and GradBench's Python
package importable.
"""

import json
import os
import sys

from gradbench import cpp


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        response = {"id": message["id"]}
        kind = message["kind"]
        if kind == "start":
            response["tool"] = "manual"
        elif kind == "define":
            response["success"] = os.path.exists(f"tools/manual/bin/{message['module']}")
        elif kind == "evaluate":
            response |= cpp.evaluate(
                tool="manual",
                module=message["module"],
                function=message["function"],
                input=message["input"],
            )
        print(json.dumps(response), flush=True)


if __name__ == "__main__":
    main()
