"""What a row's operator models assumed, as the row's ``assumed`` text.

A row may aggregate many calls (a CPU row: one operator at one shape; a GPU
row: one kernel name under one operator name, at any shapes): its text is
the distinct notes of their models (``OpWork.assumptions``: random-number
generation, causal attention's FLOP convention, alike factors read once,
a tensor list sized from its sibling; or a model's reason for unknown work),
in first-seen order, joined and bounded.
"""
from __future__ import annotations

# a row's notes are a few at most; the cap guards a model that writes one per call
ASSUMED_CHARS = 400


def add_notes(seen: dict, notes) -> None:
    """Add ``notes`` (strings) to ``seen`` (an insertion-ordered dict used as a set)."""
    seen.update(dict.fromkeys(map(str, notes or ())))


def joined_notes(seen: dict) -> str:
    """The notes ``; ``-joined, cut at :data:`ASSUMED_CHARS` with an ellipsis."""
    text = "; ".join(seen)
    return text if len(text) <= ASSUMED_CHARS else text[:ASSUMED_CHARS - 1] + "\u2026"
