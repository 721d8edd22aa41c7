"""Readers of profiler outputs, each file to kernels (one reader per format).

``read_profile(path, options)`` (:mod:`.read`) recognises the format from
the content, or takes the reader :mod:`.options` names (with its engine
and limits). Each reader module registers itself on import (:mod:`.base`);
the import order below is the sniffing order (most specific first).

The readers are grouped by the tool that wrote the file: :mod:`.nvidia`
(Nsight Compute, Nsight Systems, nvprof), :mod:`.amd` (rocprof,
rocprofv3, rocprof-compute), :mod:`.xplane` (TensorFlow and JAX),
:mod:`.neutrino`, :mod:`.kineto` (the PyTorch profiler, a pipeline of its
own) and :mod:`.ranks` (a folder of one job's per-rank traces). At the top
sit what they share and the formats of no tool: :mod:`.base` (the result
type and the registry), :mod:`.read`, :mod:`.results` (kernels from
counters, merged passes), :mod:`.copies` (the level a copy or memset
moves its bytes on), :mod:`.recipes` (what to collect when counters are
missing, per tool), :mod:`.sums` (kernels summed by name),
:mod:`.cupti` (CUPTI API names), :mod:`.timeline` (busy time), the
project's own :mod:`.kernels_csv` (with :mod:`.kernels_csv_checks`) and
:mod:`.ert`.

May import: ``roofline.core``, ``roofline.ops`` (operator cost models for
traces without counters) and ``roofline.devices`` (what a file says of its
device); numpy, msgspec, pyarrow. Never ``roofline.analysis``,
``roofline.render`` or the CLI: a reader returns kernels, nothing drawn or
judged.
"""
from __future__ import annotations

from ..core.import_result import DeviceClues, ImportResult, ProgramTime  # noqa: F401  (what every reader returns)
from .base import Reader, detect, readers, register  # noqa: F401
from . import kernels_csv  # noqa: F401  (registers the project's own format)
from .nvidia import nsys  # noqa: F401  (Nsight Systems SQLite exports and nsys stats CSV)
from .amd import rocpd  # noqa: F401  (rocprofv3's rocpd SQLite database, ROCm 7's default output)
from .amd import rocprof_trace  # noqa: F401  (rocprof v1/v2 JSON traces: string timestamps, before the Chrome-trace readers)
from . import xplane  # noqa: F401  (TensorFlow/JAX: XPlane .xplane.pb and Trace Viewer .trace.json.gz)
from . import kineto  # noqa: F401  (PyTorch profiler / Kineto Chrome traces)
from . import ert  # noqa: F401  (ERT results: device profiles, recognised to say so)
from .amd import rocprof_json  # noqa: F401  (rocprofv3 JSON: kernel dispatches, counters, agents)
from .amd import rocprof_csv  # noqa: F401  (rocprof v1/v2, rocprofv3 and rocprof-compute CSV tables)
from .amd import rocprof_compute  # noqa: F401  (rocprof-compute workload folders)
from .nvidia import ncu_rep  # noqa: F401  (Nsight Compute .ncu-rep, needs ncu-report)
from .nvidia import ncu_csv  # noqa: F401  (Nsight Compute CSV: details, raw, section exports)
from .nvidia import nvprof  # noqa: F401  (nvprof summary, GPU trace, metrics/events; CSV or text)
from . import neutrino  # noqa: F401  (Neutrino probe traces: result/*.bin, a run's event.log or probe.toml)
from .read import read_profile  # noqa: F401

__all__ = ["DeviceClues", "ImportResult", "ProgramTime", "Reader", "read_profile", "readers", "register"]
