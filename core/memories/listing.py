"""The browsable list of memories (the panel's table): which memories a listing holds, how
many, and one page of them at a time, in `memories.ranked` order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..store.database import Store
from .live import Memory
from .row import _COLUMNS


@dataclass(frozen=True)
class Listing:
    """Which memories a browsable list shows (the panel's table), in `ranked` order: a group,
    deprecated ones or not, global or repository ones, stale ones only or all, and a text to
    find (or a memory's id)."""

    search: str = ""
    category: str | None = None
    show_deprecated: bool = True
    scope: str | None = None  # None: all; "global"; "repo": those of one repository or another
    # only those whose repository no longer has a name they give (core/repos/staleness.py)
    stale_only: bool = False

    def _where(self) -> tuple[str, list[Any]]:
        clauses: list[str] = ["1 = 1"]
        params: list[Any] = []
        if self.category:
            clauses.append("category = ?")
            params.append(self.category)
        if not self.show_deprecated:
            clauses.append("NOT deprecated")
        if self.scope == "global":
            clauses.append("id NOT IN (SELECT memory_id FROM scopes)")
        elif self.scope == "repo":
            clauses.append("id IN (SELECT memory_id FROM scopes)")
        if self.stale_only:  # stale as the rows' own `stale` column reads it (row._COLUMNS)
            clauses.append("id IN (SELECT memory_id FROM anchors WHERE stale_ms IS NOT NULL)")
        if self.search:
            clauses.append("(contains(lower(text), lower(?)) OR id = ?)")
            params += [self.search, self.search]
        return " AND ".join(clauses), params


def listed_count(store: Store, listing: Listing) -> int:
    """How many memories the listing holds."""
    where, params = listing._where()
    return int(store.query(f"SELECT count(*) FROM memories WHERE {where}", params)[0][0])


def listed_page(store: Store, listing: Listing, count: int, after: Memory | None = None) -> list[Memory]:
    """The listing's next `count` memories after `after` (keyset, not OFFSET: a recall award
    moves memories while the user scrolls, and an offset would then skip or repeat rows)."""
    where, params = listing._where()
    if after is not None:
        where += (
            " AND (confidence < ? OR (confidence = ? AND last_seen_ms < ?)"
            " OR (confidence = ? AND last_seen_ms = ? AND id > ?))"
        )
        c, seen = after.confidence, after.last_seen_ms
        params = [*params, c, c, seen, c, seen, after.id]
    sql = f"SELECT {_COLUMNS} FROM memories WHERE {where} ORDER BY confidence DESC, last_seen_ms DESC, id LIMIT ?"
    return [Memory.from_row(r) for r in store.query(sql, [*params, count])]


def listed_among(store: Store, listing: Listing, ids: list[str]) -> list[Memory]:
    """The memories of `ids` the listing holds, in the order of `ids` (search hits' order)."""
    if not ids:
        return []
    where, params = listing._where()
    marks = ", ".join("?" for _ in ids)
    rows = store.query(f"SELECT {_COLUMNS} FROM memories WHERE {where} AND id IN ({marks})", [*params, *ids])
    found = {m.id: m for m in (Memory.from_row(r) for r in rows)}
    return [found[i] for i in ids if i in found]
