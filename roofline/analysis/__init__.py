"""Analyses over placed kernels: each takes ``Placements`` (or a device and
kernels) and returns small frozen results, never text or figures.

- :mod:`.overhead`: overhead-bound kernels and fixed costs, host API time
  and GPU idle time;
- :mod:`.instruction`: the instruction roofline (Ding and Williams 2019);
- :mod:`.diff`: two runs, or two device profiles, compared;
- :mod:`.ranks`: the ranks of one job, per family and per rank, stragglers.

May import: ``roofline.core`` and ``roofline.devices``; numpy. Not the
importers (an analysis is given kernels, it does not read files), not
``roofline.render`` (which draws and formats these results) nor the CLI.
"""
