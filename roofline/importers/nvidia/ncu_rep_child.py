"""Reads an Nsight Compute report in a child process and prints its
launches as JSON: the ``ncu_report`` binding aborts the whole process on
some damaged files (a failed C++ check, exit 134), which must not take the
caller (or a Jupyter kernel) with it.

    python -I .../ncu_rep_child.py REPORT.ncu-rep [FOLDER OF ncu_report]

It is started isolated (:func:`.ncu_rep.child_command`) and imports only the
standard library and ``ncu_report``: nothing from the working directory.
"""
from __future__ import annotations

import json
import sys


def actions(path: str) -> dict:
    import ncu_report
    report = ncu_report.load_report(path)
    out = {"ranges": report.num_ranges(), "actions": []}
    for r in range(out["ranges"]):
        rng = report.range_by_idx(r)
        for a in range(rng.num_actions()):
            action = rng.action_by_idx(a)
            numbers, strings = {}, {}
            for name in action.metric_names():
                m = action.metric_by_name(name)
                if m is None or m.num_instances() > 0:
                    continue
                value = m.value()
                if isinstance(value, str):
                    strings[name] = value.strip()
                elif isinstance(value, (int, float)) and not isinstance(value, bool):
                    numbers[name] = [float(value), m.unit() or ""]
            out["actions"].append({"name": action.name(action.NameBase_DEMANGLED) or action.name(),
                                   "numbers": numbers, "strings": strings})
    return out


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[2] not in sys.path:
        sys.path.append(sys.argv[2])        # after the standard library: it cannot shadow it
    try:
        data = actions(sys.argv[1])
    except Exception as exc:  # noqa: BLE001 - the binding raises anything on bad input
        data = {"error": f"{type(exc).__name__}: {exc}"}
    json.dump(data, sys.stdout, allow_nan=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
