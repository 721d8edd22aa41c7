"""The core: what a device can do, what a kernel did, and the verdict of
putting one on the other. Every other part of the package builds on it.

- types and the boundary: :mod:`.model` (``Device`` with its
  ``Ceiling``/``MemoryLevel`` roofs, ``Kernel``, the columnar
  ``KernelSet``, all in SI units); :mod:`.import_result` (what every
  reader returns, the one type between the importers and the rest);
- placing kernels: :mod:`.placement` (``place``, ``Placements``, ``Rules``:
  each kernel's bound and efficiency) with :mod:`.placement_warnings`
  (missing units, unplaceable rows, points above a roof),
  :mod:`.compulsory` (which level modelled bytes come from), :mod:`.cores`
  (one-core roofs for one-thread kernels), :mod:`.cpu_units` (AMX or
  vector units for a CPU operator) and :mod:`.cache_capacity` (what a
  cache level holds for the threads an operator ran on);
- why a row is below its roof: :mod:`.reasons` (what the profile can
  tell), :mod:`.causes` (named causes: RNG, page faults, slow library
  kernels), :mod:`.evidence` (time that does not scale with work:
  overhead);
- kernel names: :mod:`.families` (families from names, aggregation by
  family), :mod:`.kernel_precision` (precision and unit from the name),
  with its rules in :mod:`.kernel_name_rules`, their shared types and
  sources in :mod:`.kernel_name_types`, and :mod:`.kernel_arch` (the GPU
  architecture a library kernel was built for); :mod:`.shape_labels`
  (operand shapes in CPU trace row names);
- collectives: :mod:`.comm` (nccl-tests' conventions, link roofs, the time
  a collective needs), :mod:`.comm_checks` (a trace's collective figures
  checked before use), :mod:`.comm_columns` (the collective fields of
  ``classify``'s rows);
- rows and their fields: :mod:`.aggregate` (rows summed by name, variant
  or family, as columns), :mod:`.row_schema` (the fields of ``classify``'s
  rows, written once for JSON, CSV and records), :mod:`.row_dtypes` (the
  ``dtype`` field), :mod:`.phases` (the phases a training step is split
  into);
- shared utilities: :mod:`.units` (SI in, prefixes out), :mod:`.errors`
  (the one error family and ``Advice``), :mod:`.text_files` (profiler
  outputs read as text: gzip, byte-order marks, UTF-16), :mod:`.atomic`
  (no half-written file), :mod:`.gcpause` (the garbage collector paused
  around bulk work), :mod:`.csv_cells` (spreadsheet-safe CSV cells),
  :mod:`.object_codes` (a million-row column coded by its few distinct
  objects or values).

May import: nothing of roofline outside ``roofline.core`` (the version
string aside); numpy and the standard library. pyarrow and pandas only
inside the functions that use them (:mod:`.evidence`,
:mod:`.shape_labels`, :mod:`.row_schema`, :mod:`.object_codes`), so the core imports without
them.
"""
