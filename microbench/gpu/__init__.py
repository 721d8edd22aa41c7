"""GPU microbenchmarks (NVIDIA, CUDA C kernels run through CuPy).

Modules: ``kernels`` (what each kernel does per timed-loop iteration),
``build`` (NVRTC compilation, shared by the runtime and the static tests),
``sass`` (reading disassembled SASS), ``verify`` (SASS versus declaration),
``timing`` and ``theory`` (pure helpers), ``runner`` (the measurement steps,
with CuPy + NVML): ``probe`` (device facts, NVML readings), ``session``
(compiled modules and the timed sweep) and ``assemble`` (results to a Device).
Nothing here imports CuPy at import time.
"""
