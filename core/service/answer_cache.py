"""What the service remembers between requests so a hook's answer needs no query:
the session-start texts with the day maintenance last ran, today's recall awards, and the
rows of memories recall brought back.

Every change clears the texts (the context's `refresh_caches`, which every write, learning
result, maintenance run and settings change goes through, and an award that gained).
"""

from __future__ import annotations

import json
import threading
from typing import Any

from ..recall.shown import Awards

__all__ = ["Awards", "Rows", "SessionStarts"]

KEPT_TEXTS = 64  # (flavor, budget, repository, config) combinations; a handful in practice


class SessionStarts:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._texts: dict[tuple[Any, ...], tuple[str, list[str]]] = {}
        self.maintained_day: str | None = None  # maintenance ran (or was not due) on this day
        self._generation = 0

    @staticmethod
    def key(
        flavor: str, max_chars: int, repo: str | None, has_key: bool, config: dict[str, Any]
    ) -> tuple[Any, ...]:
        return (flavor, max_chars, repo, has_key, json.dumps(config, sort_keys=True, default=str))

    def get(self, key: tuple[Any, ...]) -> tuple[str, list[str]] | None:
        with self._lock:
            return self._texts.get(key)

    def put(self, key: tuple[Any, ...], value: tuple[str, list[str]], generation: int) -> None:
        """generation: `self.generation` read before the text was rendered; a text rendered
        from the store before a change landed is not kept after that change cleared the cache."""
        with self._lock:
            if generation != self._generation:
                return
            if len(self._texts) >= KEPT_TEXTS:
                self._texts.pop(next(iter(self._texts)))
            self._texts[key] = value

    @property
    def generation(self) -> int:
        with self._lock:
            return self._generation

    def clear(self) -> None:
        with self._lock:
            self._texts.clear()
            self._generation += 1


KEPT_ROWS = 4096


class Rows:
    """Rows of recalled memories (pin, repository, confidence, award day), kept between prompts:
    recall needs them to rank and to decide an award, the same memories come back prompt after
    prompt, and even one keyed read of the store was the largest part of the service's answer
    after the encode (docs/performance-journal.md, 2026-12-01). Cleared by every change (the
    context's `refresh_caches`) and dropped for memories an award wrote; a read that raced a
    change is not kept (generation, as SessionStarts)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rows: dict[str, Any] = {}
        self._generation = 0

    def find(self, store: Any, ids: list[str], lock_wait_s: float | None = None) -> dict[str, Any]:
        from ..memories import live as memories

        with self._lock:
            found = {i: self._rows[i] for i in ids if i in self._rows}
            generation = self._generation
        missing = [i for i in ids if i not in found]
        if missing:
            read = memories.find(store, missing, lock_wait_s)
            found.update(read)
            with self._lock:
                if generation == self._generation:
                    if len(self._rows) + len(read) > KEPT_ROWS:
                        self._rows.clear()
                    self._rows.update(read)
        return found

    def drop(self, ids: list[str]) -> None:
        with self._lock:
            for memory_id in ids:
                self._rows.pop(memory_id, None)
            self._generation += 1

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()
            self._generation += 1
