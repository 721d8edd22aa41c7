"""Colours and markers shared by charts and reports (no matplotlib here, so
reports can use them without importing it). Okabe-Ito, colour-blind safe."""
from __future__ import annotations

from ..core.placement import BANDWIDTH, COMPUTE, LATENCY, LAUNCH, UNKNOWN

CLASS_STYLE = {
    COMPUTE: ("#D55E00", "compute-bound"),
    BANDWIDTH: ("#0072B2", "bandwidth-bound"),
    LAUNCH: ("#E69F00", "overhead: launch"),
    LATENCY: ("#CC79A7", "overhead: latency/occupancy"),
    UNKNOWN: ("#999999", "no counters"),
}
LEVEL_MARKER = {"L1": "o", "L2": "s", "L3": "^", "DRAM": "D", "PCIe": "v"}
LEVEL_COLOR = {"L1": "#56B4E9", "L2": "#009E73", "L3": "#7F7F7F", "DRAM": "#0072B2", "PCIe": "#000000"}


def plain_text(draw):
    """Decorator: the figure's texts are drawn as typed, never as mathtext
    (a kernel named ``$\\frac{1$`` crashed matplotlib's parser, and
    ``a$x$b`` rendered as math). Texts keep this setting when saved later."""
    import functools

    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        import matplotlib
        with matplotlib.rc_context({"text.parse_math": False}):
            return draw(*args, **kwargs)
    return wrapper
