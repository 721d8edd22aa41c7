"""CPU microbenchmarks: measure this CPU's roofs and turn them into a
``Device``.

- what the CPU is: :mod:`.cpuinfo` (model, vector width, FMA pipes,
  caches, without numba) and :mod:`.uarch` (FMA pipes, datapath widths and
  load ports by microarchitecture, with sources);
- the kernels: :mod:`.kernels` (numba FMA, load and triad kernels) and
  :mod:`.unit_kernels` (kernels for the narrow-precision, integer and
  matrix units), timed for every unit beyond FP64/FP32 FMA by
  :mod:`.units`;
- the pipeline: :mod:`.run` (a fresh subprocess), :mod:`.measure` (the
  timed steps), :mod:`.attempts` (a noisy or non-scaling ceiling taken
  again, the best sample kept), :mod:`.busy` (load average and steal time
  while it runs), :mod:`.assemble` (the profile built from the samples).

May import: ``roofline.core``, ``roofline.devices`` and the rest of
``roofline.microbench``; numpy, numba, llvmlite, archspec, tqdm. Importing
this package is cheap: numba is imported at module level only by
:mod:`.kernels` and :mod:`.unit_kernels`, which are imported when a
calibration runs.
"""
