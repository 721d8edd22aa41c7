"""Text cells of the CSV files we write, safe to open in a spreadsheet.

A cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
is run as a formula by spreadsheets (OWASP's CSV injection list); a leading
apostrophe makes it text, and spreadsheets hide the apostrophe. A cell that
already starts with apostrophes before such a character gets one more, so
:func:`restored` gives back exactly what :func:`defused` was given. Only text
columns are defused: a number such as ``-1.5`` stays a number.
"""
from __future__ import annotations

import re

# The same rule for Python's re and Arrow's RE2 (compute.match_substring_regex).
RISKY_PATTERN = "^'*[=+@\t\r-]"
_RISKY = re.compile(RISKY_PATTERN)
_DEFUSED = re.compile("^'+[=+@\t\r-]")


def defused(text: str) -> str:
    """``text`` with a leading apostrophe when a spreadsheet would run it."""
    return "'" + text if _RISKY.match(text) else text


def restored(text: str) -> str:
    """The text :func:`defused` was given (other text unchanged)."""
    return text[1:] if _DEFUSED.match(text) else text
