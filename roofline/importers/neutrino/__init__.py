"""Neutrino probe traces: a run's ``result/*.bin`` block-scheduling records
(:mod:`.neutrino_bin`, bounded reads of the binary format) and the run
folder around them (:mod:`.reader`).

No real Neutrino file was available; the format is built from Neutrino's
source (see ``docs/neutrino.md``).

May import: ``roofline.core`` and the shared modules of
``roofline.importers``.
"""
from .reader import read_run  # noqa: F401  (the public entry point, docs/neutrino.md)
