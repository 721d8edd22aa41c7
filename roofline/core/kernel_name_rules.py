"""One rule per library's naming convention (:mod:`.kernel_precision` has
the table, with the sources, and tries the rules in order): each takes a
kernel name and returns a :class:`~.kernel_name_types.NamePrecision`, or None
when the name is not of its library or does not say. Standard library only."""
from __future__ import annotations

import re

from .kernel_name_types import (ACC_LETTER, NamePrecision, SRC_AMD_FP32, SRC_CK, SRC_CUTE, SRC_CUTLASS2,
                                SRC_CUTLASS3, SRC_CUTLASS_TEMPLATE, SRC_FLASH, SRC_LEGACY, SRC_MEMEFF,
                                SRC_NVJET, SRC_TENSILE, SRC_TRTLLM_BMM, SRC_TRTLLM_FMHA, SRC_XMMA,
                                SRC_XMMA_TRAITS, TENSOR, TYPE_WORD, VECTOR, accumulated, library_of, named,
                                nvidia_narrow, pair_type)


# ---------------------------------------------------------------- nvjet (cuBLASLt)
_NVJET = re.compile(r"(?<![A-Za-z0-9])nvjet_(?:sm\d+[a-z]?_)?(?P<code>[a-z]{3}|[a-z]{5})_")
_NVJET_LETTER = {"h": "tensor_fp16", "t": "tensor_bf16", "q": "tensor_fp8"}


def nvjet(name: str) -> NamePrecision | None:
    m = _NVJET.search(name)
    if not m:
        return None
    code = m.group("code")
    if len(code) == 5 and code[0] != code[1]:
        return None
    # a three-letter code is input, compute (accumulate), output: hsh accumulates in FP32, hhh in FP16
    acc = "f16" if len(code) == 3 and code[1] == "h" else None
    return named(accumulated(_NVJET_LETTER.get(code[0]), acc), "cuBLASLt", "nvjet_" + code, SRC_NVJET)


# ---------------------------------------------------------------- xmma (cuBLAS/cuDNN)
_XMMA = re.compile(r"(?<![A-Za-z0-9])sm(?P<arch>\d{2,3})[a-z]?_xmma_(?P<rest>[A-Za-z0-9_]+)")
_XTYPE = r"(?:tf32|bf16|f16|f32|f64|e4m3|e5m2|e2m1|i8|u8|s8|i32)"
_XMMA_PAIR = re.compile(rf"(?P<a>{_XTYPE})(?P<b>{_XTYPE})")
_XMMA_TENSOR = re.compile(r"tensor\d+x\d+x\d+|warpgroupsize\w*|[hiqd]g?mma")


def xmma(name: str) -> NamePrecision | None:
    m = _XMMA.search(name)
    if not m:
        return None
    tokens = m.group("rest").split("_")
    pairs = []
    for i, tok in enumerate(tokens):
        p = _XMMA_PAIR.fullmatch(tok)
        if p:
            pairs.append(p)
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            q = _XMMA_PAIR.fullmatch(nxt)
            if q:
                pairs.append(q)
            break
    if not pairs:
        return None
    mma = TYPE_WORD.get(pairs[-1].group("a"))
    vector = "ffma" in tokens or "dfma" in tokens
    tensor = any(_XMMA_TENSOR.fullmatch(t) for t in tokens)
    evidence = "xmma_" + "_".join(p.group(0) for p in pairs)
    if vector:
        evidence += "_" + ("ffma" if "ffma" in tokens else "dfma")
    if mma == "f32":
        key = None if tensor else "fp32"
    elif mma == "f64":
        key = "tensor_fp64" if tensor and not vector else ("fp64" if vector else None)
    else:
        key = None if vector else accumulated(TENSOR.get(mma or ""), TYPE_WORD.get(pairs[-1].group("b")))
    return named(key, library_of(name, "cuBLAS"), evidence, SRC_XMMA)


# ---------------------------------------------------------------- CUTLASS 3.x procedural
_CUTLASS3 = re.compile(r"(?<![A-Za-z0-9])cutlass3x_sm\d+[a-z]?_(?P<op>bssptensorop|bstensorop|sptensorop|"
                       r"tensorop|simt)_(?P<rest>[A-Za-z0-9_]+)")
_CORE3 = re.compile(r"(?:[a-z]?\d+x\d+x\d+)?(?P<inter>tf32|bf16|f16|f32|e4m3|e5m2)?"
                    r"(?P<kind>gemm|spgemm|fprop|dgrad|wgrad|trmm|symm|syrk|herk)")


def type3(tok: str) -> str | None:
    # block-scaled operands are spelled {scale}x{type}, e.g. ue8m0xe2m1
    return TYPE_WORD.get(tok.rsplit("x", 1)[-1] if "x" in tok and not tok[0].isdigit() else tok)


def cutlass3(name: str) -> NamePrecision | None:
    m = _CUTLASS3.search(name)
    if not m:
        return None
    tokens = m.group("rest").split("_")
    c = _CORE3.fullmatch(tokens[0])
    if not c or len(tokens) < 3:
        return None
    a, b = type3(tokens[1]), type3(tokens[2])
    mma = TYPE_WORD.get(c.group("inter") or "") or pair_type(a, b)
    if mma is None:
        return None
    mma = nvidia_narrow(mma, m.group("op").startswith("bs"))
    vector = m.group("op") == "simt"
    key = VECTOR.get(mma) if vector else TENSOR.get(mma)
    evidence = f"{m.group('op')}_{tokens[0]}_{tokens[1]}_{tokens[2]}"
    return named(key, library_of(name, "CUTLASS"), evidence, SRC_CUTLASS3)


# ---------------------------------------------------------------- CUTLASS 2.x procedural
_CUTLASS2 = re.compile(r"(?<![A-Za-z0-9])cutlass_(?:\d{2,3}_)?(?P<op>wmma_tensorop|bssptensorop|"
                       r"bstensorop|sptensorop|tensorop|simt)_(?P<rest>[A-Za-z0-9_]+)")
_CORE2 = re.compile(r"(?P<acc>g?[hsdcz]|i)(?P<inst>\d{3,6})?(?:fastaccum|xor|and)?"
                    r"(?P<inter>tf32|bf16|f16|e4m3|e5m2)?"
                    r"(?P<kind>gemm|spgemm|fprop|dgrad|wgrad|deconv|trmm|symm|hemm|syrk|herk|syr2k|her2k)")
_TILE = re.compile(r"\d+x\d+")


def split_core(tokens: list[str], core: re.Pattern, max_pre: int):
    """(types before the core, core match, types after it up to the tile,
    the name's own words for those parts)."""
    for i, tok in enumerate(tokens[:max_pre + 1]):
        c = core.fullmatch(tok)
        if c:
            words = [t for t in tokens[:i] if t in TYPE_WORD] + [tok]
            post = []
            for t in tokens[i + 1:]:
                if _TILE.match(t):
                    break
                if t in TYPE_WORD:
                    post.append(TYPE_WORD[t])
                    words.append(t)
            pre = [TYPE_WORD[t] for t in tokens[:i] if t in TYPE_WORD]
            return pre, c, post, "_".join(words)
        if tok not in TYPE_WORD:
            return None
    return None


def cutlass2(name: str) -> NamePrecision | None:
    m = _CUTLASS2.search(name)
    if not m:
        return None
    split = split_core(m.group("rest").split("_"), _CORE2, 1)
    if split is None:
        return None
    _, c, post, words = split
    acc = c.group("acc")
    vector = m.group("op") == "simt"
    if vector:
        mma = ACC_LETTER.get(acc) or ("i8" if acc == "i" and post and post[0] == "i8" else None)
        key = VECTOR.get(mma or "")
    else:
        inter = TYPE_WORD.get(c.group("inter") or "")
        a = post[0] if post else None
        b = post[1] if len(post) > 1 else None
        mma = inter or (pair_type(a, b) if a else ACC_LETTER.get(acc))
        key = accumulated(TENSOR.get(mma or ""), ACC_LETTER.get(acc))
    return named(key, library_of(name, "CUTLASS"), f"{m.group('op')}_{words}", SRC_CUTLASS2)


# ---------------------------------------------------------------- cuBLAS / cuDNN arch-prefixed
_LEGACY = re.compile(r"(?<![A-Za-z0-9])(?P<arch>maxwell|pascal|volta|turing|ampere|ada|hopper)_"
                     r"(?P<rest>[A-Za-z0-9_]+)")
_CORE_LEGACY = re.compile(r"(?P<acc>g?[hsdcz]|i)(?P<inst>\d{3,5})?(?P<kind>gemm|cudnn)")
_TF32_ARCH = {"ampere", "ada", "hopper"}


def legacy(name: str) -> NamePrecision | None:
    m = _LEGACY.search(name)
    if not m:
        return None
    split = split_core(m.group("rest").split("_"), _CORE_LEGACY, 1)
    if split is None:
        return None
    pre, c, post, words = split
    acc, inst = c.group("acc"), c.group("inst")
    library = "cuDNN" if c.group("kind") == "cudnn" or "cudnn" in name.lower() else "cuBLAS"
    typed = post[0] if post else (pre[0] if pre else None)
    if inst is None:                             # CUDA cores: the accumulator is the math type
        mma = ACC_LETTER.get(acc) or ("i8" if acc == "i" and typed == "i8" else None)
        key = VECTOR.get(mma or "")
    else:
        if typed:
            mma = typed
        elif acc == "h" or (acc == "s" and inst == "884"):
            mma = "f16"                          # Volta/Turing HMMA takes f16 only
        elif acc == "d":
            mma = "f64"
        elif acc == "i" and inst in ("8816", "16816"):
            mma = "i8"
        elif acc == "s" and inst in ("1684", "1688") and m.group("arch") in _TF32_ARCH:
            mma = "tf32"
        else:
            mma = None
        key = accumulated(TENSOR.get(mma or ""), ACC_LETTER.get(acc))
    return named(key, library, f"{m.group('arch')}_{words}", SRC_LEGACY)


_CONVOLVE = re.compile(r"(?<![A-Za-z0-9_])(?:implicit|explicit)_convolve_(?P<acc>[sdh])gemm(?![A-Za-z0-9_])")


def convolve(name: str) -> NamePrecision | None:
    m = _CONVOLVE.search(name)
    if not m:
        return None
    return named(VECTOR[ACC_LETTER[m.group("acc")]], "cuDNN", m.group(0), SRC_LEGACY)


# ---------------------------------------------------------------- Tensile / hipBLASLt
_TENSILE = re.compile(r"(?<![A-Za-z0-9])(?:Custom_)?Cijk_A[A-Za-z]+_B[A-Za-z]+_(?P<rest>[A-Za-z0-9_]+)")
_TENSILE_CHARS = sorted(
    ["S", "D", "C", "Z", "H", "4xi8", "I", "B", "I8", "I64", "X", "F8N", "B8N", "F8B8N", "B8F8N", "F8", "B8",
     "F8B8", "B8F8", "F6", "B6", "F4", "E8M0", "E5M3", "F8F6", "F8B6", "F8F4", "B8F6", "B8B6", "B8F4", "F6F8",
     "F6B8", "F6B6", "F6F4", "B6F8", "B6B8", "B6F6", "B6F4", "F4F8", "F4B8", "F4F6", "F4B6"],
    key=len, reverse=True)
_TENSILE_MI = re.compile(r"(?:^|_)(?P<mi>MI\d+x\d+x\d+(?:x\d+)?)(?=_|$)")
_TENSILE_MATRIX = {"H": "tensor_fp16", "B": "tensor_bf16", "X": "tensor_tf32", "D": "tensor_fp64",
                   "Z": "tensor_fp64", "I8": "tensor_int8", "4xi8": "tensor_int8", "S": "fp32", "C": "fp32",
                   **{t: "tensor_fp8" for t in ("F8", "B8", "F8N", "B8N", "F8B8", "B8F8", "F8B8N", "B8F8N")}}
_TENSILE_VALU = {"S": "fp32", "C": "fp32", "D": "fp64", "Z": "fp64", "H": "fp16"}


def tensile_types(seg: str) -> list[str] | None:
    out, i = [], 0
    while i < len(seg):
        for ch in _TENSILE_CHARS:
            if seg.startswith(ch, i):
                out.append(ch)
                i += len(ch)
                break
        else:
            return None
    return out


def tensile(name: str) -> NamePrecision | None:
    m = _TENSILE.search(name)
    if not m:
        return None
    rest = m.group("rest")
    tokens = rest.split("_")
    first = tensile_types(tokens[0])
    if not first:
        return None
    second = tensile_types(tokens[1]) if len(tokens) > 1 else None
    if second and len(second) == 3 and len(first) == 2:      # _{A}{B}_{T}{D}{C}_: mixed inputs
        seg, types, after = tokens[1], second, tokens[2:]
    else:
        seg, types, after = tokens[0], first, tokens[1:]
    data = types[0]
    # high-precision accumulate: a {T}{D}{C} triple with S/I compute, or the "H" flag (older names)
    hpa = data not in ("S", "D", "C", "Z") and (
        (len(types) == 3 and types[2] in ("S", "I")) or (len(types) >= 2 and types[-1] == "H"))
    mi = _TENSILE_MI.search(rest)
    if mi:
        if data == "S" and after and after[0] == "MX":
            key, evidence = "tensor_tf32", f"{seg}_MX + {mi.group('mi')}"
        else:
            key, evidence = _TENSILE_MATRIX.get(data), f"{seg} + {mi.group('mi')}"
    else:
        key = None if hpa else _TENSILE_VALU.get(data)
        evidence = f"{seg} (no MI)"
    source = SRC_TENSILE + (SRC_AMD_FP32 if key == "fp32" and mi else "")
    return named(key, "Tensile (rocBLAS/hipBLASLt)", evidence, source)


# ---------------------------------------------------------------- TensorRT-LLM / FlashInfer trtllm-gen
_BMM = re.compile(r"(?<![A-Za-z0-9])[Bb]mm_(?P<c>[A-Za-z0-9]+?)_(?P<ab>(?:(?:Mx)?(?:E\dm\d|Bfloat16|Fp16|Int8))+)"
                  r"_(?P<acc>Fp32|Fp16|Int32)_(?=.*(?:_t\d+x\d+x\d+|_sm1\d\d))")
_BMM_TYPE = re.compile(r"(?:Mx)?(E\dm\d|Bfloat16|Fp16|Int8)")
_TRT_TYPE = {"E4m3": "f8", "E5m2": "f8", "E2m1": "f4", "E2m3": "f6", "E3m2": "f6", "Bfloat16": "bf16",
             "Fp16": "f16", "Int8": "i8"}


def bmm(name: str) -> NamePrecision | None:
    m = _BMM.search(name)
    if not m:
        return None
    ops = [_TRT_TYPE.get(t) for t in _BMM_TYPE.findall(m.group("ab"))]
    if not ops or len(ops) > 2 or None in ops:
        return None
    mma = pair_type(ops[0], ops[1] if len(ops) == 2 else None)
    if mma in ("f16", "bf16") and set(ops) != {mma}:
        mma = None                              # a 16-bit type with a narrow one: conversion not shown
    # FP4 x FP4 in trtllm-gen is block-scaled (MxE2m1, or E2m1 = NVFP4 with FP8 scales) and
    # KernelMetaInfo.h gives it mMmaK 64, twice FP8's: the mxf4 kinds, at the FP4 rate
    mma = nvidia_narrow(mma, block_scaled=True)
    return named(TENSOR.get(mma or ""), "TensorRT-LLM/FlashInfer (trtllm-gen)",
                   f"bmm_{m.group('c')}_{m.group('ab')}_{m.group('acc')}", SRC_TRTLLM_BMM)


_FMHA = re.compile(r"(?<![A-Za-z0-9])fmhaSm\d+[a-z]?Kernel_(?:Qkv(?P<qkv>E4m3|E5m2|Bfloat16|Fp16)|"
                   r"Q(?P<q>E4m3|E5m2|Bfloat16|Fp16)Kv(?P<kv>E4m3|E5m2|Bfloat16|Fp16|E2m1))O(?P<o>[A-Z][a-z0-9]+)")


def fmha(name: str) -> NamePrecision | None:
    m = _FMHA.search(name)
    if not m:
        return None
    if m.group("qkv"):
        mma = _TRT_TYPE[m.group("qkv")]
    else:
        q, kv = _TRT_TYPE[m.group("q")], _TRT_TYPE[m.group("kv")]
        mma = q if q == kv else None
    return named(TENSOR.get(mma or ""), "TensorRT-LLM/FlashInfer (trtllm-gen)",
                   m.group(0)[m.group(0).index("_") + 1:], SRC_TRTLLM_FMHA)


# ---------------------------------------------------------------- PyTorch memory-efficient attention
_MEMEFF = re.compile(r"(?<![A-Za-z0-9])fmha_cutlass(?P<d>[FB])_(?P<t>f16|bf16|f32)_(?:not)?aligned_"
                     r"[A-Za-z0-9_]*?sm(?P<sm>\d{2,3})(?![0-9])")


def memeff(name: str) -> NamePrecision | None:
    m = _MEMEFF.search(name)
    if not m:
        return None
    t, sm = m.group("t"), int(m.group("sm"))
    if t == "f16":
        key = "tensor_fp16" if sm >= 70 else "fp16"
    elif t == "bf16":
        key = "tensor_bf16" if sm >= 80 else None
    else:
        key = "tensor_tf32" if sm >= 80 else "fp32"
    return named(key, "PyTorch (memory-efficient attention, CUTLASS)",
                   f"fmha_cutlass{m.group('d')}_{t}_sm{sm}", SRC_MEMEFF)


# ---------------------------------------------------------------- cute MMA atoms (CUTLASS 3, FA3)
_CUTE_T = r"(?:TF32|BF16|F64|F32|F16|S32|S8|U8|S4|U4|E4M3|E5M2|E2M1|E3M2|E2M3)"
_CUTE_ATOM = re.compile(rf"(?<![A-Za-z_])(?:SM\d{{2,3}}|MMA)_\d+x\d+x\d+_(?P<chain>{_CUTE_T}{{3,4}})"
                        r"_(?:SS|RS|TS|TN|NT|TT|NN)")
_CUTE_TYPE = re.compile(_CUTE_T)
_CUTE_WORD = {"TF32": "tf32", "BF16": "bf16", "F64": "f64", "F32": "f32", "F16": "f16", "S32": None,
              "S8": "i8", "U8": "i8", "S4": "i4", "U4": "i4", "E4M3": "f8", "E5M2": "f8", "E2M1": "f4",
              "E3M2": "f6", "E2M3": "f6"}
_UMMA = re.compile(r"(?<![A-Za-z_])SM1\d\d_MMA_(?P<kind>TF32|F16BF16|MXF8F6F4|F8F6F4|MXF4NVF4|MXF4|S8)(?=_)")
_UMMA_KIND = {"TF32": "tensor_tf32", "MXF8F6F4": "tensor_fp8", "F8F6F4": "tensor_fp8", "S8": "tensor_int8",
              "MXF4NVF4": "tensor_fp4", "MXF4": "tensor_fp4"}


def element_types(name: str) -> set[str]:
    return set(_CUTLASS_ELEM.findall(name))


def cute(name: str) -> NamePrecision | None:
    keys, evidence = set(), []
    for m in _CUTE_ATOM.finditer(name):
        types = _CUTE_TYPE.findall(m.group("chain"))
        if len(types) < 3:
            return None
        mma = pair_type(_CUTE_WORD[types[1]], _CUTE_WORD[types[2]])
        keys.add(TENSOR.get(mma or ""))
        evidence.append(m.group(0))
    for m in _UMMA.finditer(name):
        kind = m.group("kind")
        if kind == "F16BF16":
            elems = element_types(name) & {"half_t", "bfloat16_t"}
            key = _ELEM_KEY[elems.pop()] if len(elems) == 1 else None
        else:
            key = _UMMA_KIND.get(kind)
        keys.add(key)
        evidence.append(m.group(0))
    if not evidence:
        return None
    key = keys.pop() if len(keys) == 1 else None
    return named(key, library_of(name, "CUTLASS (cute)"), evidence[0], SRC_CUTE)


# ---------------------------------------------------------------- xmma templated names
_XMMA_TRAITS = re.compile(r"(?<![A-Za-z0-9])(?:Volta|Turing|Ampere|Ada|Hopper|Blackwell)_"
                          r"(?P<mma>hmma|imma|dmma|hgmma|qgmma|igmma)_(?P<t>tf32|bf16|fp16|fp32|int8|fp64|"
                          r"e4m3|e5m2)\w*?_traits")
_TRAITS_KEY = {("hmma", "tf32"): "tensor_tf32", ("hgmma", "tf32"): "tensor_tf32",
               ("hmma", "bf16"): "tensor_bf16", ("hgmma", "bf16"): "tensor_bf16",
               ("hmma", "fp16"): "tensor_fp16", ("hgmma", "fp16"): "tensor_fp16",
               ("imma", "int8"): "tensor_int8", ("igmma", "int8"): "tensor_int8",
               ("dmma", "fp64"): "tensor_fp64",
               ("qgmma", "e4m3"): "tensor_fp8", ("qgmma", "e5m2"): "tensor_fp8"}


def xmma_traits(name: str) -> NamePrecision | None:
    m = _XMMA_TRAITS.search(name)
    if not m:
        return None
    key = _TRAITS_KEY.get((m.group("mma"), m.group("t")))
    library = "cuDNN" if "implicit_gemm" in name else library_of(name, "cuBLAS")
    return named(key, library, m.group(0), SRC_XMMA_TRAITS)


# ---------------------------------------------------------------- CUTLASS 2 templates
_CUTLASS_ELEM = re.compile(r"(?<![A-Za-z_])(half_t|bfloat16_t|tfloat32_t|float_e4m3_t|float_e5m2_t)")
_ELEM_KEY = {"half_t": "tensor_fp16", "bfloat16_t": "tensor_bf16", "tfloat32_t": "tensor_tf32",
             "float_e4m3_t": "tensor_fp8", "float_e5m2_t": "tensor_fp8"}


def cutlass_template(name: str) -> NamePrecision | None:
    if "MmaTensorOp" not in name or "cutlass" not in name:
        return None
    keys = {_ELEM_KEY[e] for e in element_types(name)}
    if not keys and "OpMultiplyAddFastF32" in name:
        keys = {"tensor_tf32"}
    if len(keys) != 1:
        return None
    key = keys.pop()
    elems = sorted(element_types(name)) or ["OpMultiplyAddFastF32"]
    return named(key, library_of(name, "CUTLASS"), "MmaTensorOp + " + "/".join(elems), SRC_CUTLASS_TEMPLATE)


# ---------------------------------------------------------------- FlashAttention 2
_FLASH = re.compile(r"(?<![A-Za-z0-9_])flash_(?:fwd|bwd)\w*kernel<")


def flash(name: str) -> NamePrecision | None:
    if not _FLASH.search(name):
        return None
    elems = element_types(name) & {"half_t", "bfloat16_t"}
    if len(elems) != 1:
        return None
    e = elems.pop()
    return named(_ELEM_KEY[e], "FlashAttention", f"flash kernel<cutlass::{e}>", SRC_FLASH)


# ---------------------------------------------------------------- composable_kernel
_CK = re.compile(r"(?<![A-Za-z0-9_])ck::\w*?(?:xdl|Xdl|XDL|wmma|Wmma|WMMA)\w*<")
_CK_TYPE = re.compile(r"(?<![A-Za-z0-9_])(?:ck::)?(?P<t>half_t|bhalf_t|bf8_fnuz_t|f8_fnuz_t|bf8_ocp_t|f8_ocp_t|"
                      r"bf8_t|f8_t|pk_i4_t|int8_t|_Float16|unsigned short|signed char|double|float)"
                      r"(?![A-Za-z0-9_])")
_CK_KEY = {"half_t": "tensor_fp16", "_Float16": "tensor_fp16", "bhalf_t": "tensor_bf16",
           "unsigned short": "tensor_bf16", "f8_t": "tensor_fp8", "bf8_t": "tensor_fp8",
           "f8_fnuz_t": "tensor_fp8", "bf8_fnuz_t": "tensor_fp8", "f8_ocp_t": "tensor_fp8",
           "bf8_ocp_t": "tensor_fp8", "int8_t": "tensor_int8", "signed char": "tensor_int8",
           "double": "tensor_fp64", "float": "fp32"}


def ck(name: str) -> NamePrecision | None:
    m = _CK.search(name)
    if not m:
        return None
    t = _CK_TYPE.search(name, m.end())
    if not t:
        return None
    key = _CK_KEY.get(t.group("t"))
    source = SRC_CK + (SRC_AMD_FP32 if key == "fp32" else "")
    return named(key, "CK (composable_kernel)", f"{m.group(0)}..{t.group('t')}", source)
