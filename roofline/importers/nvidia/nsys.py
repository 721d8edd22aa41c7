"""Nsight Systems: SQLite exports and ``nsys stats`` CSV reports.

The readers are :mod:`roofline.importers.nvidia.nsys_sqlite` (``nsys export --type
sqlite``) and :mod:`roofline.importers.nvidia.nsys_csv` (``nsys stats ... --format
csv``); this module registers them, in that order, and recognises a binary
``.nsys-rep`` to refuse it with a message saying what to export instead.
"""
from __future__ import annotations

from pathlib import Path

from ..options import DEFAULT, ReadOptions
from ...core.errors import InputError
from ...core.import_result import ImportResult
from ..base import Reader, register
from ..cupti import api_totals
from .nsys_csv import parse_csv, read_csv, sniff_csv
from .nsys_sqlite import NAME_COLUMNS, SQLITE_MAGIC, read_sqlite, sniff_sqlite
from ..timeline import busy_time

__all__ = ["NAME_COLUMNS", "NSYS_REP_MAGIC", "SQLITE_MAGIC", "api_totals", "busy_time",
           "parse_csv", "read_csv", "read_rep", "read_sqlite", "sniff_csv",
           "sniff_rep", "sniff_sqlite"]

NSYS_REP_MAGIC = b"NVIDIA Tegra Profiler Report"


def sniff_rep(path: Path, head: bytes) -> bool:
    return head.startswith(NSYS_REP_MAGIC)


def read_rep(path: Path, options: ReadOptions = DEFAULT) -> ImportResult:
    raise InputError(path, None, "this is a binary Nsight Systems report: export it first with "
                     "'nsys export --type sqlite -o report.sqlite report.nsys-rep' (or "
                     "'nsys stats --report cuda_gpu_kern_sum --format csv report.nsys-rep') "
                     "and read that file")


register(Reader("nsys-sqlite", sniff_sqlite, read_sqlite))
register(Reader("nsys-stats-csv", sniff_csv, read_csv))
register(Reader("nsys-rep", sniff_rep, read_rep))
