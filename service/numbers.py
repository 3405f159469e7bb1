"""Whole numbers as people type them into options and messages.

``str.isdigit()`` and the regular expression ``\\d`` take more than ASCII digits: ``"²"`` passes
``isdigit()`` yet ``int()`` refuses it, ``"١٢"`` (Arabic-Indic) and ``"１２"`` (fullwidth) are
read as 12, and a number of thousands of digits makes ``int()`` raise. Database ids are 64-bit
integers, so a longer number is no id. Only ASCII digits, and only so many of them, are a
number here; anything else is text, and the caller refuses it as it refuses any bad text.
"""

from __future__ import annotations

# 18 digits always fit in a signed 64-bit column (19 may not).
MAX_ID_DIGITS = 18
# ASCII digits only, for regular expressions that read numbers out of longer text.
DIGITS = "[0-9]"


def plain_number(text: str, *, max_digits: int = MAX_ID_DIGITS) -> int | None:
    """``text`` (stripped) as a whole number when it is ASCII digits, at most ``max_digits``
    of them; otherwise None."""
    text = text.strip()
    if text.isascii() and text.isdigit() and len(text) <= max_digits:
        return int(text)
    return None
