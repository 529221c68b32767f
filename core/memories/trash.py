"""The trash: deleted memories are kept here, restorable, until they expire."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..clock import Clock, iso
from ..errors import NotFound
from ..repos import staleness
from ..store.database import Store, one
from . import confidence as conf
from .row import _COLUMNS, Memory, _insert

TRASH_KEEP_DAYS = 30


@dataclass(frozen=True)
class Trashed:
    memory: Memory
    deleted_ms: int
    reason: str

    def as_json(self) -> dict[str, Any]:
        return self.memory.as_json() | {"deleted": iso(self.deleted_ms), "reason": self.reason}


def trash_list(store: Store) -> list[Trashed]:
    rows = store.query(f"SELECT {_COLUMNS}, deleted_ms, reason FROM trash ORDER BY deleted_ms DESC, id")
    return [Trashed(Memory.from_row(row), int(row[12]), str(row[13])) for row in rows]


def _move_to_trash(con: Any, memory: Memory, now_ms: int, reason: str) -> None:
    con.execute("DELETE FROM memories WHERE id = ?", [memory.id])
    _insert(con, "trash", memory, (now_ms, reason))
    _move_vector(con, memory.id, "vectors", "trash_vectors")


def _move_vector(con: Any, memory_id: str, source: str, target: str) -> None:
    """The trash keeps a memory's vector, so a restore needs no re-encode."""
    con.execute(f"DELETE FROM {target} WHERE memory_id = ?", [memory_id])
    con.execute(f"INSERT INTO {target} SELECT * FROM {source} WHERE memory_id = ?", [memory_id])
    con.execute(f"DELETE FROM {source} WHERE memory_id = ?", [memory_id])


def delete(
    store: Store, ids: list[str], clock: Clock, reason: str = "deleted"
) -> tuple[list[str], list[str]]:
    """Move memories to the trash. Returns (deleted, missing); all missing is an error."""
    unique = list(dict.fromkeys(ids))
    with store.transaction() as con:
        present = {
            row[0]: Memory.from_row(row)
            for row in con.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE list_contains(?, id)", [unique]
            ).fetchall()
        }
        if not present:
            raise NotFound(f"no memory with id {', '.join(unique)}")
        for memory_id in unique:
            if memory_id in present:
                _move_to_trash(con, present[memory_id], clock.now_ms(), reason)
    return [i for i in unique if i in present], [i for i in unique if i not in present]


def restore(store: Store, memory_id: str) -> Memory:
    with store.transaction() as con:
        row = one(con.execute(f"SELECT {_COLUMNS} FROM trash WHERE id = ?", [memory_id]))
        if row is None:
            raise NotFound(f"no memory with id {memory_id} in the trash")
        memory = Memory.from_row(row)
        con.execute("DELETE FROM trash WHERE id = ?", [memory_id])
        _insert(con, "memories", memory)
        _move_vector(con, memory_id, "trash_vectors", "vectors")
        staleness.note(con, memory_id, memory.text)  # kept through the trash: a no-op unless it is older
    return memory


# Every table that keeps rows of a memory by memory_id: what a purge (core/memories/purge.py) and the
# trash's expiry delete with it. One list, so a table added for memories is never left behind.
MEMORY_ROW_TABLES = (
    "vectors",
    "trash_vectors",
    "pins",
    "versions",
    "scopes",
    "cues",
    "cue_vectors",
    "origins",
    "anchors",
    "shared_facts",  # its text as the repository's facts file had it (core/sharing/facts.py)
)


def purge_expired_trash(con: Any, now_ms: int) -> int:
    cutoff = now_ms - TRASH_KEEP_DAYS * conf.DAY_MS
    row = one(con.execute("SELECT count(*) FROM trash WHERE deleted_ms < ?", [cutoff]))
    for table in (t for t in MEMORY_ROW_TABLES if t != "vectors"):  # a trashed memory's are in trash_vectors
        con.execute(
            f"DELETE FROM {table} WHERE memory_id IN (SELECT id FROM trash WHERE deleted_ms < ?)", [cutoff]
        )
    con.execute("DELETE FROM trash WHERE deleted_ms < ?", [cutoff])
    return int(row[0]) if row else 0
