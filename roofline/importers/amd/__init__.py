"""AMD profilers' outputs: rocprof v1/v2 (CSV, JSON traces), rocprofv3
(CSV, JSON, the rocpd SQLite database) and rocprof-compute workloads.

The readers share :mod:`.amd_counters` (counters to FLOP and bytes, and
the advice when counters are missing), :mod:`.rocprof_table` (a counter
table whatever its layout), :mod:`.rocprof_common` (dispatches to kernels)
and :mod:`.rocprof_checks`.

May import: ``roofline.core``, ``roofline.devices`` (the rocprof-compute
roofline file and product names) and the shared modules of
``roofline.importers``.
"""
