"""numba's CPU target loaded for the scanner (:mod:`.jsonscan`), where the
command line asks, without its BLAS probe importing SciPy.

Loading the scanner's cached machine code first loads numba's CPU target,
and that imports ``numba.np.arraymath``, which imports ``scipy.linalg`` to
learn whether a BLAS is there (about 0.2 s and 20 MB, a tenth of the
scanner's load); roofline never uses SciPy. The probe's answer only picks
how numba-compiled ``np.correlate``/``np.convolve`` take inner products
(BLAS or a loop; ``np.dot`` asks for SciPy itself, later), so the command
line (``ReadOptions.quick_numba_load``) loads the target with
``scipy.linalg`` hidden for that moment. Where SciPy is not imported yet it
is hidden whole: numba's own import imports it only to check its version
(86 ms). A library caller's process keeps numba's own behaviour unless it
asks.
"""
from __future__ import annotations

import importlib.abc
import sys


class _HiddenScipy(importlib.abc.MetaPathFinder):
    """Refuses ``scipy.linalg``, or SciPy whole where it is not imported yet."""

    def __init__(self, whole: bool):
        self.hidden = "scipy" if whole else "scipy.linalg"

    def find_spec(self, name, path, target=None):
        if name == self.hidden or name.startswith(self.hidden + "."):
            raise ModuleNotFoundError(f"{name} (hidden while numba's CPU target loads)", name=name)
        return None


def load_target(quick: bool) -> None:
    """Load numba's CPU target now; where ``quick``, and neither the
    target nor ``scipy.linalg`` is loaded yet, without importing SciPy
    (for the BLAS probe, and for numba's version check where SciPy is
    not imported yet)."""
    if not quick or "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    hidden = _HiddenScipy(whole="scipy" not in sys.modules)
    sys.meta_path.insert(0, hidden)
    try:
        from numba.core.registry import cpu_target
        cpu_target.target_context.refresh()
    finally:
        sys.meta_path.remove(hidden)
