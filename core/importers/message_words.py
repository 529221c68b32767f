"""The text of a message as the clients store it: a string, or a list of typed parts."""

from __future__ import annotations

from typing import Any


def words_of(content: Any, kinds: tuple[str, ...]) -> str | None:
    """A message's text: the content itself, or its text parts of these kinds joined; None when
    it has none (tool results, images)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts = [
        part["text"]
        for part in content
        if isinstance(part, dict) and part.get("type") in kinds and isinstance(part.get("text"), str)
    ]
    return "\n".join(parts) if parts else None
