"""Tables of the HTML report that sort and search in the page, with no
server: a click on a column head sorts by that column (numbers by value,
through each cell's ``data-v``), a search box keeps the rows whose text or
full kernel name contains what is typed. And the kernels table: every kernel
name of the report (up to :data:`MAX_ROWS`, most time first), with an id
per row that the interactive chart's points jump to.
"""
from __future__ import annotations

import math

import numpy as np

from .cells import _bound_text, _pct, _rate, _reason_text, _t
from .names import distinct_names, html_text

MAX_ROWS = 2000

TABLE_JS = """
(function () {
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
      });
    });
  });
  document.querySelectorAll(".rr input.rr-search").forEach((box) => {
    box.addEventListener("input", () => {
      const q = box.value.toLowerCase(), t = document.getElementById(box.dataset.table);
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


def sortable_table(table_id: str, header, rows, left=frozenset({0}), search: bool = False) -> str:
    """``rows``: lists of ``(html, sort key)`` cells, optionally preceded by
    a dict of row attributes (``id``, ``data-s`` for the search text)."""
    head = "".join(f'<th class="l">{_e(h)}</th>' if i in left else f"<th>{_e(h)}</th>" for i, h in enumerate(header))
    body = []
    for row in rows:
        attrs = row[0] if isinstance(row[0], dict) else {}
        cells = row[1:] if attrs else row
        extra = "".join(f' {k}="{_e(v)}"' for k, v in attrs.items())
        tds = []
        for i, (text, key) in enumerate(cells):
            cls = ' class="l"' if i in left else ""
            tds.append(f'<td{cls} data-v="{_v(key)}">{text}</td>')
        body.append(f"<tr{extra}>" + "".join(tds) + "</tr>")
    box = (f'<p><input class="rr-search" type="search" placeholder="search names, families, reasons …" '
           f'data-table="{table_id}" aria-label="search the table"> <span class="muted" id="{table_id}-count">'
           f"{len(rows):,} rows</span></p>" if search else "")
    return (f'{box}<div class="scroll"><table class="sortable" id="{table_id}"><thead><tr>{head}</tr></thead><tbody>'
            + "\n".join(body) + "</tbody></table></div>")


def row_id(group: int) -> str:
    """The id of a kernel's row in the kernels table (chart points jump there)."""
    return f"rr-g-{group}"


def kernels_section(report) -> str:
    """Every kernel name (rows summed by name and variant), most time first."""
    g = report.grouped
    records = g.records()
    time = np.nan_to_num(g.kernels.time_s)
    order = np.argsort(-time, kind="stable")[:MAX_ROWS]
    total = float(time.sum())
    names = distinct_names([records[i]["name"] for i in order], width=70)
    rows = []
    for label, i in zip(names, order.tolist()):
        k = records[i]
        calls = k["count"] or 0
        per_call = k["time_s"] / calls if k["time_s"] is not None and calls else None
        share = k["time_s"] / total if k["time_s"] is not None and total else None
        rows.append([
            {"id": row_id(i), "data-s": " ".join(str(x) for x in (k["name"], k["family"], k["operator"],
                                                                   _bound_text(k), k["reason"] or "") if x)},
            (f'<span class="name" title="{_e(k["name"])}">{_e(label)}</span>', label),
            (_e(k["variant"] or ""), k["variant"] or ""), (_e(k["family"] or ""), k["family"] or ""),
            (f"{calls:,}", calls), (_e(_t(k["time_s"])), k["time_s"]), (_e(_pct(share)), share),
            (_e(_t(per_call)), per_call), (_e(_rate(k["achieved_flop_s"])), k["achieved_flop_s"]),
            (_e(_pct(k["efficiency"], 0)), k["efficiency"]), (_e(_bound_text(k)), _bound_text(k)),
            (_e(_reason_text(k)), _reason_text(k))])
    more = len(g) - len(rows)
    note = (f'<p class="note">{more:,} kernel names with less time are not listed; the families table sums '
            "all of them.</p>" if more > 0 else "")
    return ('<section id="rr-kernels"><h2>Kernels</h2><p>Every kernel name (rows summed by name and variant), '
            "most time first. Click a column to sort, type to search; a click on a point of the interactive "
            "roofline brings its row here.</p>"
            + sortable_table("rr-kernel-table", ["kernel", "variant", "family", "calls", "time", "share",
                                                 "per call", "FLOP/s", "% of roof", "bound", "why below the roof"],
                             rows, left={0, 1, 2, 9, 10}, search=True) + note + "</section>")
