"""Check a kernel's SASS against its declaration (kernels.KernelSpec).

The checks, each returning a plain sentence when it fails:

* exactly one loop contains the declared work opcodes (the timed loop; a
  second one means the `#pragma unroll 1` loop was unrolled or duplicated,
  none means the compiler deleted it);
* inside it, every declared opcode occurs exactly the declared number of
  times (up to ``slack`` extra for loop bookkeeping such as the counter);
* no memory instruction in the loop that was not declared;
* at most ``max_overhead`` other instructions (NOPs excluded);
* no local-memory traffic (STL/LDL spills) anywhere in the function, and
  ``LOCAL:0`` in the resource usage when it is given.
"""
from __future__ import annotations

from collections import Counter
from typing import Mapping

from .kernels import WIDE_OPCODES, KernelSpec
from .sass import Function, Instruction, Loop

# Modifiers that do not change what an instruction computes for our purpose:
# flush-to-zero (CuPy compiles with -ftz=true) and the HFMA2.MMA variant that
# runs an FP16 FMA on the other pipe.
IGNORED_MODIFIERS = frozenset({"FTZ", "MMA"})
MEMORY_BASES = frozenset({"LDG", "STG", "LDS", "STS", "LD", "ST", "LDL", "STL",
                          "ATOM", "ATOMG", "ATOMS", "RED", "LDSM", "LDGSTS"})
NOT_WORK = frozenset({"NOP"})


def matches(declared: str, opcode: str) -> bool:
    """Whether SASS ``opcode`` is the ``declared`` one, up to ignored modifiers.

    Memory opcodes must match exactly (the modifiers are the cache operator
    and width under test): ``LDG.E.128`` does not match
    ``LDG.E.128.STRONG.GPU``.
    """
    d_base, *d_mods = declared.split(".")
    o_base, *o_mods = opcode.split(".")
    if d_base != o_base:
        return False
    if d_base in MEMORY_BASES:
        return declared == opcode
    d, o = set(d_mods), set(o_mods)
    return d <= o and (o - d) <= IGNORED_MODIFIERS


def count_declared(declared: str, body) -> int:
    """Occurrences of ``declared`` in ``body``, wide opcodes weighted."""
    n = 0
    for ins in body:
        if matches(declared, ins.opcode):
            n += 1
            continue
        base, *mods = ins.opcode.split(".")
        if base in WIDE_OPCODES:
            narrow, factor = WIDE_OPCODES[base]
            if matches(declared, ".".join([narrow, *mods])):
                n += factor
    return n


def _is_declared(ins: Instruction, expected: Mapping[str, int]) -> bool:
    return any(count_declared(d, (ins,)) for d in expected)


def timed_loop(function: Function, expected: Mapping[str, int]) -> tuple[Loop | None, list[str]]:
    """The innermost loop holding declared opcodes, and problems finding it."""
    holding = [lp for lp in function.loops() if any(_is_declared(i, expected) for i in lp.body)]
    if not holding:
        loops = len(function.loops())
        return None, [f"{function.name}: no loop contains {', '.join(sorted(expected))} "
                      f"({loops} loop(s) in the function; was the timed loop optimised away?)"]
    inner = holding[0]
    others = [lp for lp in holding[1:] if not lp.contains(inner)]
    if others:
        return inner, [f"{function.name}: {1 + len(others)} separate loops contain the work "
                       "opcodes (timed loop unrolled or duplicated: is `#pragma unroll 1` there?)"]
    return inner, []


def check(spec: KernelSpec, function: Function | None, arch: int,
          resources: Mapping[str, int] | None = None) -> list[str]:
    """Problems with ``function`` (the SASS of ``spec`` for ``sm_<arch>``);
    an empty list means it matches the declaration."""
    if function is None:
        return [f"{spec.name}: not found in the cubin"]
    problems = []
    spills = [i for i in function.instructions if i.base in ("STL", "LDL")]
    if spills:
        problems.append(f"{spec.name}: {len(spills)} local-memory instruction(s) "
                        f"({', '.join(sorted({i.opcode for i in spills}))}): register spills")
    if resources is not None and resources.get("LOCAL", 0) != 0:
        problems.append(f"{spec.name}: {resources['LOCAL']} bytes of local memory (spills)")
    if not spec.has_loop:
        # An empty kernel is EXIT plus at most the stack-pointer set-up (MOV R1).
        work = [i for i in function.instructions if i.base not in NOT_WORK | {"BRA", "EXIT"}]
        if len(work) > 2 or any(i.base in MEMORY_BASES for i in work):
            problems.append(f"{spec.name}: expected an empty kernel, found "
                            + ", ".join(i.opcode for i in work))
        return problems
    expected = spec.expected_opcodes(arch)
    loop, found = timed_loop(function, expected)
    problems += found
    if loop is None:
        return problems
    for opcode, want in sorted(expected.items()):
        got = count_declared(opcode, loop.body)
        extra = spec.slack.get(opcode, 0)
        if not want <= got <= want + extra:
            allowed = f"{want}" if not extra else f"{want}..{want + extra}"
            problems.append(f"{spec.name} sm_{arch}: {opcode} x{got} in the timed loop, "
                            f"declared {allowed}")
    stray_mem = Counter(i.opcode for i in loop.body
                        if i.base in MEMORY_BASES and not _is_declared(i, expected))
    if stray_mem:
        problems.append(f"{spec.name} sm_{arch}: undeclared memory instructions in the timed loop: "
                        + ", ".join(f"{k} x{v}" for k, v in sorted(stray_mem.items())))
    if spec.max_overhead is not None:
        other = [i for i in loop.body if i.base not in NOT_WORK and not _is_declared(i, expected)]
        if len(other) > spec.max_overhead:
            top = Counter(i.opcode for i in other).most_common(4)
            problems.append(f"{spec.name} sm_{arch}: {len(other)} non-work instructions in the "
                            f"timed loop (at most {spec.max_overhead}): "
                            + ", ".join(f"{k} x{v}" for k, v in top))
    return problems


def loop_summary(spec: KernelSpec, function: Function, arch: int) -> dict[str, int]:
    """Declared opcodes as counted in the timed loop (for reports)."""
    expected = spec.expected_opcodes(arch)
    loop, _ = timed_loop(function, expected)
    if loop is None:
        return {}
    return {op: count_declared(op, loop.body) for op in expected}


def verify_source(source: str, filename: str, arch: int, suffix: str = "", *, nvrtc=None,
                  specs=None, tool: str | None = None) -> dict[str, dict]:
    """Compile ``source`` for ``sm_<arch><suffix>`` exactly as the runtime does,
    disassemble it and check every declared kernel of ``filename`` that
    supports ``arch``. Returns {kernel: {"problems", "counts", "registers"}}.
    """
    from . import build, sass
    from .kernels import KERNELS

    specs = [s for s in (specs or KERNELS)
             if s.source == filename and s.supports(arch) and s.arch_suffix == suffix]
    compiled = build.compile_cubin(source, f"{arch}{suffix}", name=filename, nvrtc=nvrtc)
    functions = sass.parse_sass(sass.disassemble(compiled.cubin, tool))
    usage = sass.resource_usage(compiled.cubin)
    out = {}
    for spec in specs:
        fn = functions.get(spec.name)
        res = usage.get(spec.name)
        out[spec.name] = {
            "problems": check(spec, fn, arch, res),
            "counts": loop_summary(spec, fn, arch) if fn is not None and spec.has_loop else {},
            "registers": None if res is None else res.get("REG"),
        }
    return out


def main(argv=None) -> int:
    """``python -m roofline.microbench.gpu.verify [ARCH ...]``: print the check table."""
    import sys

    from .build import kernel_source
    from .kernels import KERNELS, SOURCES

    args = argv if argv is not None else sys.argv[1:]
    archs = [int(a) for a in args] or [75, 80, 86, 89, 90, 100, 120]
    bad = 0
    for arch in archs:
        for filename in SOURCES:
            mine = [s for s in KERNELS if s.source == filename]
            for suffix in sorted({s.arch_suffix for s in mine}):
                if not any(s.supports(arch) and s.arch_suffix == suffix for s in mine):
                    continue
                result = verify_source(kernel_source(filename), filename, arch, suffix)
                for name, r in result.items():
                    status = "ok" if not r["problems"] else "FAIL"
                    bad += bool(r["problems"])
                    counts = ", ".join(f"{k} x{v}" for k, v in r["counts"].items())
                    print(f"sm_{arch}{suffix:<2} {name:<13} {status:<4} regs={r['registers']} {counts}")
                    for p in r["problems"]:
                        print(f"    {p}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
