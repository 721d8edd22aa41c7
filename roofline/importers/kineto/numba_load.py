"""numba's CPU target loaded for the scanner (:mod:`.jsonscan`), where the
command line asks, without its BLAS probe importing SciPy.

Loading the scanner's cached machine code first loads numba's CPU target,
and that imports ``numba.np.arraymath``, which imports ``scipy.linalg`` to
learn whether a BLAS is there (about 0.2 s and 20 MB, a tenth of the
scanner's load); roofline never uses SciPy. The probe's answer only picks
how numba-compiled ``np.correlate``/``np.convolve`` take inner products
(BLAS or a loop; ``np.dot`` asks for SciPy itself, later), so the command
line (``ReadOptions.quick_numba_load``) loads the target with
``scipy.linalg`` hidden for that moment. A library caller's process keeps
numba's own behaviour unless it asks.
"""
from __future__ import annotations

import importlib.abc
import sys


class _HiddenScipyLinalg(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "scipy.linalg":
            raise ModuleNotFoundError(f"{name} (hidden while numba's CPU target loads)", name=name)
        return None


def load_target(quick: bool) -> None:
    """Load numba's CPU target now; where ``quick``, and neither the
    target nor ``scipy.linalg`` is loaded yet, without the BLAS probe's
    import of SciPy."""
    if not quick or "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    hidden = _HiddenScipyLinalg()
    sys.meta_path.insert(0, hidden)
    try:
        from numba.core.registry import cpu_target
        cpu_target.target_context.refresh()
    finally:
        sys.meta_path.remove(hidden)
