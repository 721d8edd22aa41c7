"""CPU microbenchmarks: numba kernels (kernels.py), machine facts (cpuinfo.py)
and the measurement pipeline that turns them into a Device: the timed steps
(measure.py), the profile built from their samples (assemble.py) and the
fresh subprocess that runs them (run.py).

Importing this package is cheap; numba is imported only by ``kernels``.
"""
