"""Write a synthetic Kineto trace shaped like a BERT training step on a GPU.

    python benchmarks/bert_trace.py -o bert.json --kernels 900000

Each kernel has what a real PyTorch 2.x trace gives it: a ``cpu_op`` with
``Input Dims``/``Input type``/``Concrete Inputs``, a ``cudaLaunchKernel``
runtime event inside the operator with the kernel's ``correlation``, the
kernel event (grid, block, registers, occupancy ...), and the two ``ac2g``
flow events linking launch and kernel. Names, shapes and durations cycle
through a BERT-large layer (GEMMs from ``aten::addmm``/``aten::bmm``,
softmax, layer norm, GELU, dropout, adds, and the optimizer's
``_foreach_*`` ops), so about a third of kernels are GEMMs as in the seeds'
lecture (274,825 GEMM kernels of 913,233). Written in chunks, so memory
stays small whatever the size.

``--shape five`` writes a trace of another shape (issue 21: the reader
was 0.31x json.loads on it against 0.17x on the BERT shape): five
operators cycling, every kernel name a 400-character demangled C++ name,
and the JSON written as Kineto writes it, with a space after every ``,``
and ``:``. ``--shape long`` writes a trace dominated by operators with long
shape lists (``_foreach_*`` over 128-256 tensors, ``cat``/``stack`` of 96-128):
a few KB of operator arguments per kernel.

``--shape replay`` is generated differently: the events of a real trace
(default: the H100 OWLv2 inference trace of ``realdata/pairs``, found
through ``ROOFLINE_REALDATA``; ``--source`` names another) repeated until
there are ``--kernels`` kernels, each copy's times shifted past the
previous one and its ids (External id, correlation, flow ids, Python ids)
made new, written with the file's own layout (one key a line, indented).
Half its events are ``python_function`` and 30 events go with each kernel,
as in a real trace recorded with stacks: about 10.7 KB per kernel.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
from pathlib import Path

B, S, H, FF, HEADS = 32, 128, 1024, 4096, 16

# (operator, Input Dims, Input type, Concrete Inputs, kernel name, kernel us)
LAYER = [
    ("aten::addmm", [[3 * H], [B * S, H], [H, 3 * H], [], []], ["c10::Half"] * 3 + ["Scalar"] * 2,
     ["", "", "", "1", "1"], "ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_32x3_nn", 310.0),
    ("aten::bmm", [[B * HEADS, S, H // HEADS], [B * HEADS, H // HEADS, S]], ["c10::Half"] * 2, ["", ""],
     "ampere_fp16_s16816gemm_fp16_128x64_ldg8_f2f_stages_32x6_nn", 42.0),
    ("aten::_softmax", [[B, HEADS, S, S], [], []], ["c10::Half", "Scalar", "Scalar"], ["", "-1", "False"],
     "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::Half, float, c10::Half>", 61.0),
    ("aten::native_dropout", [[B, HEADS, S, S], [], []], ["c10::Half", "Scalar", "Scalar"], ["", "0.1", "True"],
     "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<c10::Half, float, unsigned int, 1, 8>", 55.0),
    ("aten::bmm", [[B * HEADS, S, S], [B * HEADS, S, H // HEADS]], ["c10::Half"] * 2, ["", ""],
     "ampere_fp16_s16816gemm_fp16_128x64_ldg8_f2f_stages_32x6_nn", 40.0),
    ("aten::addmm", [[H], [B * S, H], [H, H], [], []], ["c10::Half"] * 3 + ["Scalar"] * 2,
     ["", "", "", "1", "1"], "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", 105.0),
    ("aten::add", [[B, S, H], [B, S, H], []], ["c10::Half", "c10::Half", "Scalar"], ["", "", "1"],
     "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>, "
     "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::Half>, at::detail::Array<char*, 3>)", 18.0),
    ("aten::native_layer_norm", [[B, S, H], [], [H], [H], []], ["c10::Half", "ScalarList", "c10::Half",
     "c10::Half", "Scalar"], ["", "[1024]", "", "", "1e-12"],
     "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::Half, float>", 21.0),
    ("aten::addmm", [[FF], [B * S, H], [H, FF], [], []], ["c10::Half"] * 3 + ["Scalar"] * 2,
     ["", "", "", "1", "1"], "ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_32x3_nn", 400.0),
    ("aten::gelu", [[B, S, FF], []], ["c10::Half", ""], ["", "none"],
     "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
     "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::"
     "{lambda(c10::Half)#1}, at::detail::Array<char*, 2> >", 60.0),
    ("aten::addmm", [[H], [B * S, FF], [FF, H], [], []], ["c10::Half"] * 3 + ["Scalar"] * 2,
     ["", "", "", "1", "1"], "ampere_fp16_s16816gemm_fp16_128x256_ldg8_f2f_stages_64x3_nn", 395.0),
    ("aten::_foreach_add_", [[[H, H], [H]] * 4, [[H, H], [H]] * 4, []], ["TensorList", "TensorList", "Scalar"], ["", "", "1"],
     "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
     "TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<c10::Half, 2, 2, 0>, "
     "std::plus<float>, float>", 33.0),
]


def events(n_kernels: int, layer=None):
    """The trace events of ``n_kernels`` kernels, in time order."""
    layer = LAYER if layer is None else layer
    t = 1_700_000_000_000.0
    for i in range(n_kernels):
        name, dims, types, concrete, kernel, dur = layer[i % len(layer)]
        ext, corr = 2 * i + 1, 100_000 + i
        yield {"ph": "X", "cat": "cpu_op", "name": name, "pid": 7, "tid": 7, "ts": t, "dur": 12.5,
               "args": {"External id": ext, "Record function id": 0, "Sequence number": i, "Fwd thread id": 0,
                        "Concrete Inputs": concrete, "Input type": types,
                        "Input Strides": [[1] * len(d) for d in dims], "Input Dims": dims, "Ev Idx": i}}
        yield {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": t + 4.0,
               "dur": 5.0, "args": {"External id": ext, "cbid": 211, "correlation": corr}}
        yield {"ph": "s", "id": corr, "pid": 7, "tid": 7, "ts": t + 4.0, "cat": "ac2g", "name": "ac2g"}
        yield {"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": t + 20.0, "dur": dur,
               "args": {"External id": ext, "queued": 0, "device": 0, "context": 1, "stream": 7,
                        "correlation": corr, "registers per thread": 168, "shared memory": 49152,
                        "blocks per SM": 1.5, "warps per SM": 12.0, "grid": [128, 2, 1], "block": [256, 1, 1],
                        "est. achieved occupancy %": 19}}
        yield {"ph": "f", "id": corr, "pid": 0, "tid": 7, "ts": t + 20.0, "cat": "ac2g", "name": "ac2g", "bp": "e"}
        t += dur + 22.0


def _long_name(core: str, length: int = 400) -> str:
    """A demangled-looking kernel name of exactly ``length`` characters."""
    tail = (", at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>, "
            "at::detail::Array<char*, 3>, TrivialOffsetCalculator<2, unsigned int>, "
            "OffsetCalculator<1, unsigned int, false>")
    name = f"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<{core}"
    while len(name) < length - 40:
        name += tail
    name = name[:length - 40]
    return (name + ">(int, at::TensorIteratorBase&)::{lambda(int)#1}>").ljust(length, " ")[:length]


# five operators cycling, 400-character kernel names (the issue-21 shape)
FIVE = [
    ("aten::add", [[B, S, H], [B, S, H], []], ["c10::Half", "c10::Half", "Scalar"], ["", "", "1"],
     _long_name("at::native::CUDAFunctor_add<c10::Half>"), 18.0),
    ("aten::mul", [[B, S, H], [B, S, H]], ["c10::Half", "c10::Half"], ["", ""],
     _long_name("at::native::binary_internal::MulFunctor<c10::Half>"), 17.0),
    ("aten::gelu", [[B, S, FF], []], ["c10::Half", ""], ["", "none"],
     _long_name("at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)"), 60.0),
    ("aten::addmm", [[H], [B * S, H], [H, H], [], []], ["c10::Half"] * 3 + ["Scalar"] * 2, ["", "", "", "1", "1"],
     _long_name("cutlass::Kernel2<cutlass_80_tensorop_f16_s16816gemm_relu_f16_128x128_32x4_nn_align8"), 105.0),
    ("aten::copy_", [[B, S, H], [B, S, H], []], ["c10::Half", "float", "Scalar"], ["", "", "False"],
     _long_name("at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}"), 25.0),
]

def _tensor_list(shapes: list, times: int) -> list:
    return [list(s) for s in shapes] * times


# operators with long shape lists (the optimizer's _foreach_* ops over every
# parameter, cat and stack of many tensors): most of the bytes are operator
# arguments, a few KB per event, as in a trace of an optimizer-heavy step
LONG = [
    ("aten::_foreach_mul_", [_tensor_list([[H, H], [H], [FF, H], [FF]], 64), []], ["TensorList", "Scalar"],
     ["", "0.9"], "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
     "namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<c10::Half, 1, 1, 0>, "
     "std::multiplies<float>, float>", 1400.0),
    ("aten::cat", [_tensor_list([[B, S, 64]], 96), []], ["TensorList", "Scalar"], ["", "-1"],
     "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::OpaqueType<2>, "
     "unsigned int, 3, 64, 64>", 110.0),
    ("aten::_foreach_add_", [_tensor_list([[H, H], [H]], 128), _tensor_list([[H, H], [H]], 128), []],
     ["TensorList", "TensorList", "Scalar"], ["", "", "1"],
     "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
     "TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<c10::Half, 2, 2, 0>, "
     "std::plus<float>, float>", 1700.0),
    ("aten::stack", [_tensor_list([[B, H]], 128), []], ["TensorList", "Scalar"], ["", "0"],
     "void at::native::(anonymous namespace)::CatArrayBatchedCopy_contig<at::native::(anonymous namespace)::"
     "OpaqueType<2>, unsigned int, 2, 128, 1>", 20.0),
    ("aten::addmm", [[H], [B * S, H], [H, H], [], []], ["c10::Half"] * 3 + ["Scalar"] * 2,
     ["", "", "", "1", "1"], "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", 105.0),
]
SHAPES = {"bert": (LAYER, (",", ":")), "five": (FIVE, (", ", ": ")), "long": (LONG, (", ", ": ")),
          "replay": (None, None)}


REPLAY_SOURCE = "pairs/AMD-AGI__TraceLens__h100__google_owlv2-large-patch14-ensemble__1016001.json.gz"
# ids made new in each copy (the flow events' own ``id`` too)
_ID_ARGS = ("External id", "correlation", "Python id", "Python parent id", "Ev Idx", "Record function id",
            "Sequence number")
_ID_STEP = 10_000_000


def replay_source() -> Path:
    root = os.environ.get("ROOFLINE_REALDATA")
    if not root:
        raise SystemExit("--shape replay needs ROOFLINE_REALDATA (the realdata folder) or --source")
    return Path(root) / REPLAY_SOURCE


def write_replay(path: str, n_kernels: int, source: Path | None = None) -> None:
    """A real trace's events repeated until ``n_kernels`` kernels (see the module's text)."""
    source = replay_source() if source is None else Path(source)
    with (gzip.open(source) if source.suffix == ".gz" else open(source, "rb")) as fh:
        trace = json.load(fh)
    events = trace.pop("traceEvents")
    times = [e["ts"] for e in events if isinstance(e.get("ts"), (int, float))]
    span = max(times) - min(times) + 1000.0
    kernels = sum(e.get("cat") == "kernel" for e in events)
    with open(path, "w") as out:
        out.write(json.dumps(trace, indent=2)[:-1].rstrip() + ',\n  "traceEvents": [\n')
        for copy in range(-(-n_kernels // kernels)):
            batch = [json.dumps(_shifted(e, copy, span), indent=2) for e in events
                     if copy == 0 or e.get("ph") != "M"]          # metadata once
            out.write(("" if copy == 0 else ",\n") + ",\n".join(batch))
        out.write("\n  ]\n}\n")


def _shifted(event: dict, copy: int, span: float) -> dict:
    """``event`` in copy ``copy``: its time ``copy`` spans later, its ids new."""
    if not copy:
        return event
    event = dict(event)
    if isinstance(event.get("ts"), (int, float)):
        event["ts"] = round(event["ts"] + copy * span, 3)
    if isinstance(event.get("id"), int):
        event["id"] += copy * _ID_STEP
    args = event.get("args")
    if isinstance(args, dict):
        event["args"] = args = dict(args)
        for key in _ID_ARGS:
            if type(args.get(key)) is int:
                args[key] += copy * _ID_STEP
    return event


def write(path: str, n_kernels: int, chunk: int = 20_000, shape: str = "bert", source: Path | None = None) -> None:
    if shape == "replay":
        write_replay(path, n_kernels, source)
        return
    layer, separators = SHAPES[shape]
    head = {"schemaVersion": 1, "deviceProperties": [
        {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85_899_345_920, "computeMajor": 8,
         "computeMinor": 0, "numSms": 108}], "record_shapes": 1}
    with open(path, "w") as fh:
        fh.write(json.dumps(head)[:-1] + ', "traceEvents": [\n')
        batch, first = [], True
        for e in events(n_kernels, layer):
            batch.append(json.dumps(e, separators=separators))
            if len(batch) >= chunk:
                fh.write(("" if first else ",\n") + ",\n".join(batch))
                batch, first = [], False
        if batch:
            fh.write(("" if first else ",\n") + ",\n".join(batch))
        fh.write('\n], "displayTimeUnit": "ms"}\n')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", default="bert_trace.json")
    parser.add_argument("--kernels", type=int, default=900_000, help="number of kernels (default 900,000)")
    parser.add_argument("--shape", choices=sorted(SHAPES), default="bert",
                        help="bert (a BERT layer, compact JSON), five (five operators, 400-character names, "
                             "spaces after separators), long (operators with long shape lists) or replay "
                             "(a real trace's events repeated)")
    parser.add_argument("--source", type=Path, help="the real trace --shape replay repeats (default: "
                        f"$ROOFLINE_REALDATA/{REPLAY_SOURCE})")
    args = parser.parse_args()
    write(args.output, args.kernels, shape=args.shape, source=args.source)
    print(f"wrote {args.output} ({args.kernels:,} kernels)")


if __name__ == "__main__":
    main()
