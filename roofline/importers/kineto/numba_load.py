"""numba loaded for the scanner (:mod:`.jsonscan`), where the command line
asks, without importing SciPy, and its cached machine code loaded without
loading numba's whole CPU target first.

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
    """Load numba now; where ``quick``, and neither its CPU target nor
    ``scipy.linalg`` is loaded yet, without importing SciPy (numba's
    version check), and with cached machine code loaded without loading
    the whole target first (:func:`_cache_loads_without_refresh`); the
    target is loaded, SciPy hidden, where something must be compiled."""
    if not quick or "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    with _scipy_hidden():
        from numba.core import caching
        from numba.core.registry import cpu_target
        from numba.core.runtime import rtsys
        rtsys.initialize(cpu_target.target_context)   # what the target's load does first: the scan allocates
    _cache_loads_without_refresh(caching.Cache)


class _scipy_hidden:
    def __enter__(self):
        self.finder = _HiddenScipy(whole="scipy" not in sys.modules)
        sys.meta_path.insert(0, self.finder)

    def __exit__(self, *exc):
        sys.meta_path.remove(self.finder)


def _loaded_target(target_context) -> None:
    """numba's whole CPU target (its registries of implementations), SciPy hidden."""
    with _scipy_hidden():
        target_context.refresh()


def _cache_loads_without_refresh(cache_class) -> None:
    """numba reloads its whole CPU target before every load of cached
    machine code (``Cache.load_overload``): some 250 registries of
    implementations, 60 modules, 0.09 s of the scanner's 0.43 s load
    (python /tmp/norefresh.py, three alternating runs). Machine code read
    back needs none of them: it is linked as it was compiled, and called
    through its own compiled wrapper. So in this process a cached load
    reads the code alone; where there is none (a first run, a new numba)
    or it does not load, the target is loaded (SciPy hidden, as before)
    and numba's own load runs, then compiles as it always does (its
    compiler loads the target itself)."""
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
