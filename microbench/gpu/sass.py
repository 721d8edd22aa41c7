"""Read SASS: parse nvdisasm / cuobjdump text, find loops, count opcodes.

Works on the text of ``nvdisasm -c <cubin>`` (functions headed by
``//---- .text.<name> ----``, branch targets as labels) and of
``cuobjdump -sass <cubin>`` (functions headed by ``Function : <name>``,
branch targets as hex offsets). A loop is a backward branch: its body is
every instruction from the branch target to the branch. The trailing
``BRA`` to itself that ends every function is not a loop.

The disassemblers come from the PyPI wheels ``nvidia-cuda-nvdisasm`` and
``nvidia-cuda-cuobjdump`` (static binaries under ``nvidia/cu13/bin``), or
from ``PATH``.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ...core.errors import MeasurementError

_FUNC_NVDISASM = re.compile(r"^\s*//-+\s*\.text\.(\S+)\s+-+")
_FUNC_CUOBJDUMP = re.compile(r"^\s*Function\s*:\s*(\S+)")
_LABEL = re.compile(r"^\s*([.$\w]+):\s*$")
_INSTR = re.compile(r"^\s*/\*([0-9a-fA-F]{4,})\*/\s+(?P<text>[^;]*?)\s*;")
_PRED = re.compile(r"^(@!?U?P[T0-9]+)\s+")
_TARGET_LABEL = re.compile(r"`?\(([.$\w]+)\)")
_TARGET_HEX = re.compile(r"(?:^|[\s,])(0x[0-9a-fA-F]+)\s*$")  # "0x1f0", "UP0, 0x1f0"

BRANCHES = frozenset({"BRA", "JMP", "BRX", "JMX"})


@dataclass(frozen=True)
class Instruction:
    offset: int
    opcode: str          # full opcode with modifiers, e.g. "LDG.E.128.STRONG.GPU"
    operands: str = ""
    predicate: str = ""  # "@P0", "@!UP1" or ""
    target: int | None = None  # branch target offset when this is a branch

    @property
    def base(self) -> str:
        return self.opcode.split(".", 1)[0]

    @property
    def modifiers(self) -> tuple[str, ...]:
        return tuple(self.opcode.split(".")[1:])


@dataclass(frozen=True)
class Loop:
    """Instructions ``start..end`` (indices, inclusive) of a function; the
    last one is the backward branch."""

    start: int
    end: int
    body: tuple[Instruction, ...]

    def __len__(self) -> int:
        return len(self.body)

    def counts(self) -> Counter:
        """Full opcode -> occurrences in the loop body."""
        return Counter(i.opcode for i in self.body)

    def contains(self, other: "Loop") -> bool:
        return self.start <= other.start and other.end <= self.end


@dataclass(frozen=True)
class Function:
    name: str
    instructions: tuple[Instruction, ...]

    def counts(self) -> Counter:
        return Counter(i.opcode for i in self.instructions)

    def loops(self) -> list[Loop]:
        """Every backward branch, innermost (shortest) first."""
        index = {ins.offset: k for k, ins in enumerate(self.instructions)}
        found = []
        for k, ins in enumerate(self.instructions):
            if ins.base not in BRANCHES or ins.target is None:
                continue
            start = index.get(ins.target)
            if start is None or start >= k:  # forward branch or self-loop
                continue
            found.append(Loop(start, k, self.instructions[start:k + 1]))
        return sorted(found, key=lambda lp: (len(lp), lp.start))


def parse_sass(text: str) -> dict[str, Function]:
    """Functions by name from nvdisasm or cuobjdump SASS text."""
    functions: dict[str, Function] = {}
    name = None
    rows: list[tuple[int, str, str, str, str | None]] = []
    labels: dict[str, int] = {}
    pending: list[str] = []

    def flush():
        if name is None:
            return
        instrs = []
        for offset, opcode, operands, pred, target in rows:
            resolved = None
            if target is not None:
                resolved = labels.get(target) if not target.startswith("0x") else int(target, 16)
            instrs.append(Instruction(offset, opcode, operands, pred, resolved))
        functions[name] = Function(name, tuple(instrs))

    for line in text.splitlines():
        m = _FUNC_NVDISASM.match(line) or _FUNC_CUOBJDUMP.match(line)
        if m:
            flush()
            name, rows, labels, pending = m.group(1), [], {}, []
            continue
        if name is None:
            continue
        m = _LABEL.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = _INSTR.match(line)
        if not m:
            continue
        offset = int(m.group(1), 16)
        for label in pending:
            labels[label] = offset
        pending = []
        text_ = m.group("text").strip()
        pred = ""
        pm = _PRED.match(text_)
        if pm:
            pred, text_ = pm.group(1), text_[pm.end():]
        opcode, _, operands = text_.partition(" ")
        target = None
        if opcode.split(".", 1)[0] in BRANCHES:
            lm = _TARGET_LABEL.search(operands)
            hm = _TARGET_HEX.search(operands)
            target = lm.group(1) if lm else (hm.group(1) if hm else None)
        rows.append((offset, opcode, operands.strip(), pred, target))
    flush()
    return functions


_RES = re.compile(r"Function\s+(\S+):\s*\n\s*(.*)")


def parse_resource_usage(text: str) -> dict[str, dict[str, int]]:
    """``cuobjdump -res-usage`` output -> {function: {"REG": 20, "LOCAL": 0, ...}}."""
    out = {}
    for m in _RES.finditer(text):
        fields = {}
        for key, value in re.findall(r"([A-Z_]+(?:\[\d+\])?):(\d+)", m.group(2)):
            fields[key] = int(value)
        out[m.group(1)] = fields
    return out


# ------------------------------------------------------------ the tools

def find_tool(name: str) -> Path | None:
    """``nvdisasm`` or ``cuobjdump``: from the PyPI wheel first (its version is
    pinned by the project), else from PATH; None when absent."""
    env = os.environ.get(f"ROOFLINE_{name.upper()}")
    if env and Path(env).is_file():
        return Path(env)
    try:
        import nvidia  # namespace package of the NVIDIA wheels
        roots = [Path(p) for p in nvidia.__path__]
    except ImportError:
        roots = []
    for root in roots:
        for candidate in sorted(root.glob(f"*/bin/{name}")):
            if os.access(candidate, os.X_OK):
                return candidate
    found = shutil.which(name)
    return Path(found) if found else None


def _run(tool: str, args: list[str], cubin: bytes) -> str:
    path = find_tool(tool)
    if path is None:
        raise MeasurementError(f"{tool} not found (pip install nvidia-cuda-{tool})")
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "k.cubin"
        f.write_bytes(cubin)
        proc = subprocess.run([str(path), *args, str(f)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise MeasurementError(f"{tool} failed: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc.stdout


def disassemble(cubin: bytes, tool: str | None = None) -> str:
    """SASS text of a cubin with ``tool`` ("nvdisasm" or "cuobjdump");
    by default nvdisasm when present, else cuobjdump."""
    if tool is None:
        tool = "nvdisasm" if find_tool("nvdisasm") is not None else "cuobjdump"
    return _run(tool, ["-c"] if tool == "nvdisasm" else ["-sass"], cubin)


def resource_usage(cubin: bytes) -> dict[str, dict[str, int]]:
    """Registers, local memory (spills), shared memory per function."""
    return parse_resource_usage(_run("cuobjdump", ["-res-usage"], cubin))
