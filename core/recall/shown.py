"""What recall shows, after the gate: the hits that apply where the session is, in the order
they are shown, cut to the character budget, and the one award path.

The gate (engine.py) says which memories are related; this says which of them a prompt or a
tool call gets: memories of other repositories go, this repository's and pinned memories come
first and then the most confident, only as many as fit the budget, and only what was shown is
awarded (+0.05, once a day; core/memories/confidence.py).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..clock import Clock
from ..errors import StoreBusy
from ..memories import live as memories
from ..memories import scopes
from ..store.database import Store

log = logging.getLogger("memevo.recall")
AWARD_LOCK_WAIT_S = 0.3  # a busy store costs the award, never the prompt
SCOPE_WIDEN = 3  # the gate keeps this many times recallTopK, before other repositories' go
KEPT_AWARDS = 10_000
Hit = TypeVar("Hit")
Entry = tuple[str, str, str]  # (id, group, text as shown)


def applying(
    hits: Sequence[Hit], found: dict[str, memories.Memory], repo: str | None, top_k: int
) -> list[Hit]:
    """The hits that apply in `repo` (global, or of this repository), at most top_k of each
    category; `found` holds the hits' rows (a hit without one is kept: its scope is unknown)."""
    visible = [h for h in hits if _id(h) not in found or scopes.visible(found[_id(h)].scope, repo)]
    return [h for i, h in enumerate(visible) if sum(_cat(o) == _cat(h) for o in visible[:i]) < top_k]


def ranked(hits: Sequence[Hit], found: dict[str, memories.Memory]) -> list[Hit]:
    """In the order shown: pinned first, then this repository's, then the most confident;
    hits without a row last, in the gate's order."""

    def rank(hit: Hit) -> tuple[bool, bool, int]:
        memory = found.get(_id(hit))
        if memory is None:
            return (True, True, 0)
        return (not memory.pinned, memory.scope is None, -memory.confidence)

    return sorted(hits, key=rank)


def fit(
    entries: Sequence[Entry], budget: int, render: Callable[[list[Entry], int], str]
) -> tuple[list[Entry], int]:
    """The entries, in order, that fit the block `render` makes of them (with a note of how many
    were left out) in `budget` characters, and how many were left out."""
    kept: list[Entry] = []
    for index, entry in enumerate(entries):
        trial = [*kept, entry]
        if len(render(trial, len(entries) - index - 1)) > budget:
            break
        kept = trial
    return kept, len(entries) - len(kept)


class Awards:
    """Memories already awarded (or found not due) today: a recall that shows only these
    decides without reading the store. Only ever skips an award that would gain nothing."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._day: str | None = None
        self._done: set[str] = set()

    def not_yet(self, ids: list[str], today: str) -> list[str]:
        with self._lock:
            if self._day != today:
                self._day, self._done = today, set()
            return [i for i in ids if i not in self._done]

    def mark(self, ids: list[str], today: str) -> None:
        with self._lock:
            if self._day != today:
                self._day, self._done = today, set()
            if len(self._done) + len(ids) > KEPT_AWARDS:
                self._done.clear()
            self._done.update(ids)


def award(
    store: Store,
    clock: Clock,
    ids: list[str],
    *,
    found: dict[str, memories.Memory] | None = None,
    awards: Awards | None = None,
    what: str = "recall",
) -> dict[str, int] | None:
    """Award what was shown: the memories that gained, by id, with their new confidence ({}:
    none was due); None when nothing was asked of the store (all awarded today already) or the
    store was busy. `found`: their rows, when the caller has them; `awards`: today's memo."""
    today = clock.local_day(clock.now_ms())
    due = awards.not_yet(ids, today) if awards is not None else ids
    if not due:
        return None
    try:
        gained = memories.award_recall(store, due, clock, lock_wait_s=AWARD_LOCK_WAIT_S, known=found)
    except StoreBusy as exc:
        log.warning("%s award skipped for %s: %s", what, ",".join(due), exc)
        return None
    if awards is not None:
        awards.mark(due, today)
    return gained


def _id(hit: Any) -> str:
    return str(hit.id)


def _cat(hit: Any) -> str:
    return str(hit.category)
