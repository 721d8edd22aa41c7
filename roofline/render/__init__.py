"""Everything a user reads or looks at: text tables, CSV and JSON of
placements, charts, and the HTML/Markdown report. Only formats what
``roofline.core`` and ``roofline.analysis`` computed.

- text and data: :mod:`.tables` (table, CSV, JSON of placements and
  devices), :mod:`.json_rows` (a million rows as JSON, column by column),
  :mod:`.row_text` (rows of the CSV and JSON joined from coded and
  formatted pieces),
  :mod:`.terminal` (names made safe for a terminal), :mod:`.names`
  (kernel and operator names shortened, still told apart), :mod:`.cells`
  (report cell text);
- the roofline chart: :mod:`.plot` (matplotlib), :mod:`.chart` (one chart
  from placements, condensed for huge traces), :mod:`.geometry` (which
  roofs and axes, shared by the static and interactive chart),
  :mod:`.density` (a 2-D histogram where points would be too many),
  :mod:`.labels` (labels kept off each other), :mod:`.variants`
  (before/after arrows), :mod:`.views` (the registry of roofline views for
  ``plot --view`` and the report), :mod:`.style` (colours and markers);
- the interactive chart (Bokeh, in the HTML report): :mod:`.interactive`,
  its in-page :mod:`.interactive_controls`, :mod:`.interactive_labels` and
  :mod:`.interactive_roofs` (roofs, ridges and their labels);
- analyses written out and drawn: :mod:`.instruction` (instruction
  roofline), :mod:`.overhead` (fixed costs), :mod:`.block_sched` (block
  scheduling inside kernels), :mod:`.collectives` (the collective
  roofline), :mod:`.diff` (two runs side by side);
- the report: :mod:`.report` (the ``Report`` model: what it shows),
  :mod:`.report_rows` and :mod:`.step_rows` (its tables and the step
  split), :mod:`.document` (the report as typed blocks),
  :mod:`.sections` (one module per section, in order), and the writers
  :mod:`.html` (with sortable tables from :mod:`.html_tables`) and
  :mod:`.markdown`;
- projections: :mod:`.projection` (JSON, CSV, text), :mod:`.projection_report`
  (HTML or Markdown page) and :mod:`.projection_chart` (its charts).

May import: ``roofline.core``, ``roofline.analysis`` and
``roofline.devices``; numpy, matplotlib, msgspec, pyarrow and bokeh
(matplotlib, bokeh and pyarrow inside the functions that draw or write,
so importing ``render`` stays cheap). Not the importers: a report is
built from files by ``roofline.report.build_report``.
"""
