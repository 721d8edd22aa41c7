"""GPU microbenchmarks (NVIDIA, CUDA C kernels run through CuPy).

Modules: ``kernels`` (what each kernel does per timed-loop iteration),
``build`` (NVRTC compilation, shared by the runtime and the static tests),
``sass`` (reading disassembled SASS), ``verify`` (SASS versus declaration),
``timing`` and ``theory`` (pure helpers), ``runner`` (CuPy + NVML).
Nothing here imports CuPy at import time.
"""
