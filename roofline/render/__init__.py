"""Everything a user reads or looks at: text tables, CSV and JSON of
placements, charts, and the HTML/Markdown report.

- text and data: :mod:`.tables` (table, CSV, JSON of placements and
  devices), :mod:`.json_rows` (a million rows as JSON, column by column),
  :mod:`.terminal` (names made safe for a terminal), :mod:`.cells`
  (report cell text);
- charts (matplotlib, imported only when drawing): :mod:`.plot` (the
  roofline figure), :mod:`.chart` (one chart from placements, condensed for
  huge traces), :mod:`.density`, :mod:`.variants` (before/after arrows),
  :mod:`.instruction` and :mod:`.overhead` (their analyses drawn and
  written out), :mod:`.diff` (two runs side by side), :mod:`.style`;
- the report: :mod:`.report` (the ``Report`` model: what each section
  shows), :mod:`.report_rows` (its tables), :mod:`.html`, :mod:`.markdown`.

May import: ``roofline.core``, ``roofline.analysis`` and
``roofline.devices``; numpy, matplotlib, pyarrow, msgspec. Not the
importers: a report is built from files by ``roofline.report.build_report``.
"""
