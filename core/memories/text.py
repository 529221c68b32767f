"""Memory text and category rules: what a memory may hold, checked before anything is written."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from ..errors import InvalidInput

Category = Literal["rule", "project"]
CATEGORIES: tuple[Category, ...] = ("rule", "project")
MIN_TEXT, MAX_TEXT = 6, 400


def check_category(value: str) -> Category:
    if value == "rule":
        return "rule"
    if value == "project":
        return "project"
    raise InvalidInput(f"category must be rule or project, not {value!r}")


def text_width(text: str) -> int:
    """Display columns: a Chinese (wide) character counts as two, like a terminal shows it."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


# C0/C1 controls but newline and tab, DEL, bidi overrides and isolates, lone surrogates: they
# would ride along into every injected prompt and terminal (ESC sequences, U+202E reversal).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def first_unsafe(text: str) -> str | None:
    """A description of the first character a memory may not hold, or None."""
    found = _UNSAFE.search(text)
    return None if found is None else f"U+{ord(found.group()):04X} at position {found.start() + 1}"


# remove_unsafe must stay linear and cheap on a megabyte of hostile text (the side judge's input):
# a regex substitution pays per match, so 1 MB of "a\r" (half of it matches) took far over the
# filter's budget (`memevo bench --json`: filter_worst_ms). Real text holds a few distinct unsafe characters: each goes in one str.replace
# pass. Past a handful, the ASCII controls go with bytes.translate (in UTF-8 these bytes never
# occur inside a multi-byte character) and what is left with a substitution.
_UNSAFE_ASCII = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])
_UNSAFE_WIDE = re.compile("[\x80-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_REPLACE_PASSES = 8


def remove_unsafe(text: str) -> str:
    """For text that is not the user's own typing (learned, or stored before these rules)."""
    text = text.replace("\r\n", "\n")
    clean_up_to = 0
    for _ in range(_REPLACE_PASSES):
        found = _UNSAFE.search(text, clean_up_to)
        if found is None:
            return text
        clean_up_to = found.start()
        text = text.replace(found.group(), "")
    # surrogatepass: lone surrogates must survive the round trip to be removed below.
    encoded = text.encode("utf-8", "surrogatepass").translate(None, _UNSAFE_ASCII)
    return _UNSAFE_WIDE.sub("", encoded.decode("utf-8", "surrogatepass"))


def check_text(text: str) -> str:
    """6–400: at least 6 columns (「回答用中文」 is a whole rule in five wide characters), at most
    400 characters, and no control or direction-changing characters. Checked on every create,
    merge and replace, from every surface (CLI, panel, MCP, learned)."""
    text = text.replace("\r\n", "\n")
    unsafe = first_unsafe(text)
    if unsafe is not None:
        raise InvalidInput(
            f"memory text may not contain control or text-direction characters ({unsafe}); nothing written"
        )
    cleaned = text.strip()
    if text_width(cleaned) < MIN_TEXT or len(cleaned) > MAX_TEXT:
        raise InvalidInput(
            f"memory text must be {MIN_TEXT}–{MAX_TEXT} characters (a Chinese character counts as two "
            f"toward the minimum), got {len(cleaned)}; nothing written"
        )
    return cleaned
