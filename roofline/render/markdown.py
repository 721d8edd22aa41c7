"""The report as Markdown, linking the charts as PNG files, written from
the report's :class:`~.document.Document` and nothing else: the same
sections as the HTML, in the same order. Every string of the document is
escaped here (names as code spans no name can close).
"""
from __future__ import annotations

import html
import re
from .document import Bar, Cards, Code, Figure, Heading, Items, Para, Table
from .terminal import visible


def _md_code(text) -> str:
    """A table cell with a name: a code span (no HTML, no Markdown inside),
    pipes escaped for the table; the span's fence is longer than any run of
    backticks in the name, so none can close it."""
    s = visible(str(text).replace("\n", " ")).replace("|", "\\|")   # bidi and controls as escapes
    fence = "`" * (_longest_backticks(s) + 1)
    return f"{fence} {s} {fence}" if len(fence) > 1 else f"`{s}`"


def _longest_backticks(s: str) -> int:
    return max((len(m) for m in re.findall(r"`+", s)), default=0)


def _md_block(text: str) -> list[str]:
    """A fenced code block whose fence no line of ``text`` can close."""
    fence = "`" * max(3, _longest_backticks(text) + 1)
    return [fence, text, fence]


def _md_text(text) -> str:
    """Plain text for Markdown: HTML and Markdown specials escaped
    (underscores only where they could start emphasis, not inside words)."""
    s = html.escape(visible(str(text)), quote=False)   # bidi and control characters as escapes
    for ch in "\\`*[]|":
        s = s.replace(ch, "\\" + ch)
    s = re.sub(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", r"\\_", s)
    return s.replace("\n", " ")


def _md_table(header, rows) -> str:
    """A table of cell texts already escaped (the projection report's)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _cell(c) -> str:
    s = _md_code(c.text) if c.kind == "code" else _md_text(c.text)
    return f"{s} {_md_text(c.aside)}" if c.aside else s


def _table_lines(t: Table) -> list[str]:
    left = t.left()
    rows = t.rows if t.collapse is None or len(t.rows) <= t.collapse + 5 else t.rows[: t.collapse]
    lines = ["| " + " | ".join(_md_text(h) for h in t.header) + " |",
             "|" + "|".join("---" if i in left else "---:" for i in range(len(t.header))) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    out = lines + [""]
    if len(rows) < len(t.rows):
        out += [f"The top {len(rows):,} of {len(t.rows):,} rows; the HTML report lists all of them.", ""]
    return out


def _runs(parts) -> str:
    return "".join(_md_code(p.text) if isinstance(p, Code) else _md_text(p) for p in parts)


def _block(b, images: dict[str, str]) -> list[str]:
    if isinstance(b, Table):
        return _table_lines(b)
    if isinstance(b, Para):
        return [("> " if b.note else "") + _runs(b.parts), ""]
    if isinstance(b, Heading):
        return [f"### {_md_code(b.text) if b.code else _md_text(b.text)}", ""]
    if isinstance(b, Figure):
        if b.key not in images:
            return []
        return [f"![{_md_text(b.caption)}]({images[b.key]})", "", f"*{_md_text(b.caption)}*", ""]
    if isinstance(b, Cards):
        return [f"- {_md_text(k)}: **{_md_text(v)}** ({_md_text(d)})" for k, v, d in b.items] + [""]
    if isinstance(b, Bar):
        return []            # the table beside it has the same shares
    if isinstance(b, Items):
        return [f"- {'**' + _md_text(s) + '**: ' if s else ''}{_md_text(m)}"
                + (f" ({_md_text(a)})" if a else "") for s, m, a in b.items] + [""]
    raise TypeError(f"no Markdown for {type(b).__name__}")


def render_markdown(doc, images: dict[str, str]) -> str:
    """The Markdown text; ``images`` maps chart names to PNG file names."""
    out = [f"# {_md_text(doc.title)}", "", _md_text(doc.subtitle), ""]
    if doc.banner:
        out += [f"> **Device profile:** {_md_text(doc.banner)}", ""]
    out += ["Sections: " + " · ".join(_md_text(s.title) for s in doc.sections), ""]
    for s in doc.sections:
        out += [f"## {_md_text(s.title)}", ""]
        for b in s.blocks:
            out += _block(b, images)
    out += ["---", "", _md_text(doc.footer)]
    return "\n".join(out) + "\n"
