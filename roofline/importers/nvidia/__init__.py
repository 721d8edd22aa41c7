"""NVIDIA profilers' outputs: Nsight Compute (CSV exports, ``.ncu-rep``),
Nsight Systems (SQLite exports, ``nsys stats`` CSV) and nvprof (CSV or
text).

- Nsight Compute: :mod:`.ncu_csv` (CSV exports) and :mod:`.ncu_rep`
  (binary reports, read in a child process by :mod:`.ncu_rep_child` so a
  crash of the ``ncu_report`` binding cannot take the caller down);
- Nsight Systems: :mod:`.nsys` (registers the two readers, refuses a
  binary ``.nsys-rep``), :mod:`.nsys_sqlite` (SQLite exports) and
  :mod:`.nsys_csv` (``nsys stats`` CSV reports);
- nvprof: :mod:`.nvprof` (which tables a file holds, runs merged),
  :mod:`.nvprof_tables` (CSV or text to tables), :mod:`.nvprof_rows`
  (table rows to kernels, copies and API time) and
  :mod:`.nvprof_counters` (nvprof metrics to work, traffic and time);
- what the counter readers share: :mod:`.metrics` (values and units as
  the tool wrote them, checked), :mod:`.counters` (metrics to FLOP, bytes
  per memory level and time) and :mod:`.tensor_flops` (tensor-core FLOP
  per instruction by architecture).

The two timeline readers share the CUPTI copy kinds of
:mod:`roofline.importers.cupti`. Kernels, advice and merged passes come
from :mod:`roofline.importers.results`.

May import: ``roofline.core`` and the shared modules of
``roofline.importers`` (``base``, ``options``, ``results``, ``cupti``,
``timeline``); numpy, and the ``ncu_report`` binding only inside the
function that reads a report.
"""
