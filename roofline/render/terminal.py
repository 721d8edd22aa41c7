"""Text bound for a terminal: characters that would act on it are shown as
escapes instead of sent.

Kernel, operator and device names come from the files we read. An ESC
starts a sequence that recolours, moves the cursor, sets the window title
or (OSC 52) the clipboard; bidirectional overrides and isolates reorder
what is shown (a name can read as another); a lone surrogate cannot be
encoded and stopped the output with a traceback. Tables and warnings show
such a character as its Python escape (``\\x1b``, ``\\u202e``, ``\\ud800``);
JSON and CSV keep the real name.
"""
from __future__ import annotations

import re

# C0 controls (tab, CR and newline included: a cell or a one-line message
# must stay one line), DEL, C1 controls, the Arabic letter mark, LRM/RLM, the
# line and paragraph separators, bidi embeddings/overrides (U+202A-202E) and
# isolates (U+2066-2069), and surrogates.
_ACTIVE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                     "\ud800-\udfff]")


def visible(text: str) -> str:
    """``text`` with every character that acts on a terminal written as its escape."""
    return _ACTIVE.sub(_escape, text)


def visible_lines(text: str) -> str:
    """Several lines made visible one by one (their newlines kept)."""
    return "\n".join(map(visible, text.split("\n")))


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
