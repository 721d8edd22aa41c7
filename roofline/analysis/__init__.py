"""Analyses over placed kernels: each takes ``Placements`` (or a device and
kernels) and returns small frozen results, never text or figures.

- :mod:`.groups`: one summary per group of rows (calls, time, share,
  rates, % of roof, time per class and the group's bound), which the
  report's tables, :mod:`.diff`, :mod:`.ranks` and :mod:`.steps` all use;
- :mod:`.steps`: the step split, time by training phase and bound class;
- :mod:`.overhead`: overhead-bound kernels and fixed costs, host API time
  and GPU idle time;
- :mod:`.block_sched`: SM cycles lost between thread blocks (Neutrino);
- :mod:`.instruction`: the instruction roofline (Ding and Williams 2019);
- :mod:`.diff`: two runs, or two device profiles, compared;
- :mod:`.ranks`: the ranks of one job, per family and per rank, stragglers;
- :mod:`.collectives`: collectives on their link roofs, exposed
  communication, waiting across ranks;
- :mod:`.projection`: a trace projected onto another device, with
  :mod:`.projection_bases` (what each row rests on), :mod:`.projection_fill`
  (rows without work), :mod:`.projection_totals` (totals with intervals)
  and :mod:`.library_efficiency` (how close matrix libraries came to
  their roof).

May import: ``roofline.core`` and ``roofline.devices``; numpy. Not the
importers (an analysis is given kernels, it does not read files), not
``roofline.render`` (which draws and formats these results) nor the CLI.
"""
