"""What every section needs to word itself for the device and the input:
CPU operators or GPU kernels, a trace or a table, and the thresholds of
the rules in force."""
from __future__ import annotations

from dataclasses import dataclass

from ...core.placement import Rules

TRACES = ("kineto", "nsys", "nvprof-trace", "xplane", "rocprofv3")   # formats with a timeline


@dataclass(frozen=True)
class Context:
    rules: Rules
    cpu: bool                 # the device is a CPU: rows are operators run on its cores
    formats: tuple[str, ...]  # the inputs' formats (kineto, kernels-csv, ncu-csv ...)

    @classmethod
    def of(cls, report, rules: Rules | None = None) -> "Context":
        rules = rules or getattr(report, "rules", None) or Rules()
        formats = tuple(str(r.format) for r in report.results)
        return cls(rules, report.device.kind == "cpu", formats)

    @property
    def unit(self) -> str:
        """What a row is: an operator on a CPU, a kernel on a GPU."""
        return "operator" if self.cpu else "kernel"

    @property
    def time_name(self) -> str:
        return "operator (CPU) time" if self.cpu else "kernel (GPU) time"

    @property
    def near_roof(self) -> str:
        return f"{100 * self.rules.near_roof:.0f} %"

    def is_trace(self) -> bool:
        return any(f.startswith(TRACES) for f in self.formats)

    def is_kineto(self) -> bool:
        return any(f.startswith("kineto") for f in self.formats)
