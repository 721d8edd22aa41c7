"""Colours and markers shared by charts and reports (no matplotlib here, so
reports can use them without importing it). Okabe-Ito, colour-blind safe."""
from __future__ import annotations

import math

from ..core.placement import BANDWIDTH, COMPUTE, OVERHEAD, UNKNOWN

CLASS_STYLE = {
    COMPUTE: ("#D55E00", "compute-bound"),
    BANDWIDTH: ("#0072B2", "bandwidth-bound"),
    OVERHEAD: ("#E69F00", "overhead: time that does not scale with the work"),
    UNKNOWN: ("#999999", "unknown: no counters or model"),
}
LEVEL_MARKER = {"L1": "o", "L2": "s", "L3": "^", "DRAM": "D", "PCIe": "v"}
LEVEL_COLOR = {"L1": "#56B4E9", "L2": "#009E73", "L3": "#7F7F7F", "DRAM": "#0072B2", "PCIe": "#000000"}


def plain_text(draw):
    """Decorator: the figure's texts are drawn as typed, never as mathtext
    (a kernel named ``$\\frac{1$`` crashed matplotlib's parser, and
    ``a$x$b`` rendered as math). Texts keep this setting when saved later,
    tick labels too, so log axes get ticks written without mathtext
    (:func:`plain_log_ticks`): matplotlib's own are ``$\\mathdefault{10^{14}}$``."""
    import functools

    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        import matplotlib
        with matplotlib.rc_context({"text.parse_math": False}):
            fig = draw(*args, **kwargs)
            for ax in getattr(fig, "axes", ()):
                plain_log_ticks(ax)
            return fig
    return wrapper


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def power_of_ten(value: float, _pos=None) -> str:
    """A log-axis tick at a power of ten as plain text: 10 with its exponent
    in Unicode superscript digits; "" between powers."""
    if not (value > 0 and math.isfinite(value)):
        return ""
    exponent = math.log10(value)
    if abs(exponent - round(exponent)) > 1e-6:
        return ""
    return "10" + str(int(round(exponent))).translate(_SUPERSCRIPT)


def _between_powers(axis):
    """Minor ticks labelled only when the axis spans less than a decade and
    a half (few powers of ten to read it by), as plain numbers."""
    def label(value: float, _pos=None) -> str:
        lo, hi = sorted(axis.get_view_interval())
        if not (lo > 0 and hi / lo < 10 ** 1.5 and value > 0):
            return ""
        return f"{value:.3g}"
    return label


def plain_log_ticks(ax) -> None:
    """Tick labels of the log axes of ``ax`` as plain text (see
    :func:`plain_text`); linear axes keep matplotlib's."""
    from matplotlib.ticker import FuncFormatter
    for axis in (ax.xaxis, ax.yaxis):
        if axis.get_scale() == "log":
            axis.set_major_formatter(FuncFormatter(power_of_ten))
            axis.set_minor_formatter(FuncFormatter(_between_powers(axis)))
