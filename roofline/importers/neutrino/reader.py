"""Neutrino (OSDI 2025, open-neutrino/neutrino) block-scheduling traces.

``neutrino -p block_sched <program>`` writes one folder per process,
``<MonDD_HHMMSS>_<pid>/`` (neutrino/src/common.h, ``get_tracedir``; the
artifact's traces use ``Jan_23_06_27_37_<pid>``), holding ``probe.toml``
(the probes, as the CLI passed them), ``read.py`` (a generated reader),
``event.log`` (the hooked driver's log), ``kernel/<idx>_<sha1 of the
name>/`` (one work folder per probed kernel: original, probed and pruned
code, ``kernel.info`` whose first line is the name) and
``result/<seconds>.bin``, one file per probed launch, named by the seconds
since tracing began: no kernel in the name.

A result file gets its kernel from ``event.log`` (neutrino/src/cuda.c,
``cuLaunchKernel``): ``[exec] funcmap-find <function> success`` opens a
launch, ``[exec] grid ... block ... shared ...`` gives its configuration,
``[exec] save <path> size <n>`` names its file and ``[exec] prologue ...
kernel <ms> ...`` its probed kernel time; the function's name comes from
``[probe] find <function> name <name> ...`` or ``[probe] finish ...`` (``[jit]``
before May 2025) at its first launch. The ``kernel/`` folders are matched
to names by their SHA-1 (``[probe] rename <name> <idx>_<sha1>``). Without an
event.log, a folder with one probed kernel names every launch after it;
otherwise launches stay unnamed, with a warning.

A run folder may come from someone else (a tarball): a file in it that is a
link resolving outside the folder, or not a regular file (a FIFO would
block the read forever; it is checked with ``stat``, never opened), is not
read, with a warning naming it (:func:`refusal`). What the files say cannot
make the reading unbounded: probe.toml is parsed only when small and shallow
(:func:`_probe_toml`), event.log is streamed a line at a time
(:func:`_log_lines`), and result records are read in chunks after their
extent is checked against the file (:func:`.neutrino_bin.block_timeline`).

:func:`read` takes a run folder, its ``event.log`` or ``probe.toml`` (a path
the content sniffers reach; they do not open folders), or one result file.
Kernels: one per probed launch, with no time and a count of 0 (the probed
launch is slowed by its probes and the trace counts no work, so it is never
placed on a roofline: a profile of the same kernels gives that, and a row
merged with it by name keeps that profile's time and calls), and ``launch``
holding ``grid``, ``block``, ``shared_bytes``, ``block_sched`` (a
:class:`~.neutrino_bin.BlockTimeline`: per block, its SM and start and end
in that SM's cycles), ``trace_file``, ``layout``, ``probed_time_s`` when
event.log gives it and ``clock`` (what the cycles count). Converting cycles to
seconds needs the SM clock of a device profile: that is done by
:mod:`roofline.analysis.block_sched`.
"""
from __future__ import annotations

import hashlib
import math
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

import tomllib

from ..options import DEFAULT, ReadOptions
from ...core.errors import Advice, InputError
from ...core.model import Kernel
from ...core.import_result import DeviceClues, ImportResult
from ..base import Reader, register
from ..ranks.rank_rule import NEUTRINO, folder_kind
from .neutrino_bin import (
    ENTRY,
    HEADER,
    MAX_PROBES,
    BlockTimeline,
    block_timeline,
    choose_section,
    looks_like_result,
    read_layout,
)

__all__ = ["BlockTimeline", "is_run_folder", "read", "read_result", "read_run", "sniff"]

CLOCK = "SM cycles (%clock64, each SM's own counter)"
_TAG = r"\[(?:probe|jit)\]"
_NAME = re.compile(_TAG + r" (?:find|finish) (\S+) name (.+?)(?: bin \S+ size \d+| n_param -?\d+)\s*$")
_RENAME = re.compile(_TAG + r" rename (.+) (\d+)_([0-9a-f]{40})\s*$")
_FUNC = re.compile(r"\[exec\] funcmap-find (\S+) (success|fail)\s*$")
_GRID = re.compile(r"\[exec\] grid (\d+) (\d+) (\d+) block (\d+) (\d+) (\d+) shared (\d+)\s*$")
_SAVE = re.compile(r"\[exec\] save (.+) size (\d+)\s*$")
_TIME = re.compile(r"\[exec\] prologue \S+ kernel (\S+) epilogue")
MAX_TOML_BYTES = 1 << 20           # the probes' tables and their code: a few kB in neutrino/tools
MAX_KEY_PARTS = 16
# a key part, matched possessively and never from inside a bare word, so the
# search stays linear in the file's size
_KEY_PART = r"(?:[A-Za-z0-9_-]++|\"[^\"\n]*+\"|'[^'\n]*+')"
_LONG_KEY = re.compile(r"(?<![A-Za-z0-9_-])" + _KEY_PART + r"(?:[ \t]*+\.[ \t]*+" + _KEY_PART + "){%d}"
                       % MAX_KEY_PARTS)
# event.log is read line by line; a line longer than this names no launch
# (a kernel name of a C++ template is a few kB) and is skipped, with a warning
MAX_LOG_LINE = 1 << 20


@dataclass
class _Launch:
    """What event.log says of one saved result file."""

    name: str | None
    grid: tuple | None
    block: tuple | None
    shared: int | None
    line: int
    probed_time_s: float | None = None


def is_run_folder(path) -> bool:
    """A Neutrino run folder: probe.toml beside a result/ folder."""
    path = Path(path)
    return path.is_dir() and (path / "probe.toml").is_file() and (path / "result").is_dir()


def refusal(path: Path, folder: Path | None) -> str | None:
    """Why the file at ``path`` of the run ``folder`` must not be read (a
    link resolving outside the folder, or not a regular file), or None:
    read it, or it is absent (the caller says what an absent file means).
    Only ``stat``: nothing is opened."""
    try:
        os.lstat(path)
    except OSError:
        return None
    if folder is not None and not Path(path).resolve().is_relative_to(Path(folder).resolve()):
        return "is a link to a file outside the run folder"
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    return None if stat.S_ISREG(mode) else "is not a regular file (a FIFO, socket or device)"


def _refused(path: Path, folder: Path, warnings: list) -> bool:
    """True, with a warning naming the file, when :func:`refusal` says no."""
    why = refusal(path, folder)
    if why is not None:
        rel = Path(os.path.relpath(path, folder)).as_posix()
        warnings.append(Advice(f"{rel} {why}: not read", "a run folder is read only from its own regular "
                               "files", subject=Path(folder).name))
    return why is not None


def sniff(path: Path, head: bytes) -> bool:
    """A run folder; its event.log (starting ``[init]``) or probe.toml beside
    a result/ folder; or a result file: a consistent header, or any ``.bin``
    inside a run's result/ folder, or a ``.bin`` whose first bytes could be a
    header (read then says what is wrong with it)."""
    path = Path(path)
    if path.is_dir():
        return is_run_folder(path)
    if path.name in ("event.log", "probe.toml") and is_run_folder(path.parent):
        return path.name == "probe.toml" or head.startswith(b"[init]")
    if path.suffix == ".bin" and path.parent.name == "result" and is_run_folder(path.parent.parent):
        return True
    if refusal(path, None) is not None:
        return False
    try:
        with open(path, "rb") as fh:
            raw = fh.read(HEADER.size + ENTRY.size)
    except OSError:
        return False
    return looks_like_result(raw, named_bin=path.suffix == ".bin")


def read(path, options: ReadOptions = DEFAULT) -> ImportResult:
    """A run folder, its event.log or probe.toml, or one result file."""
    path = Path(path)
    if path.is_dir() or path.name in ("event.log", "probe.toml"):
        return read_run(path if path.is_dir() else path.parent)
    return read_result(path)


def read_run(folder) -> ImportResult:
    """Every result file of a run folder, named from its event.log."""
    folder = Path(folder)
    if not is_run_folder(folder):
        raise InputError(folder, None, "not a Neutrino run folder: expected probe.toml and a result/ folder "
                         "(neutrino writes <MonDD_HHMMSS>_<pid>/ under --tracedir)")
    warnings: list[Advice] = []
    saved = [p for p in (folder / "result").iterdir() if p.suffix == ".bin"]
    files = sorted((p for p in saved if not _refused(p, folder, warnings)), key=_launch_order)
    hint = _section_hint(folder, warnings)
    launches, names = _event_log(folder, warnings)
    kernels = [_kernel(p, hint, launches, names, folder, warnings) for p in files]
    missing = sorted(set(launches) - {p.name for p in saved})     # refused ones were warned about
    if missing:
        warnings.append(Advice(f"event.log saved {len(missing)} result file(s) that are not in result/ "
                               f"({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''})",
                               "they were moved or deleted; their launches are not read", subject=folder.name))
    if not kernels:
        warnings.append(Advice("result/ holds no .bin file: no launch was probed and saved",
                               "check event.log for '[exec] backup' (probing failed) or the kernel filter",
                               subject=folder.name))
    return ImportResult(path=str(folder), format="neutrino", kernels=tuple(kernels),
                        warnings=tuple(warnings), device=DeviceClues(kind="gpu"))


def read_result(path) -> ImportResult:
    """One result file; named from the run's event.log when it sits in a
    run folder's result/."""
    path = Path(path)
    warnings: list[Advice] = []
    folder = path.parent.parent
    hint, launches, names = None, {}, {}
    if path.parent.name == "result" and is_run_folder(folder):
        hint = _section_hint(folder, warnings)
        launches, names = _event_log(folder, warnings)
    else:
        folder = None
    kernel = _kernel(path, hint, launches, names, folder, warnings)
    return ImportResult(path=str(path), format="neutrino", kernels=(kernel,), warnings=tuple(warnings),
                        device=DeviceClues(kind="gpu"))


def _launch_order(p: Path):
    try:
        return (0, float(p.stem), p.name)
    except ValueError:
        return (1, 0.0, p.name)


def _kernel(path: Path, hint, launches: dict, names: dict, folder, warnings: list) -> Kernel:
    layout = read_layout(path)
    timeline = block_timeline(path, layout, choose_section(path, layout, hint))
    for note in layout.notes:
        warnings.append(Advice(note, "", subject=path.name))
    if timeline.missing_blocks:
        warnings.append(Advice(f"{timeline.missing_blocks:,} of {layout.blocks:,} blocks wrote no record",
                               "they are left out of the block-scheduling analysis", subject=path.name))
    log = launches.get(path.name)
    if log is not None and log.grid is not None and (log.grid, log.block) != (layout.grid, layout.block):
        raise InputError(Path(folder) / "event.log", log.line,
                         f"{path.name} was saved for grid {log.grid} block {log.block}, but its header says grid "
                         f"{layout.grid} block {layout.block}: the file does not belong to this log")
    name = log.name if log is not None else None
    if name is None and folder is not None and len(names) == 1:
        name = next(iter(names.values()))
    if name is None:
        why = ("event.log names no kernel for it" if log is not None else
               "not in event.log" if folder is not None and launches else "no event.log beside it")
        warnings.append(Advice(f"kernel name unknown ({why})", "read the whole run folder, whose event.log "
                               "names each launch", subject=path.name))
        name = f"neutrino launch {path.stem}"
    launch = {"grid": layout.grid, "block": layout.block, "shared_bytes": layout.shared_bytes,
              "block_sched": timeline, "trace_file": f"result/{path.name}" if folder is not None else path.name,
              "clock": CLOCK, "layout": layout.sections[0].layout}
    if log is not None and log.probed_time_s is not None:
        launch["probed_time_s"] = log.probed_time_s
    return Kernel(name=name, count=0, launch=launch)   # no time, no work: adds no calls to a merged row


def _section_hint(folder: Path, warnings: list) -> int | None:
    """Which section is the block-scheduling map, from the run's probe.toml:
    the current format lists maps under ``[map.<name>]`` in section order,
    the older one probes with a ``datamodel`` in order; the map is
    block_sched, or the one whose registers are u64, u32, u32 per warp (16
    bytes)."""
    toml_path = folder / "probe.toml"
    if _refused(toml_path, folder, warnings):
        return None
    data, problem = _probe_toml(toml_path)
    if problem is not None:
        warnings.append(Advice(f"probe.toml cannot be read ({problem})", "the section of 16-byte warp "
                               "records is taken as the block-scheduling one", subject="probe.toml"))
        return None
    maps = data.get("map")
    if isinstance(maps, dict):
        tables = [(k, v) for k, v in maps.items() if isinstance(v, dict)]
        fits = [i for i, (k, v) in enumerate(tables) if k == "block_sched" or (
            v.get("level") == "warp" and str(v.get("size")) == "16" and _dtypes(v.get("regs")) == ["u64", "u32", "u32"])]
    else:
        tables = [(k, v) for k, v in data.items() if isinstance(v, dict) and v.get("datamodel")]
        fits = [i for i, (k, v) in enumerate(tables) if k == "block_sched" or v.get("datamodel") == "warp:16"]
    if len(tables) > MAX_PROBES or not fits:
        return None
    return fits[0]


def _probe_toml(path: Path) -> tuple[dict, str | None]:
    """probe.toml's tables, or why they are not read. Bounded before parsing:
    at most :data:`MAX_TOML_BYTES`, and no dotted key of more than
    :data:`MAX_KEY_PARTS` parts (tomllib builds every prefix of a dotted key:
    memory grows with the square of its length, 20 kB took 400 MB); nesting
    too deep for the parser is a RecursionError, caught."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_TOML_BYTES + 1)
    except OSError as exc:
        return {}, exc.strerror or "cannot open"
    if len(raw) > MAX_TOML_BYTES:
        return {}, f"more than {MAX_TOML_BYTES // 1024} KiB: a Neutrino probe.toml is a few kB"
    text = raw.decode("utf-8", errors="replace")
    chain = _LONG_KEY.search(text)
    if chain:
        return {}, (f"a dotted key of more than {MAX_KEY_PARTS} parts at line {text.count(chr(10), 0, chain.start()) + 1}"
                    ": a probe.toml nests a few tables")
    try:
        return tomllib.loads(text), None
    except tomllib.TOMLDecodeError as exc:
        return {}, str(exc).splitlines()[0]
    except RecursionError:
        return {}, "nested too deeply"


def _dtypes(regs) -> list:
    if not isinstance(regs, dict):
        return []
    return [v[0] if isinstance(v, list) and v else v for v in regs.values()]


def _event_log(folder: Path, warnings: list) -> tuple[dict[str, _Launch], dict[str, str]]:
    """event.log as {result file name: its launch} and the kernel/ folders'
    names ({sha1: name}, from kernel.info or the rename lines)."""
    names = _kernel_folders(folder, warnings)
    log = folder / "event.log"
    if _refused(log, folder, warnings):
        return {}, names
    if not log.is_file():
        warnings.append(Advice("no event.log in the run folder", "kernel names come from kernel/*/kernel.info "
                               "when one kernel was probed; otherwise launches stay unnamed", subject=folder.name))
        return {}, names
    try:
        with open(log, "rb") as fh:
            launches = _parse_log(log, _log_lines(fh, log, warnings), names)
    except OSError as exc:
        raise InputError(log, None, f"cannot read: {exc.strerror}") from None
    return launches, names


def _log_lines(fh, log: Path, warnings: list):
    """(line number, text) of each event.log line that starts with '[' (the
    only ones parsed), read as a stream: memory is one line at most
    :data:`MAX_LOG_LINE` long, whatever the log's size; longer lines are
    skipped and counted in one warning. Kernel names and argv may be any
    bytes: decoded with replacement."""
    number, long_lines, first_long = 0, 0, 0
    while raw := fh.readline(MAX_LOG_LINE):
        number += 1
        if len(raw) == MAX_LOG_LINE and not raw.endswith(b"\n"):
            long_lines, first_long = long_lines + 1, first_long or number
            while (rest := fh.readline(MAX_LOG_LINE)) and not rest.endswith(b"\n"):
                pass
            continue
        if raw.startswith(b"["):
            yield number, raw.decode("utf-8", errors="replace").rstrip("\r\n")
    if long_lines:
        warnings.append(Advice(f"{long_lines:,} line(s) longer than {MAX_LOG_LINE // 1024} KiB skipped "
                               f"(first: line {first_long})", "no Neutrino log line is that long: the log "
                               "is damaged there", subject=log.name))


def _parse_log(log: Path, lines, names: dict) -> dict[str, _Launch]:
    """{result file name: its launch} from event.log's lines; the rename
    lines add to ``names``."""
    by_function: dict[str, str] = {}
    launches: dict[str, _Launch] = {}
    function = grid = last = None
    for number, line in lines:
        if m := _NAME.match(line):
            by_function[m.group(1)] = m.group(2)
        elif m := _RENAME.match(line):
            names.setdefault(m.group(3), m.group(1))
        elif m := _FUNC.match(line):
            function, grid, last = m.group(1), None, None
        elif m := _GRID.match(line):
            grid = tuple(int(x) for x in m.groups())
        elif m := _SAVE.match(line):
            file = m.group(1).replace("\\", "/").rsplit("/", 1)[-1]
            last = launches[file] = _Launch(by_function.get(function), grid and grid[:3], grid and grid[3:6],
                                            grid and grid[6], number)
        elif (m := _TIME.match(line)) and last is not None:
            ms = _float(m.group(1))
            if ms is None or ms < 0:
                raise InputError(log, number, f"kernel time {m.group(1)!r}: expected milliseconds")
            last.probed_time_s, last = ms * 1e-3, None
    return launches


def _kernel_folders(folder: Path, warnings: list) -> dict[str, str]:
    """{sha1: kernel name} of kernel/<idx>_<sha1>/ folders whose kernel.info
    names a kernel with that hash (a kernel.info refused by :func:`refusal`
    names none)."""
    out = {}
    root = folder / "kernel"
    if not root.is_dir():
        return out
    for sub in sorted(root.iterdir()):
        idx, _, digest = sub.name.partition("_")
        info = sub / "kernel.info"
        if not (idx.isdigit() and len(digest) == 40) or _refused(info, folder, warnings) or not info.is_file():
            continue
        try:
            name = info.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0].strip()
        except OSError:
            continue
        if name and hashlib.sha1(name.encode("utf-8", "surrogateescape")).hexdigest() == digest:
            out[digest] = name
        elif name:
            out.setdefault(digest, name)
    return out


def _float(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


register(Reader("neutrino", sniff, read, folder=lambda path: folder_kind(path) == NEUTRINO))
