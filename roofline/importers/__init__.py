"""Readers of profiler outputs, each file to kernels (one reader per format).

``read_profile(path)`` recognises the format from the content. Each reader
module registers itself on import; the import order below is the sniffing
order (most specific first). The PyTorch/Kineto reader is a pipeline of
its own (:mod:`.kineto`); the GPU counter readers share :mod:`.metrics`,
:mod:`.counters` and :mod:`.results`, the AMD ones (rocprof, rocprofv3,
rocprof-compute) :mod:`.amd_counters`, :mod:`.rocprof_table` and
:mod:`.rocprof_common`; :mod:`.rank_files` reads the per-rank
traces of one job (in parallel with Dask).

May import: ``roofline.core``, ``roofline.ops`` (operator cost models for
traces without counters) and ``roofline.devices`` (what a file says of its
device); numpy, msgspec, pyarrow. Never ``roofline.analysis``,
``roofline.render`` or the CLI: a reader returns kernels, nothing drawn or
judged.
"""
from __future__ import annotations

from .base import ImportResult, ProgramTime, Reader, detect, readers, register  # noqa: F401
from . import kernels_csv  # noqa: F401  (registers the project's own format)
from . import nsys  # noqa: F401  (Nsight Systems SQLite exports and nsys stats CSV)
from . import rocpd  # noqa: F401  (rocprofv3's rocpd SQLite database, ROCm 7's default output)
from . import rocprof_trace  # noqa: F401  (rocprof v1/v2 JSON traces: string timestamps, before the Chrome-trace readers)
from . import xplane  # noqa: F401  (TensorFlow/JAX: XPlane .xplane.pb and Trace Viewer .trace.json.gz)
from . import kineto  # noqa: F401  (PyTorch profiler / Kineto Chrome traces)
from . import ert  # noqa: F401  (ERT results: device profiles, recognised to say so)
from . import rocprof_json  # noqa: F401  (rocprofv3 JSON: kernel dispatches, counters, agents)
from . import rocprof_csv  # noqa: F401  (rocprof v1/v2, rocprofv3 and rocprof-compute CSV tables)
from . import ncu_rep  # noqa: F401  (Nsight Compute .ncu-rep, needs ncu-report)
from . import ncu_csv  # noqa: F401  (Nsight Compute CSV: details, raw, section exports)
from . import nvprof  # noqa: F401  (nvprof summary, GPU trace, metrics/events; CSV or text)
from . import neutrino  # noqa: F401  (Neutrino probe traces: result/*.bin, a run's event.log or probe.toml)
from .read import fill_families, read_profile  # noqa: F401

__all__ = ["ImportResult", "ProgramTime", "Reader", "read_profile", "readers", "register"]
