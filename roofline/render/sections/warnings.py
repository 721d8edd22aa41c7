"""Warnings: the advice of every step, without repeats."""
from __future__ import annotations

from ..document import Items, note

KEY, TITLE = "warnings", "Warnings"


def build(r, ctx):
    items = r.warnings()
    if not items:
        return [note("None.")]
    return [Items(tuple((w.subject or "", w.message, w.advice or "") for w in items))]
