"""The HLO modules a JAX/XLA profile embeds, and which instruction a
kernel ran.

An XSpace's ``/host:metadata`` plane names each compiled program
``<module>(<program id>)`` and carries its ``HloProto``; every kernel XLA
launched carries stats ``hlo_module``, ``hlo_op`` (the instruction's name:
``cudnn-conv.1``, ``loop_transpose_fusion``) and, in newer profiles,
``program_id``. A kernel is joined to its instruction by module name and
program id where both are given, else by module name when only one program
has it. Modules are decoded on first use (:mod:`.xla_hlo_schema`), each
once, and costed per instruction (:mod:`.xla_hlo_cost`).
"""
from __future__ import annotations

import re

from ...core.errors import RooflineError
from .xla_hlo_cost import HloCost, ModuleCosts
from .xla_hlo_schema import TOTAL_INSTRUCTIONS, HloDecodeError, decode_module

_PROGRAM = re.compile(r"^(.*)\((\d{1,19})\)$")
_NOT_IN_SYMBOLS = re.compile(r"[^A-Za-z0-9_]")
MAX_MODULES = 1 << 16


def hlo_ref(stats: dict) -> tuple[str, int | None, str] | None:
    """(module or '', program id or None, instruction) a kernel's stats name, or None."""
    op, module = stats.get("hlo_op"), stats.get("hlo_module")
    if not (isinstance(op, str) and op.strip()):
        return None
    module = module if isinstance(module, str) else ""      # older profiles name the op alone
    program = stats.get("program_id")
    if isinstance(program, str) and program.isdigit() and len(program) <= 19:
        program = int(program)
    if not isinstance(program, int) or isinstance(program, bool):
        program = None
    return module.strip(), program, op.strip()


class HloModules:
    """The embedded modules of one profile, by name and program id."""

    def __init__(self, protos: dict):
        self._protos: dict[tuple[str, int | None], bytes] = {}
        self._by_name: dict[str, list] = {}
        for label, data in list(protos.items())[:MAX_MODULES]:
            m = _PROGRAM.match(label)
            key = (m.group(1), int(m.group(2))) if m else (label, None)
            self._protos[key] = data
            self._by_name.setdefault(key[0], []).append(key)
        self._costs: dict = {}
        self.failures: dict[str, str] = {}          # module label -> why it could not be decoded
        self._kernels: dict | None = None
        self._holders: dict | None = None           # instruction name -> modules that have it
        self._decoded = 0                           # computations and instructions decoded so far

    def __len__(self) -> int:
        return len(self._protos)

    def _key(self, module: str, program: int | None):
        if program is not None and (module, program) in self._protos:
            return module, program
        keys = self._by_name.get(module, [])
        return keys[0] if len(keys) == 1 else None

    def module(self, module: str, program: int | None) -> ModuleCosts | None:
        """The costs of the module a kernel names (None: not embedded or not decodable)."""
        key = self._key(module, program)
        if key is None:
            return None
        if key not in self._costs:
            try:
                # every decoded module is kept: their instructions together are bounded too
                decoded = decode_module(self._protos[key], limit=TOTAL_INSTRUCTIONS - self._decoded)
                self._decoded += len(decoded.computations) + sum(len(c.instructions) for c in decoded.computations)
                self._costs[key] = ModuleCosts(decoded)
            except HloDecodeError as exc:
                self.failures[f"{key[0]}({key[1]})" if key[1] is not None else key[0]] = str(exc)
                self._costs[key] = None
            except RooflineError as exc:         # no protobuf runtime
                self.failures["*"] = str(exc)
                self._costs[key] = None
        return self._costs[key]

    def cost(self, ref) -> HloCost | str:
        """The cost of one execution of the instruction ``ref`` names, or why there is none."""
        module, program, op = ref
        if not module:                      # no module named: the one module that has the instruction
            found = self._modules_with(op)
            if len(found) != 1:
                return f"the kernel names no HLO module and {len(found)} embedded modules have {op!r}"
            module = found[0]
        costs = self.module(module, program)
        if costs is None:
            if not self._by_name.get(module):
                return f"the profile embeds no HLO module {module!r}"
            if self._key(module, program) is None:
                return f"{len(self._by_name[module])} programs are named {module!r} and the kernel gives no program id"
            return "its HLO module could not be decoded"
        found = costs.cost(op)
        return f"module {module!r} has no instruction {op!r}" if found is None else found

    def _modules_with(self, op: str) -> list[str]:
        """The modules that have an instruction named ``op``, from an index
        built once (a lookup per kernel over every module was 10^9 steps for
        a file of 20,000 modules and 200,000 kernels)."""
        if self._holders is None:
            self._holders = {}
            for key in list(self._protos):
                costs = self.module(*key)
                for name in (costs.by_name if costs is not None else ()):
                    self._holders.setdefault(name, []).append(key[0])
        return self._holders.get(op, [])

    def kernel_ref(self, kernel: str):
        """The (module, program id, instruction) a kernel is named after, for
        a launch that carries no HLO stats: XLA names a fusion's kernel after
        the fusion, '.' made '_' (``input_transpose_fusion_1`` for
        ``input_transpose_fusion.1``; ``.kd`` is AMD's symbol suffix); only
        a name that one instruction of all the modules has."""
        if self._kernels is None:
            self._kernels = {}
            for key in list(self._protos):
                costs = self.module(*key)
                if costs is None:
                    continue
                fused = {c for i in costs.by_id.values() if i.opcode == "fusion" for c in i.called_computation_ids}
                for comp in costs.module.computations:
                    if comp.id in fused:
                        continue
                    for inst in comp.instructions:
                        if inst.opcode in ("fusion", "custom-call"):
                            symbol = _NOT_IN_SYMBOLS.sub("_", inst.name)
                            ref = (key[0], key[1], inst.name)
                            self._kernels[symbol] = None if symbol in self._kernels else ref
        return self._kernels.get(_NOT_IN_SYMBOLS.sub("_", kernel.strip().removesuffix(".kd")))
