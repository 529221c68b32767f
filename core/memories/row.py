"""The memory row type and how it maps to the memories and trash tables' columns."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..clock import iso
from ..errors import NotFound
from ..store.database import one
from . import confidence as conf
from .confidence import Standing
from .text import Category

# pinned is read from its own table (migration 6), so the memory rows keep their nine columns;
# the unqualified id is the outer table's (memories or trash), as pins has no id column.
_COLUMNS = (
    "id, category, text, confidence, created_ms, last_seen_ms, deprecated, award_day, award_pts, "
    "EXISTS (SELECT 1 FROM pins WHERE pins.memory_id = id) AS pinned, "
    "(SELECT repo FROM scopes WHERE scopes.memory_id = id) AS scope, "
    "(SELECT stale_reason FROM anchors WHERE anchors.memory_id = id AND stale_ms IS NOT NULL) AS stale"
)


@dataclass(frozen=True)
class Memory:
    id: str
    category: Category
    text: str
    confidence: int
    created_ms: int
    last_seen_ms: int
    deprecated: bool
    award_day: str | None
    award_pts: int
    pinned: bool = False
    scope: str | None = None  # the repository it belongs to; None: global
    # why its repository no longer confirms it ("x not found in repo since day"); None: not stale
    stale: str | None = None

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Memory:
        id_, category, text, confidence, created_ms, last_seen_ms, deprecated, award_day, award_pts = row[:9]
        pinned = bool(row[9]) if len(row) > 9 else False
        scope = str(row[10]) if len(row) > 10 and row[10] is not None else None
        stale = str(row[11]) if len(row) > 11 and row[11] is not None else None
        return cls(
            id_,
            category,
            text,
            confidence,
            created_ms,
            last_seen_ms,
            deprecated,
            award_day,
            award_pts,
            pinned,
            scope,
            stale,
        )

    @property
    def standing(self) -> Standing:
        return Standing(self.confidence, self.last_seen_ms, self.award_day, self.award_pts, self.deprecated)

    def with_standing(self, standing: Standing) -> Memory:
        fields = asdict(self) | asdict(standing)
        return Memory(**fields)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "category": self.category,
            "text": self.text,
            "confidence": conf.as_float(self.confidence),
            "created": iso(self.created_ms),
            "last_seen": iso(self.last_seen_ms),
            "deprecated": self.deprecated,
            "pinned": self.pinned,
            "scope": self.scope or "global",
            "stale": self.stale,
        }


def _insert(con: Any, table: str, memory: Memory, extra: tuple[Any, ...] = ()) -> None:
    values = (*_values(memory), *extra)
    marks = ", ".join("?" for _ in values)
    con.execute(f"INSERT INTO {table} VALUES ({marks})", list(values))


def _values(memory: Memory) -> tuple[Any, ...]:
    m = memory
    return (
        m.id,
        m.category,
        m.text,
        m.confidence,
        m.created_ms,
        m.last_seen_ms,
        m.deprecated,
        m.award_day,
        m.award_pts,
    )


def _get_in(con: Any, memory_id: str) -> Memory:
    row = one(con.execute(f"SELECT {_COLUMNS} FROM memories WHERE id = ?", [memory_id]))
    if row is None:
        raise NotFound(f"no memory with id {memory_id}")
    return Memory.from_row(row)
