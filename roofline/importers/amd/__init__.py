"""AMD profilers' outputs: rocprof v1/v2 (CSV, JSON traces), rocprofv3
(CSV, JSON, the rocpd SQLite database) and rocprof-compute workloads.

- one reader per format: :mod:`.rocprof_csv` (CSV files, one reader per
  table shape), :mod:`.rocprof_trace` (rocprof v1/v2 JSON traces),
  :mod:`.rocprof_json` (rocprofv3 JSON), :mod:`.rocpd` (rocprofv3's SQLite
  database), :mod:`.rocprof_compute` (rocprof-compute workload folders);
- what they share: :mod:`.amd_counters` (counters to FLOP and bytes, and
  the advice when counters are missing), :mod:`.rocprof_table` (a CSV
  table read as columns whatever its layout), :mod:`.rocprof_rows`
  (dispatch rows of the CSV files, and the files beside them that name the
  GPU), :mod:`.rocprof_common` (dispatches summed into kernels, the AMD
  device a file names) and :mod:`.rocprof_checks` (numbers and records
  checked before they become columns).

May import: ``roofline.core``, ``roofline.devices`` (the rocprof-compute
roofline file and product names) and the shared modules of
``roofline.importers`` (``base``, ``options``, ``timeline``, ``ranks``);
numpy, msgspec, pyarrow.
"""
