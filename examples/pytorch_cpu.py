"""Profile a small CNN and a small transformer encoder on the CPU with
torch.profiler and write the trace, ready for ``roofline report``:

    pip install 'roofline[torch]'
    python examples/pytorch_cpu.py -o pytorch_cpu_trace.json.gz
    roofline measure --quick
    roofline report pytorch_cpu_trace.json.gz --device my-cpu -o cpu_ops.html

The trace is recorded with ``record_shapes=True`` (roofline's operator
models need input shapes, dtypes and concrete arguments) and
``with_flops=True`` (torch's own FLOP count for matrix and convolution
operators, which ``roofline`` compares with its models). One training step
(forward, backward, an Adam step) of each model is recorded after two
warm-up steps, so one-time allocation and thread start-up stay out.

``examples/pytorch_cpu_trace.json.gz`` in the repository was written by this
script; torch is needed only to write a new one, never to read it.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import tempfile

import torch
from torch import nn


def small_cnn() -> nn.Module:
    """A ResNet-like stem and block on 32x32 images: strided, grouped and
    dilated convolutions, batch norm, pooling, a linear head."""
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, stride=1, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Conv2d(64, 64, 3, padding=2, dilation=2, groups=4), nn.BatchNorm2d(64), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(64, 128, 1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10),
    )


def small_transformer() -> nn.Module:
    """Two encoder layers, d_model 256, 4 heads, GELU feed-forward of 1024."""
    layer = nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, dropout=0.1,
                                       activation="gelu", batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


def train_step(model, optimizer, x, loss_fn) -> None:
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(model(x))
    loss.backward()
    optimizer.step()


def workloads(batch: int):
    """(model, input, loss) pairs: a CNN on images, an encoder on tokens."""
    torch.manual_seed(0)
    cnn = small_cnn()
    images = torch.randn(batch, 3, 32, 32)
    encoder = small_transformer()
    tokens = torch.randn(batch, 64, 256)
    return [(cnn, images, lambda y: y.square().mean()),
            (encoder, tokens, lambda y: y.square().mean())]


def record(output: str, batch: int, threads: int) -> None:
    torch.set_num_threads(threads)
    runs = [(m, torch.optim.Adam(m.parameters(), lr=1e-3), x, loss) for m, x, loss in workloads(batch)]
    for _ in range(2):  # warm-up outside the trace
        for model, opt, x, loss in runs:
            train_step(model, opt, x, loss)
    activities = [torch.profiler.ProfilerActivity.CPU]
    with torch.profiler.profile(activities=activities, record_shapes=True, with_flops=True) as prof:
        for model, opt, x, loss in runs:
            with torch.profiler.record_function(type(model).__name__):
                train_step(model, opt, x, loss)
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(raw)
        with open(raw, "rb") as src:
            trace = json.load(src)
    _add_torch_flops(trace, prof)
    # The intra-op thread count is what the operators ran on: roofline places
    # them on the roofs of that many cores.
    trace.setdefault("roofline", {})["intra_op_threads"] = threads
    opener = gzip.open if output.endswith(".gz") else open
    tmp_out = output + ".tmp"
    with opener(tmp_out, "wt") as fh:
        json.dump(trace, fh, separators=(",", ":"))
    shutil.move(tmp_out, output)


def _add_torch_flops(trace: dict, prof) -> None:
    """Write torch's own FLOP count (``with_flops=True``) into each operator
    event as its ``flops`` arg, as older PyTorch versions exported it (2.13
    keeps it in the profiler's events only). The event's ``External id`` is
    the profiler event's id."""
    flops = {e.id: e.flops for e in prof.events() if e.flops}
    for event in trace["traceEvents"]:
        args = event.get("args")
        if event.get("cat") == "cpu_op" and isinstance(args, dict) and args.get("External id") in flops:
            args["flops"] = flops[args["External id"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", default="pytorch_cpu_trace.json.gz",
                        help="trace file to write (.json or .json.gz)")
    parser.add_argument("--batch", type=int, default=16, help="batch size of both models (default 16)")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads(),
                        help="intra-op threads (default: torch's, usually all cores)")
    args = parser.parse_args()
    record(args.output, args.batch, args.threads)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
