"""Device profiles on disk: a versioned YAML schema, validated on load.

Schema history (``schema_version``):

1. 2026-11: first version. Rates in SI: ``flop_s`` (FLOP/s), ``bytes_s`` (bytes/s), ``inst_s``
   (instructions/s); every ceiling may carry raw ``samples`` (same unit), ``theoretical_*`` and
   ``clock_hz``; ``median`` and ``spread`` are written for readers and recomputed on load.

See docs/formats.md. Only ``yaml.safe_load`` is used: a profile never runs code. A loaded GPU profile
carries its link roofs (:mod:`.links`) and kernel floor (:mod:`.observed`).
"""
from __future__ import annotations

import math
import os
import re
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ..core.atomic import write_text_atomic
from ..core.errors import Advice, ProfileError, UnknownDeviceError
from ..core.model import LEVELS, PRECISIONS, Ceiling, Device, MemoryLevel
from .links import with_links
from .observed import with_kernel_floor

try:
    import fcntl
except ImportError:         # Windows: profiles are written without a lock
    fcntl = None

SCHEMA_VERSION = 1

# ---------------------------------------------------------------- writing

def device_to_dict(device: Device) -> dict[str, Any]:
    """The plain-data form of a profile (what is written to YAML)."""
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "name": device.name,
        "kind": device.kind,
        "compute": {k: _ceiling_dict(c, "flop_s") for k, c in device.compute.items()},
        "memory": {k: _level_dict(m) for k, m in device.memory.items()},
    }
    if device.instruction_rate is not None:
        out["instruction_rate"] = _ceiling_dict(device.instruction_rate, "inst_s")
    if device.launch_overhead_s is not None:
        out["launch_overhead_s"] = float(device.launch_overhead_s)
    for key in ("clocks_hz", "architecture", "provenance"):
        if getattr(device, key):    # what choosing it said is about one run's files, not the profile
            out[key] = _plain({k: v for k, v in getattr(device, key).items() if k != "choice_doubts"})
    if device.warnings:
        out["warnings"] = [{"message": w.message, "advice": w.advice, "subject": w.subject}
                           for w in device.warnings]
    return out


def _ceiling_dict(c: Ceiling, key: str) -> dict[str, Any]:
    d: dict[str, Any] = {key: float(c.value)}
    if c.theoretical is not None:
        d[f"theoretical_{key}"] = float(c.theoretical)
    if c.clock_hz is not None:
        d["clock_hz"] = float(c.clock_hz)
    if c.samples:
        d["median"] = c.median
        d["spread"] = round(c.spread, 6)
        d["samples"] = [float(s) for s in c.samples]
    if c.source:
        d["source"] = c.source
    return d


def _level_dict(m: MemoryLevel) -> dict[str, Any]:
    d = _ceiling_dict(m.bandwidth, "bytes_s")
    if m.transaction_bytes is not None:
        d["transaction_bytes"] = float(m.transaction_bytes)
    if m.capacity_bytes is not None:
        d["capacity_bytes"] = float(m.capacity_bytes)
    return d


def _plain(obj):
    """numpy scalars and tuples to YAML-safe Python types."""
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if hasattr(obj, "item"):
        return obj.item()
    return obj


def dump_device(device: Device) -> str:
    return yaml.safe_dump(device_to_dict(device), sort_keys=False, width=100)


def save_device(device: Device, path: str | Path) -> Path:
    """Write atomically: an interrupted write leaves the old file (or none).
    While another process holds the profile's lock (:func:`profile_lock`)
    this is a ProfileError instead of a silent replacement."""
    path = Path(path)
    with profile_lock(path):
        write_text_atomic(path, dump_device(device))
    return path


_HELD: dict[str, int] = {}       # lock files this process holds, and how often


@contextmanager
def profile_lock(path: str | Path):
    """Hold an advisory lock on the profile at ``path`` (a hidden
    ``.NAME.yaml.lock`` beside it while held) for a whole measurement and
    its save, so a second ``roofline measure`` writing the same profile
    stops at once with a ProfileError naming the holder. Re-entrant within
    a process; nothing is locked without fcntl, for a FIFO or device
    target, or where the lock file cannot be made (the write then reports)."""
    special = os.path.exists(path) and not os.path.isfile(path)     # a FIFO or device
    path = Path(os.path.realpath(path))     # a symlink and its target are one profile
    lock = path.with_name(f".{path.name}.lock")
    key = os.path.realpath(lock)
    fd = None if key in _HELD or fcntl is None or special else _lock_fd(lock, path)
    _HELD[key] = _HELD.get(key, 0) + 1
    try:
        yield
    finally:
        _HELD[key] -= 1
        if not _HELD[key]:
            del _HELD[key]
            if fd is not None:          # removed while still held, so no one locks a stale file
                Path(lock).unlink(missing_ok=True)
                os.close(fd)


def _lock_fd(lock: Path, path: Path) -> int | None:
    """An open lock file held exclusively, with this process's id in it."""
    for _ in range(10):
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise ProfileError(path, None, f"another roofline measure (process {holder}) is writing this "
                               "profile; wait for it to finish, or write elsewhere with -o") from None
        except OSError:             # a file system without locks (some NFS): write unlocked
            os.close(fd)
            return None
        if _still_named(fd, lock):
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            return fd
        os.close(fd)                # its holder removed it as we opened it: lock the new one
    return None


def _still_named(fd: int, lock: Path) -> bool:
    try:
        named, held = os.stat(lock), os.fstat(fd)
    except OSError:
        return False
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


# ---------------------------------------------------------------- reading

# Profiles are a few kB (a measured one with every raw sample about 15 kB);
# PyYAML reads about 0.35 MB/s, so a 16 MiB file held every lookup for ~50 s.
MAX_PROFILE_BYTES = 1 << 20


def load_device(path: str | Path) -> Device:
    """Read and validate a profile; errors name the file, line and key.
    Only regular files of sane size are read (``/dev/zero`` is not a profile)."""
    path = Path(path)
    try:
        if not path.is_file():
            raise ProfileError(path, None, "not a regular file (expected a YAML device profile)")
        if path.stat().st_size > MAX_PROFILE_BYTES:
            raise ProfileError(path, None, f"{path.stat().st_size:,} bytes: too big for a device profile "
                               f"(at most {MAX_PROFILE_BYTES:,})")
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(path, None, f"cannot read device profile: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ProfileError(path, None, "not a text file (expected a YAML device profile)") from None
    return parse_device(text, path)


class _NoAliasLoader(yaml.SafeLoader):
    """Profiles need no anchors: refusing aliases stops 'billion laughs'
    documents that would make every lookup walk an exponential tree."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed in a "
                                              "device profile", event.start_mark)
        return super().compose_node(parent, index)

    def construct_yaml_int(self, node):
        # beyond the float range (int() of 4,300 digits raises): refused by _unusable
        size = len(node.value.lstrip("+-"))
        value = super().construct_yaml_int(node) if size <= 1000 else math.inf
        huge = not abs(value) <= 1.7976931348623157e308       # the largest float
        return _HugeNumber(f"a whole number of {size} digits") if huge else value


class _HugeNumber(str):
    """A YAML integer beyond the float range, as a description of it."""


_NoAliasLoader.add_constructor("tag:yaml.org,2002:int", _NoAliasLoader.construct_yaml_int)


def parse_device(text: str, path: str | Path = "<profile>") -> Device:
    try:
        loader = _NoAliasLoader(text)  # one parse: the node tree gives line numbers
    except yaml.YAMLError as exc:      # the reader checks characters at once
        line = text.count("\n", 0, getattr(exc, "position", 0) or 0) + 1
        raise ProfileError(path, line, f"not valid YAML: {exc}".splitlines()[0]) from None
    try:
        root = loader.get_single_node()
        data = None if root is None else loader.construct_document(root)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else None
        raise ProfileError(path, line, f"not valid YAML: {getattr(exc, 'problem', exc)}") from None
    except RecursionError:   # PyYAML composes nested collections recursively
        raise ProfileError(path, None, "not a device profile: YAML nested too deeply") from None
    finally:
        loader.dispose()
    reader = _Reader(path, root)
    bad = _unusable(data)
    if bad is not None:
        reader.fail(*bad)
    return with_kernel_floor(with_links(reader.device(data)))


def _unusable(data, keys: tuple = ()) -> tuple[tuple, str] | None:
    """The keys of the first value no output could carry, and why: a lone
    surrogate (a "\\ud800" escape; a key holding one names its mapping, so
    messages never carry it), or a whole number beyond the float range."""
    if isinstance(data, _HugeNumber):
        return keys, f"{data}: beyond the range of a number"
    if isinstance(data, str):
        return (keys, _LONE_SURROGATE) if _SURROGATE.search(data) else None
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        if isinstance(key, _HugeNumber) or (isinstance(key, str) and _SURROGATE.search(key)):
            return keys, f"a key that is {key}" if isinstance(key, _HugeNumber) else _LONE_SURROGATE
        found = _unusable(value, keys + (key,))
        if found is not None:
            return found
    return None


_LONE_SURROGATE = "holds a lone surrogate (a \\ud800-\\udfff escape), which is no character"
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Reader:
    """Validates plain data against schema 1, naming the file/line/key on error."""

    def __init__(self, path, root):
        self.path, self.root = path, root

    def fail(self, keys: tuple, message: str):
        dotted = ".".join(str(k) for k in keys)
        where = f"key '{dotted}': " if dotted else ""
        raise ProfileError(self.path, _line_of(self.root, keys), where + message)

    def device(self, data) -> Device:
        if not isinstance(data, dict):
            self.fail((), "expected a mapping with name, kind, compute and memory")
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            self.fail(("schema_version",), f"expected {SCHEMA_VERSION}, found {version!r}")
        name = self.string(data, ("name",))
        kind = self.string(data, ("kind",))
        if kind not in ("cpu", "gpu"):
            self.fail(("kind",), f"expected 'cpu' or 'gpu', found {kind!r}")
        compute = {self.precision(k): self.ceiling(v, ("compute", k), "flop_s")
                   for k, v in self.mapping(data, ("compute",), required=True).items()}
        if not compute:
            self.fail(("compute",), "expected at least one compute ceiling (e.g. fp32: {flop_s: ...})")
        memory = {}
        for k, v in self.mapping(data, ("memory",), required=True).items():
            level = self.level(v, ("memory", k))
            if level.name in memory:
                self.fail(("memory", k), f"a second {level.name} level")
            memory[level.name] = level
        inst = data.get("instruction_rate")
        launch = data.get("launch_overhead_s")
        if launch is not None:
            launch = self.positive(launch, ("launch_overhead_s",))
        listed = data.get("warnings") or []
        if not isinstance(listed, list) or not all(isinstance(w, dict) for w in listed):
            self.fail(("warnings",), "expected a list of {message, advice, subject} mappings")
        warnings = tuple(Advice(str(w.get("message", "")), str(w.get("advice", "")),
                                str(w.get("subject", ""))) for w in listed)
        return Device(
            name=name, kind=kind, compute=compute, memory=memory,
            instruction_rate=None if inst is None else self.ceiling(inst, ("instruction_rate",), "inst_s"),
            launch_overhead_s=launch,
            clocks_hz={k: self.positive(v, ("clocks_hz", k))
                       for k, v in self.mapping(data, ("clocks_hz",)).items()},
            architecture=self.mapping(data, ("architecture",)),
            provenance=self.mapping(data, ("provenance",)),
            warnings=warnings,
        )

    def string(self, data, keys):
        value = data.get(keys[-1])
        if not isinstance(value, str) or not value:
            self.fail(keys, f"expected a non-empty string, found {value!r}")
        return value

    def mapping(self, data, keys, required=False) -> dict:
        value = data.get(keys[-1])
        if value is None and not required:
            return {}
        if not isinstance(value, dict):
            self.fail(keys, f"expected a mapping, found {type(value).__name__}")
        return value

    def positive(self, value, keys) -> float:
        if isinstance(value, str):  # PyYAML reads 7.8e12 (no dot before e) as a string
            try:
                value = float(value)
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not (value > 0 and math.isfinite(value)):
            self.fail(keys, f"expected a positive finite number, found {value!r}")
        return float(value)

    def precision(self, key) -> str:
        if key not in PRECISIONS:
            self.fail(("compute", key), f"unknown precision {key!r}; expected one of {', '.join(PRECISIONS)}")
        return key

    def ceiling(self, data, keys, rate_key) -> Ceiling:
        if not isinstance(data, dict):
            self.fail(keys, f"expected a mapping with '{rate_key}'")
        if rate_key not in data:
            self.fail(keys, f"missing '{rate_key}' (the rate in SI units)")
        samples = data.get("samples") or []
        if not isinstance(samples, list):
            self.fail(keys + ("samples",), "expected a list of numbers")
        theo = data.get(f"theoretical_{rate_key}")
        clock = data.get("clock_hz")
        return Ceiling(
            value=self.positive(data[rate_key], keys + (rate_key,)),
            samples=tuple(self.positive(s, keys + ("samples",)) for s in samples),
            theoretical=None if theo is None else self.positive(theo, keys + (f"theoretical_{rate_key}",)),
            clock_hz=None if clock is None else self.positive(clock, keys + ("clock_hz",)),
            source=str(data.get("source", "")),
        )

    def level(self, data, keys) -> MemoryLevel:
        name = level_name(keys[-1])
        if name is None:
            self.fail(keys, f"unknown memory level {keys[-1]!r}; expected one of {', '.join(LEVELS)} "
                      "(HBM and GDDR are DRAM)")
        bw = self.ceiling(data, keys, "bytes_s")
        tx, cap = data.get("transaction_bytes"), data.get("capacity_bytes")
        return MemoryLevel(
            name=name, bandwidth=bw,
            transaction_bytes=None if tx is None else self.positive(tx, keys + ("transaction_bytes",)),
            capacity_bytes=None if cap is None else self.positive(cap, keys + ("capacity_bytes",)),
        )


_LEVEL_ALIASES = {"hbm": "DRAM", "gddr": "DRAM", "dram": "DRAM", "memory": "DRAM",
                  "pcie": "PCIe", "host": "PCIe", "nvlink": "PCIe", "c2c": "PCIe"}


def level_name(key) -> str | None:
    """Canonical memory level for a profile key (``HBM3`` -> ``DRAM``), or None."""
    text = str(key)
    if text in LEVELS:
        return text
    if text.upper() in ("L1", "L2", "L3"):
        return text.upper()
    low = text.lower()
    return next((lv for prefix, lv in _LEVEL_ALIASES.items() if low.startswith(prefix)), None)


def _line_of(node, keys) -> int | None:
    """1-based line of the deepest key of ``keys`` found in a composed YAML tree."""
    line = None if node is None else node.start_mark.line + 1
    for key in keys:
        if not isinstance(node, yaml.MappingNode):
            break
        for k, v in node.value:
            if k.value == str(key):
                line, node = k.start_mark.line + 1, v
                break
        else:
            break
    return line


# ---------------------------------------------------------------- finding

def user_profile_dir() -> Path:
    """Where `roofline measure` saves profiles by default.

    ``$ROOFLINE_HOME/devices`` when set, else ``$XDG_DATA_HOME/roofline/devices``
    (``~/.local/share/roofline/devices``).
    """
    home = os.environ.get("ROOFLINE_HOME")
    if home:
        return Path(home) / "devices"
    data = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data) / "roofline" / "devices"


def builtin_profiles() -> dict[str, Path]:
    """Built-in datasheet profiles, file stem -> path."""
    root = resources.files("roofline.devices")
    return {Path(p.name).stem: Path(str(p)) for p in sorted(root.iterdir(), key=lambda p: p.name)
            if p.name.endswith(".yaml")}


def saved_profiles() -> dict[str, Path]:
    folder = user_profile_dir()
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))}


def _key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def find_device(name_or_path: str | Path) -> Device:
    """A profile by path, or by name among saved then built-in profiles.

    Names match file stems or the profile's ``name``, ignoring case and
    punctuation (``v100-sxm2`` = ``V100 SXM2``).
    """
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") or path.exists():
        if not path.exists():
            raise UnknownDeviceError(f"{path}: no such device profile")
        return load_device(path)
    wanted = _key(str(name_or_path))
    candidates = {**builtin_profiles(), **saved_profiles()}
    for stem, p in candidates.items():
        if _key(stem) == wanted:
            return load_device(p)
    for stem, p in candidates.items():
        try:
            device = load_device(p)
        except ProfileError:  # a broken profile elsewhere must not hide the one asked for
            continue
        if _key(device.name) == wanted:
            return device
    from .names import NameError_, resolve_typed
    try:
        return load_device(candidates[resolve_typed(str(name_or_path), profile_names(candidates)).stem])
    except NameError_ as exc:
        known = ", ".join(sorted(candidates)) or "none"
        raise UnknownDeviceError(f"{exc}; known: {known} (run `roofline devices`, or pass a path "
                                 "to a .yaml profile)") from None


def profile_names(paths: dict[str, Path] | None = None) -> dict[str, str]:
    """Profile file stem -> the device name inside it (the stem when unreadable)."""
    paths = paths if paths is not None else {**builtin_profiles(), **saved_profiles()}
    out = {}
    for stem, p in paths.items():
        out[stem] = _name_line(p) or stem
    return out


_NAME_LINE = re.compile(r"^name:\s*['\"]?(.*?)['\"]?\s*$", re.MULTILINE)


def _name_line(path: Path) -> str | None:
    """The top-level ``name:`` of a profile, read without parsing the YAML
    (choosing among every profile by name must stay cheap)."""
    try:
        if not path.is_file():     # opening a FIFO in the profiles folder would block forever
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        return None
    m = _NAME_LINE.search(head)
    return m.group(1) if m else None
