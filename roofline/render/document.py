"""The report as one document: sections of typed blocks, built once from
the analyses (:func:`roofline.render.sections.report_sections`) and only
formatted by the writers (:mod:`.html`, :mod:`.markdown`).

Every string here is plain text, whatever its source: a writer escapes it
for its format. A cell carries its value (to sort by) and the text both
writers show (:mod:`.cells` formats it once), and its kind says how a
writer may style it: ``text``, ``code`` (a name from the input), ``time``,
``share``, ``rate``, ``count``, ``ratio``, ``bound``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .cells import _pct, _rate, _t, _x

LEFT_KINDS = frozenset({"text", "code", "bound"})


@dataclass(frozen=True)
class Code:
    """A run of text shown as code (an option, a command, a metric list)."""

    text: str


@dataclass(frozen=True)
class Cell:
    """One table cell: ``text`` shown, ``value`` to sort by, ``kind`` (see
    the module doc); ``title`` the full text on hover (a long name),
    ``color`` a swatch before the text, ``tone`` ``faster``/``slower``,
    ``aside`` muted text after it."""

    text: str
    value: object = None
    kind: str = "text"
    title: str | None = None
    color: str | None = None
    tone: str | None = None
    aside: str | None = None


def text(s, **kw) -> Cell:
    s = "" if s is None else str(s)
    return Cell(s, s, "text", **kw)


def code(name, shown: str | None = None) -> Cell:
    """A name from the input; ``shown`` a shorter form told apart from the table's others."""
    name = str(name)
    return Cell(name if shown is None else shown, name, "code", title=name if shown not in (None, name) else None)


def time(v) -> Cell:
    return Cell(_t(v), v, "time")


def share(v, digits: int = 1) -> Cell:
    return Cell(_pct(v, digits), v, "share")


def rate(v, unit: str = "FLOP/s") -> Cell:
    return Cell(_rate(v, unit), v, "rate")


def count(n) -> Cell:
    return Cell(f"{int(n):,}", int(n), "count")


def ratio(v, tone: str | None = None) -> Cell:
    return Cell(_x(v), v, "ratio", tone=tone)


def bound(label: str, color: str | None = None, aside: str | None = None) -> Cell:
    return Cell(str(label), str(label), "bound", color=color, aside=aside)


@dataclass(frozen=True)
class Table:
    """Rows of cells under a header. ``collapse``: rows after this many
    are hidden behind a "show all" control in HTML and left out of
    Markdown (with a line saying how many); ``search``: a search box (HTML);
    ``row_ids``/``row_search``: per row, the id a chart point jumps to and
    the text the search matches."""

    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    compact: bool = False
    table_id: str | None = None
    search: bool = False
    collapse: int | None = None
    row_ids: tuple[str, ...] | None = None
    row_search: tuple[str, ...] | None = None

    def left(self) -> set[int]:
        """Columns aligned left: those whose cells are words or names."""
        out = {0}
        for i in range(len(self.header)):
            cells = [row[i] for row in self.rows if i < len(row)]
            kinds = [c.kind for c in cells if c.text] or [c.kind for c in cells]
            if kinds and kinds[0] in LEFT_KINDS:
                out.add(i)
        return out


@dataclass(frozen=True)
class Para:
    """A paragraph: text runs and :class:`Code` runs; ``note`` sets it apart."""

    parts: tuple
    note: bool = False


def para(*parts, note: bool = False) -> Para:
    return Para(tuple(parts), note)


def note(*parts) -> Para:
    return Para(tuple(parts), True)


@dataclass(frozen=True)
class Heading:
    text: str
    code: bool = False      # the heading is a name from the input


@dataclass(frozen=True)
class Figure:
    """A chart the report draws, by its key in the report's figures;
    ``interactive``: the HTML writer shows the interactive chart in its
    place when there is one, with ``interactive_caption``."""

    key: str
    caption: str
    interactive: bool = False
    interactive_caption: str = ""


@dataclass(frozen=True)
class Cards:
    """Headline numbers: (label, value, detail) each."""

    items: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True)
class Bar:
    """Shares as one stacked bar: (label, colour, share) each."""

    segments: tuple[tuple[str, str, float], ...]


@dataclass(frozen=True)
class Items:
    """A list of advice: (subject, message, what to do) each."""

    items: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    blocks: tuple = ()


@dataclass(frozen=True)
class Document:
    """The whole report: a title, a line under it, an optional banner about
    the device profile (``alarm``: its roofs may not hold), the sections in
    order, and a footer."""

    title: str
    subtitle: str
    sections: tuple[Section, ...]
    banner: str = ""
    alarm: bool = False
    footer: str = ""
    version: str = ""
    extras: dict = field(default_factory=dict)

    def keys(self) -> list[str]:
        return [s.key for s in self.sections]
