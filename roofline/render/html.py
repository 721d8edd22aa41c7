"""The report as HTML: one self-contained page (or a Jupyter fragment),
written from the report's :class:`~.document.Document` and nothing else.

Nothing outside the page: the interactive roofline's JavaScript (Bokeh) and
the tables' sorting and search are inline, the other charts come in as
``data:`` URIs, styles are inline and scoped to ``.rr``, and every string
of the document is escaped here (:func:`.names.html_text`).
"""
from __future__ import annotations

from .document import Bar, Cards, Code, Figure, Heading, Items, Para, Table
from .html_tables import TABLE_JS, table_html
from .cells import _short
from .names import html_text


def render_html(doc, images: dict[str, str], full: bool = True, interactive: str = "",
                interactive_js: str = "") -> str:
    """A whole document, or (``full=False``) a fragment with its scoped
    style; ``images`` maps chart names to image URIs; ``interactive`` is the
    interactive roofline (shown in place of figures marked interactive) and
    ``interactive_js`` the script it needs."""
    body = _body(doc, images, interactive)
    if interactive:
        body = interactive_js + "\n" + body
    if not full:
        return f"<style>{CSS}</style>\n{body}"
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{_e(doc.title)}: {_e(doc.extras.get('device', ''))}</title>\n<style>{CSS}</style>\n</head>\n"
            f"<body>\n{body}\n</body>\n</html>\n")


def _e(text) -> str:
    return html_text(text)


CSS = """
.rr{--ink:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--accent:#0072B2;
 font:15px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--ink);
 max-width:1180px;margin:0 auto;padding:24px 28px 48px;background:#fff}
.rr h1{font-size:26px;margin:0 0 4px;font-weight:600}
.rr h2{font-size:20px;margin:36px 0 10px;padding-bottom:6px;border-bottom:1px solid var(--line);font-weight:600}
.rr h3{font-size:16px;margin:22px 0 8px;font-weight:600}
.rr p{margin:6px 0 10px}
.rr .sub{color:var(--muted);margin:0 0 14px}
.rr .muted{color:var(--muted)}
.rr nav{display:flex;flex-wrap:wrap;gap:6px 16px;padding:8px 0 10px;border-bottom:1px solid var(--line);font-size:14px}
.rr nav a{color:var(--accent);text-decoration:none}
.rr nav a:hover{text-decoration:underline}
.rr .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px;margin:14px 0}
.rr .card{border:1px solid var(--line);border-radius:6px;padding:10px 12px;background:var(--soft)}
.rr .card b{display:block;font-size:19px;font-weight:600;font-variant-numeric:tabular-nums}
.rr .card span{color:var(--muted);font-size:13px}
.rr .bar{display:flex;height:22px;border-radius:4px;overflow:hidden;border:1px solid var(--line);margin:10px 0 6px}
.rr .bar span{display:block;height:100%}
.rr .swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;vertical-align:-1px}
.rr .scroll{overflow-x:auto}
.rr table.compact{width:auto;min-width:520px}
.rr table{border-collapse:collapse;width:100%;font-size:13.5px;margin:6px 0 12px;font-variant-numeric:tabular-nums}
.rr th,.rr td{padding:5px 9px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap;vertical-align:top}
.rr th{background:var(--soft);font-weight:600;border-bottom:2px solid var(--line)}
.rr th:first-child,.rr td:first-child,.rr td.l,.rr th.l{text-align:left}
.rr td.l{white-space:normal;min-width:80px}
.rr tbody tr:nth-child(even){background:#fbfcfd}
.rr td.name{white-space:normal;overflow-wrap:anywhere;min-width:240px;max-width:420px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.rr span.name{display:inline-block;min-width:240px;max-width:420px;white-space:normal;overflow-wrap:anywhere;text-align:left;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.rr .faster{color:#117733;font-weight:600}.rr .slower{color:#CC3311;font-weight:600}
.rr figure{margin:14px 0 22px}
.rr figure img{max-width:100%;height:auto;border:1px solid var(--line);border-radius:4px}
.rr figcaption{color:var(--muted);font-size:13px;margin-top:4px}
.rr .note{color:var(--muted);font-size:14px;background:var(--soft);border-left:3px solid var(--line);padding:6px 10px}
.rr .banner{border:1px solid #CC3311;border-left:6px solid #CC3311;background:#fdecea;color:#5c1208;padding:10px 14px;margin:10px 0 16px;border-radius:4px;font-size:14.5px}
.rr .note-banner{border-color:var(--line);border-left-color:#999999;background:var(--soft);color:inherit}
.rr table.sortable th{cursor:pointer;user-select:none}
.rr table.sortable th[data-dir=asc]::after{content:" \\25B2";font-size:10px}
.rr table.sortable th[data-dir=desc]::after{content:" \\25BC";font-size:10px}
.rr input.rr-search{width:420px;max-width:100%;padding:5px 8px;border:1px solid var(--line);border-radius:4px;font-size:14px}
.rr tr.rr-hit{background:#fff3bf !important;transition:background .3s}
.rr figure.interactive{border:1px solid var(--line);border-radius:4px;padding:8px}
.rr ul.warn{padding-left:0;list-style:none}
.rr ul.warn li{border-left:3px solid #E69F00;background:#fffaf0;padding:6px 10px;margin:6px 0;font-size:14px}
.rr ul.warn li .adv{color:var(--muted);display:block;font-size:13px}
.rr code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;background:var(--soft);padding:1px 4px;border-radius:3px}
.rr code.wrap{white-space:normal;overflow-wrap:anywhere}
.rr table.rr-collapsed:not(.rr-searching) tr.rr-more:not(.rr-hit){display:none}
.rr button.rr-all{font:inherit;font-size:13.5px;padding:3px 10px;border:1px solid var(--line);border-radius:4px;background:var(--soft);cursor:pointer}
.rr footer{margin-top:36px;color:var(--muted);font-size:12.5px;border-top:1px solid var(--line);padding-top:8px}
"""


def _body(doc, images, interactive) -> str:
    parts = ['<div class="rr">', f"<h1>{_e(doc.title)}</h1>", f'<p class="sub">{_e(doc.subtitle)}</p>',
             "<nav>" + "".join(f'<a href="#rr-{_e(s.key)}">{_e(s.title)}</a>' for s in doc.sections) + "</nav>"]
    if doc.banner:
        kind = "banner" if doc.alarm else "banner note-banner"
        parts.append(f'<div class="{kind}" role="alert"><b>Device profile:</b> {_e(doc.banner)}</div>')
    for s in doc.sections:
        parts.append(f'<section id="rr-{_e(s.key)}"><h2>{_e(s.title)}</h2>')
        parts += [_block(b, images, interactive) for b in s.blocks]
        parts.append("</section>")
    parts.append(f"<footer>{_e(doc.footer)}</footer></div>")
    parts.append(f"<script>{TABLE_JS}</script>")
    return "\n".join(p for p in parts if p)


def _runs(parts) -> str:
    out = []
    for p in parts:
        if isinstance(p, Code):
            cls = ' class="wrap"' if len(p.text) > 60 else ""
            out.append(f"<code{cls}>{_e(p.text).replace(',', ',<wbr>')}</code>")
        else:
            out.append(_e(p))
    return "".join(out)


def _block(b, images, interactive) -> str:
    if isinstance(b, Table):
        return table_html(b)
    if isinstance(b, Para):
        return f'<p class="note">{_runs(b.parts)}</p>' if b.note else f"<p>{_runs(b.parts)}</p>"
    if isinstance(b, Heading):
        return f'<h3><code title="{_e(b.text)}">{_e(b.text)}</code></h3>' if b.code else f"<h3>{_e(b.text)}</h3>"
    if isinstance(b, Figure):
        if b.interactive and interactive:
            return (f'<figure class="interactive">{interactive}<figcaption>{_e(b.interactive_caption or b.caption)}'
                    "</figcaption></figure>")
        if b.key not in images:
            return ""
        return (f'<figure><img src="{_e(images[b.key])}" alt="{_e(b.caption)}">'
                f"<figcaption>{_e(b.caption)}</figcaption></figure>")
    if isinstance(b, Cards):
        return ('<div class="cards">' + "".join(f'<div class="card"><span>{_e(k)}</span><b>{_e(v)}</b>'
                                                f"<span>{_e(d)}</span></div>" for k, v, d in b.items) + "</div>")
    if isinstance(b, Bar):
        return ('<div class="bar">' + "".join(
            f'<span style="width:{100 * share:.3f}%;background:{_e(color)}" title="{_e(label)}: '
            f'{100 * share:.1f}%"></span>' for label, color, share in b.segments) + "</div>")
    if isinstance(b, Items):
        return '<ul class="warn">' + "".join(_item(*x) for x in b.items) + "</ul>"
    raise TypeError(f"no HTML for {type(b).__name__}")


def _item(subject: str, message: str, advice: str) -> str:
    head = f"<b>{_e(subject)}</b>: " if subject else ""
    adv = f'<span class="adv">{_e(advice)}</span>' if advice else ""
    return f"<li>{head}{_e(message)}{adv}</li>"


def _name_cell(name: str, shown: str | None = None) -> str:
    """A kernel name cell of a table written by hand (the projection
    report's): the short name shown, the full one on hover."""
    return f'<td class="name" title="{_e(name)}">{_e(_short(str(name)) if shown is None else shown)}</td>'


def _table(header, rows, left=frozenset({0}), raw_first: bool = False, compact: bool = False) -> str:
    """A table of cells already escaped (the projection report's)."""
    head = "".join(f'<th class="l">{_e(h)}</th>' if i in left else f"<th>{_e(h)}</th>" for i, h in enumerate(header))
    body = []
    for row in rows:
        cells = [c if i == 0 and raw_first else (f'<td class="l">{c}</td>' if i in left else f"<td>{c}</td>")
                 for i, c in enumerate(row)]
        body.append("<tr>" + "".join(cells) + "</tr>")
    cls = ' class="compact"' if compact else ""
    return (f'<div class="scroll"><table{cls}><thead><tr>{head}</tr></thead><tbody>'
            + "\n".join(body) + "</tbody></table></div>")
