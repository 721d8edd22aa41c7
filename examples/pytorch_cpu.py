"""Profile a small CNN and a small transformer encoder on the CPU with
torch.profiler and write the trace, ready for ``roofline report``:

    pip install 'roofline[torch]'
    python examples/pytorch_cpu.py -o pytorch_cpu_trace.json.gz
    roofline measure --quick
    roofline report pytorch_cpu_trace.json.gz --device my-cpu -o cpu_ops.html

``--workload`` records a real model's shapes instead (random weights, no
download): ``resnet18`` (one training step of torchvision's ResNet-18 at
224x224, written out here), ``bert`` (one training step of a 4-layer
BERT-base encoder with its 30522-word embedding and AdamW) or ``gpt2``
(GPT-2 small inference over 512 tokens, with its 50257-word head). They
take seconds to a minute on a laptop CPU.

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


class BasicBlock(nn.Module):
    """ResNet's two-convolution residual block (He et al. 2016)."""

    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                     if stride != 1 or cin != cout else nn.Identity())

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + self.down(x))


def resnet18(classes: int = 1000) -> nn.Module:
    """ResNet-18's layers as torchvision builds them (without torchvision)."""
    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
        cin = cout
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, classes))


class TokenModel(nn.Module):
    """Embedding, transformer layers and (for a language model) a head over
    the vocabulary: BERT-base or GPT-2 small in shape."""

    def __init__(self, vocab: int, d: int, heads: int, layers: int, causal: bool, head: bool):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.1, activation="gelu",
                                           batch_first=True, norm_first=causal)
        self.layers = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, vocab, bias=False) if head else None
        self.causal = causal

    def forward(self, tokens):
        x = self.embed(tokens)
        mask = nn.Transformer.generate_square_subsequent_mask(tokens.shape[1]) if self.causal else None
        x = self.layers(x, mask=mask, is_causal=self.causal)
        return self.head(x) if self.head is not None else x


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


def model_workload(name: str, batch: int):
    """(model, input, loss or None for inference, optimizer class) of a named model."""
    torch.manual_seed(0)
    if name == "resnet18":
        return resnet18(), torch.randn(batch, 3, 224, 224), lambda y: y.square().mean(), torch.optim.SGD
    if name == "bert":
        model = TokenModel(30522, 768, 12, 4, causal=False, head=False)
        return model, torch.randint(0, 30522, (batch, 128)), lambda y: y.square().mean(), torch.optim.AdamW
    if name == "gpt2":
        model = TokenModel(50257, 768, 12, 12, causal=True, head=True).eval()
        return model, torch.randint(0, 50257, (batch, 512)), None, None
    raise ValueError(f"unknown workload {name!r}")


def _runs(workload: str, batch: int) -> list:
    if workload == "small":
        return [(m, torch.optim.Adam(m.parameters(), lr=1e-3), x, loss) for m, x, loss in workloads(batch)]
    model, x, loss, optimizer = model_workload(workload, batch)
    return [(model, optimizer(model.parameters(), lr=1e-3) if optimizer else None, x, loss)]


def _step(model, opt, x, loss) -> None:
    if opt is None:          # inference
        with torch.no_grad():
            model(x)
    else:
        train_step(model, opt, x, loss)


def record(output: str, batch: int, threads: int, workload: str = "small") -> None:
    torch.set_num_threads(threads)
    runs = _runs(workload, batch)
    for _ in range(2 if workload == "small" else 1):  # warm-up outside the trace
        for model, opt, x, loss in runs:
            _step(model, opt, x, loss)
    activities = [torch.profiler.ProfilerActivity.CPU]
    with torch.profiler.profile(activities=activities, record_shapes=True, with_flops=True) as prof:
        for model, opt, x, loss in runs:
            with torch.profiler.record_function(type(model).__name__):
                _step(model, opt, x, loss)
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(raw)
        with open(raw, "rb") as src:
            trace = json.load(src)
    _add_torch_flops(trace, prof)
    # The intra-op thread count is what the operators ran on: roofline places
    # them on the roofs of that many cores. The CPU's name lets roofline check
    # that the profile it is given was measured on this CPU.
    trace.setdefault("roofline", {})["intra_op_threads"] = threads
    trace["roofline"].update(cpu_identity())
    opener = gzip.open if output.endswith(".gz") else open
    tmp_out = output + ".tmp"
    with opener(tmp_out, "wt") as fh:
        json.dump(trace, fh, separators=(",", ":"))
    shutil.move(tmp_out, output)


def cpu_identity() -> dict:
    """This machine's CPU as the OS names it (what `roofline measure` records
    in the profile): the model name, and the CPUID vendor, family and model,
    which tell apart two VMs that are both named "AMD EPYC"."""
    fields = {"model name": ("cpu_model", str), "vendor_id": ("vendor", str),
              "cpu family": ("cpu_family", int), "model": ("cpu_model_id", int)}
    out: dict = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                name, kind = fields.get(key.strip(), (None, None))
                if name and name not in out:
                    try:
                        out[name] = kind(value.strip())
                    except ValueError:
                        pass
                if not key.strip():    # the first processor's block is enough
                    break
    except OSError:
        pass
    if "cpu_model" not in out:
        import platform
        if platform.processor():
            out["cpu_model"] = platform.processor()
    return out


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
    parser.add_argument("--workload", choices=("small", "resnet18", "bert", "gpt2"), default="small",
                        help="small: the CNN and encoder above (default); resnet18, bert (training "
                             "steps) or gpt2 (inference) at their real shapes")
    parser.add_argument("--batch", type=int, default=None,
                        help="batch size (default 16 for small, 8 for resnet18 and bert, 1 for gpt2)")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads(),
                        help="intra-op threads (default: torch's, usually all cores)")
    args = parser.parse_args()
    batch = args.batch or {"small": 16, "resnet18": 8, "bert": 8, "gpt2": 1}[args.workload]
    record(args.output, batch, args.threads, args.workload)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
