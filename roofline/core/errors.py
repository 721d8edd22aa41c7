"""One error family for the whole package, and advice-carrying warnings.

Library code raises these; only the CLI turns them into a one-line message and
exit status 2.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class RooflineError(Exception):
    """Base of every error the package raises on purpose."""


class InputError(RooflineError):
    """A malformed input file: names the file, the line and what was expected."""

    def __init__(self, path: str | Path | None, line: int | None, message: str):
        self.path = None if path is None else str(path)
        self.line = line
        self.detail = message
        where = self.path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}")


class ProfileError(InputError):
    """A device profile that does not follow the schema (file and key named)."""


class MissingMetricError(RooflineError):
    """A profile lacks counters the analysis needs; says which to collect."""

    def __init__(self, message: str, metrics: list[str] | tuple[str, ...] = ()):
        self.metrics = tuple(metrics)
        if metrics:
            message = f"{message} (collect them with: ncu --metrics {','.join(metrics)} ...)"
        super().__init__(message)


class UnknownDeviceError(RooflineError):
    """A device name that matches no built-in or saved profile."""


class MeasurementError(RooflineError):
    """A microbenchmark could not run (missing backend, no device ...)."""


@dataclass(frozen=True)
class Advice:
    """A warning carried inside a result: what looks wrong and what to do.

    Results are still usable; callers decide whether to show them.
    """

    message: str
    advice: str = ""
    subject: str = ""

    def __str__(self) -> str:
        head = f"{self.subject}: {self.message}" if self.subject else self.message
        return f"{head} ({self.advice})" if self.advice else head
