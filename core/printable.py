"""Text someone else chose, made safe to show: a model's value quoted back in an error, which a
client may print on a terminal or in a notification."""

from __future__ import annotations

from typing import Any


def printable(text: Any) -> str:
    """`text` with every non-printable character (ESC and other controls, bidi overrides, NUL,
    a newline) written as its escape, so the value reads as written and never acts on the
    screen it is shown on. Linear in the text."""
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
        for ch in str(text)
    )
