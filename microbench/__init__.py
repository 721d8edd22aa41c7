"""Microbenchmarks that calibrate a device into a measured profile
(import name: ``roofline.microbench``; the folder sits at the top of the
repository, as the design card lays it out).

- :mod:`.cpu`: numba kernels for peak FLOP/s, bandwidth of every cache
  level and DRAM, and launch overhead, run for real on this machine;
- :mod:`.gpu`: CUDA kernels run through CuPy with NVML clocks, each with
  its FLOP and byte formulas, verified statically where there is no GPU;
- :mod:`.levels` finds cache levels in a bandwidth sweep; :mod:`.timing`
  times calls with a clock given as a parameter.

May import: ``roofline.core`` (the Device it builds) and
``roofline.devices`` (saving the profile); numpy, numba, cupy and
nvidia-ml-py inside the backend that needs them. Never the readers,
analyses or rendering.
"""
