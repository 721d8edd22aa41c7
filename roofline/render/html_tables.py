"""Tables of the HTML report (:class:`~.document.Table` written out), which
sort and search in the page with no server: a click on a column head sorts
by that column (numbers by value, through each cell's ``data-v``), a search
box keeps the rows whose text or full kernel name contains what is typed,
and a long table shows its top rows until "show all" is pressed (a search,
or a chart point that jumps to a hidden row, shows the rest).
"""
from __future__ import annotations

import math

import numpy as np

from .names import html_text

TABLE_JS = """
(function () {
  const mark = (t) => {     // the rows past the top ones, in their current order
    const n = Number(t.dataset.collapse || 0);
    if (n) Array.from(t.tBodies[0].rows).forEach((r, i) => r.classList.toggle("rr-more", i >= n));
  };
  document.querySelectorAll(".rr button.rr-all").forEach((b) => {
    b.addEventListener("click", () => {
      const t = document.getElementById(b.dataset.table);
      const open = t.classList.toggle("rr-collapsed");
      b.textContent = open ? b.dataset.more : "show the top " + t.dataset.collapse + " rows";
    });
  });
  const num = (v) => (v === undefined || v === "" ? NaN : Number(v));
  document.querySelectorAll(".rr table.sortable").forEach((t) => {
    t.querySelectorAll("thead th").forEach((th, c) => {
      th.title = "sort";
      th.addEventListener("click", () => {
        const body = t.tBodies[0], rows = Array.from(body.rows);
        const dir = th.dataset.dir === "desc" ? 1 : -1;
        t.querySelectorAll("thead th").forEach((h) => delete h.dataset.dir);
        th.dataset.dir = dir === 1 ? "asc" : "desc";
        rows.sort((a, b) => {
          const x = a.cells[c].dataset.v ?? a.cells[c].textContent, y = b.cells[c].dataset.v ?? b.cells[c].textContent;
          const nx = num(x), ny = num(y);
          if (!isNaN(nx) || !isNaN(ny)) return dir * ((isNaN(nx) ? -Infinity : nx) - (isNaN(ny) ? -Infinity : ny));
          return dir * String(x).localeCompare(String(y));
        });
        rows.forEach((r) => body.appendChild(r));
        mark(t);
      });
    });
  });
  document.querySelectorAll(".rr input.rr-search").forEach((box) => {
    box.addEventListener("input", () => {
      const q = box.value.toLowerCase(), t = document.getElementById(box.dataset.table);
      if (q) t.classList.add("rr-searching"); else t.classList.remove("rr-searching");
      let shown = 0;
      for (const r of t.tBodies[0].rows) {
        const hit = (r.dataset.s || r.textContent).toLowerCase().includes(q);
        r.style.display = hit ? "" : "none";
        shown += hit;
      }
      const out = document.getElementById(box.dataset.table + "-count");
      if (out) out.textContent = shown + " of " + t.tBodies[0].rows.length + " rows";
    });
  });
})();
"""


def _e(text) -> str:
    return html_text(text)


def _v(x) -> str:
    """A cell's sort key: the number, or "" when there is none."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return ""
    return repr(float(x)) if isinstance(x, (int, float, np.floating, np.integer)) else _e(x)


def cell_html(c, left: bool, sortable: bool) -> str:
    """One ``<td>``: a name in the name style with the full name on hover,
    a bound class after its swatch, a speed-up in its tone, muted text after."""
    inner = _e(c.text)
    if c.tone:
        inner = f'<span class="{_e(c.tone)}">{inner}</span>'
    if c.color:
        inner = f'<span class="swatch" style="background:{_e(c.color)}"></span>{inner}'
    if c.aside:
        inner += f' <span class="muted">{_e(c.aside)}</span>'
    attrs = f' data-v="{_v(c.value)}"' if sortable else ""
    if c.title:
        attrs += f' title="{_e(c.title)}"'
    if c.kind == "code":
        return f'<td class="name"{attrs}>{inner}</td>'
    return f'<td class="l"{attrs}>{inner}</td>' if left else f"<td{attrs}>{inner}</td>"


def table_html(t) -> str:
    """A :class:`~.document.Table`: sortable (and searchable, collapsible)
    when it has an id, a plain table otherwise."""
    left = t.left()
    sortable = t.table_id is not None
    head = "".join(f'<th class="l">{_e(h)}</th>' if i in left else f"<th>{_e(h)}</th>"
                   for i, h in enumerate(t.header))
    body = []
    collapse = t.collapse if t.collapse and len(t.rows) > t.collapse + 5 else None
    for j, row in enumerate(t.rows):
        attrs = ""
        if t.row_ids:
            attrs += f' id="{_e(t.row_ids[j])}"'
        if t.row_search:
            attrs += f' data-s="{_e(t.row_search[j])}"'
        if collapse and j >= collapse:
            attrs += ' class="rr-more"'
        body.append(f"<tr{attrs}>" + "".join(cell_html(c, i in left, sortable) for i, c in enumerate(row)) + "</tr>")
    classes = " ".join(x for x in ("sortable" if sortable else "", "compact" if t.compact else "",
                                   "rr-collapsed" if collapse else "") if x)
    tid = f' id="{_e(t.table_id)}"' if t.table_id else ""
    data = f' data-collapse="{collapse}"' if collapse else ""
    box = (f'<p><input class="rr-search" type="search" placeholder="search names, families, reasons …" '
           f'data-table="{_e(t.table_id)}" aria-label="search the table"> <span class="muted" '
           f'id="{_e(t.table_id)}-count">{len(t.rows):,} rows</span></p>' if t.search and t.table_id else "")
    more = ""
    if collapse and t.table_id:
        label = f"show all {len(t.rows):,} rows"
        more = (f'<p><button class="rr-all" type="button" data-table="{_e(t.table_id)}" data-more="{_e(label)}">'
                f"{_e(label)}</button></p>")
    cls = f' class="{classes}"' if classes else ""
    return (f'{box}<div class="scroll"><table{cls}{tid}{data}><thead><tr>{head}</tr></thead><tbody>'
            + "\n".join(body) + "</tbody></table></div>" + more)
