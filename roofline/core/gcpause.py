"""The cyclic garbage collector paused around bulk work.

Reading or writing a million rows allocates millions of small objects
(lists, strings, tuples) that hold no reference cycles; each time the
collector runs it rescans all that survived, which makes such loops grow
faster than linearly (a 1M-row kernels.csv: 25 s with it, a few without).
Reference counting still frees everything as usual.
"""
from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def paused():
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
