"""CPU microbenchmarks: numba kernels (kernels.py), machine facts (cpuinfo.py)
and the measurement pipeline that turns them into a Device (run.py).

Importing this package is cheap; numba is imported only by ``kernels``.
"""
