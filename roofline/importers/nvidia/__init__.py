"""NVIDIA profilers' outputs: Nsight Compute (CSV exports, ``.ncu-rep``),
Nsight Systems (SQLite exports, ``nsys stats`` CSV) and nvprof (CSV or
text).

The counter readers share :mod:`.metrics` (values and units as the tool
wrote them), :mod:`.counters` (metrics to FLOP, bytes per memory level and
time) and :mod:`.tensor_flops` (tensor-core FLOP per instruction by
architecture); the two timeline readers share the CUPTI copy kinds of
:mod:`roofline.importers.cupti`. Kernels, advice and merged passes come
from :mod:`roofline.importers.results`.

May import: ``roofline.core`` and the shared modules of
``roofline.importers`` (``base``, ``results``, ``cupti``, ``timeline``).
"""
