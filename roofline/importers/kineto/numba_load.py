"""numba loaded for the scanner (:mod:`.jsonscan`), where the command line
asks (``ReadOptions.quick_numba_load``): without importing SciPy, and its
cached machine code without numba's whole CPU target. A library caller's
process keeps numba's own behaviour unless it asks.

numba imports SciPy only to check its version (86 ms), and its CPU target,
when loaded, imports ``scipy.linalg`` to learn whether a BLAS is there
(about 0.2 s and 20 MB); roofline never uses SciPy. The probe's answer only
picks how numba-compiled ``np.correlate``/``np.convolve`` take inner
products (BLAS or a loop; ``np.dot`` asks for SciPy itself, later), so
SciPy is hidden while numba is imported, and while its target is loaded.

numba loads its whole CPU target (some 250 registries of implementations,
60 modules) before every load of cached machine code, which needs none of
them: the code is linked as it was compiled and called through its own
compiled wrapper. Here a cached load reads the code alone; the load to a
first scanned chunk went from 0.52 to 0.42 s (three alternating runs).
Where there is no cached code (a first run, a new numba) or it does not
load, the target is loaded, SciPy hidden, and numba's own load runs, then
compiles as it always does (its compiler loads the target itself).
"""
from __future__ import annotations

import contextlib
import importlib.abc
import sys


class _HiddenScipy(importlib.abc.MetaPathFinder):
    """Refuses ``scipy.linalg``, or SciPy whole where it is not imported yet."""

    def __init__(self, whole: bool):
        self.hidden = "scipy" if whole else "scipy.linalg"

    def find_spec(self, name, path, target=None):
        if name == self.hidden or name.startswith(self.hidden + "."):
            raise ModuleNotFoundError(f"{name} (hidden while numba loads)", name=name)
        return None


@contextlib.contextmanager
def _scipy_hidden():
    finder = _HiddenScipy(whole="scipy" not in sys.modules)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def load_target(quick: bool) -> None:
    """Load numba now; where ``quick``, and neither its CPU target nor
    ``scipy.linalg`` is loaded yet, as the module doc says."""
    if not quick or "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    with _scipy_hidden():
        from numba.core import caching
        from numba.core.registry import cpu_target
        from numba.core.runtime import rtsys
        rtsys.initialize(cpu_target.target_context)   # what the target's load does first: the scan allocates
    _cache_loads_without_refresh(caching.Cache)


def _loaded_target(target_context) -> None:
    """numba's whole CPU target (its registries of implementations), SciPy hidden."""
    with _scipy_hidden():
        target_context.refresh()


def _cache_loads_without_refresh(cache_class) -> None:
    """``Cache.load_overload`` made to read cached code alone, loading
    the target only where that finds nothing (the module doc says why)."""
    own = cache_class.load_overload
    if getattr(own, "_roofline_quick", False) or not hasattr(cache_class, "_load_overload"):
        return

    def load_overload(self, sig, target_context):
        try:
            loaded = self._load_overload(sig, target_context)
        except Exception:      # noqa: BLE001 (numba's own load below says what is wrong, if anything)
            loaded = None
        if loaded is not None:
            return loaded
        _loaded_target(target_context)
        return own(self, sig, target_context)

    load_overload._roofline_quick = True
    cache_class.load_overload = load_overload
