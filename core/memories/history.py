"""Memory history: a replaced text is kept as a superseded version, never recalled."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..clock import Clock, iso
from ..errors import NotFound
from ..repos import staleness
from ..store.database import Store, one
from .row import _COLUMNS, Memory, _get_in
from .text import check_text


@dataclass(frozen=True)
class Version:
    memory_id: str
    seq: int
    text: str
    valid_from_ms: int
    valid_to_ms: int
    reason: str

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.memory_id,
            "version": self.seq,
            "text": self.text,
            "valid_from": iso(self.valid_from_ms),
            "valid_to": iso(self.valid_to_ms),
            "reason": self.reason,
        }


def _supersede(con: Any, memory: Memory, new_text: str, now_ms: int, reason: str) -> None:
    """Keep memory's current text as a version valid until now (from when it became the text:
    the previous version's end, else the memory's creation). Nothing kept when unchanged."""
    if new_text == memory.text:
        return
    row = one(
        con.execute(
            "SELECT coalesce(max(seq), 0), max(valid_to_ms) FROM versions WHERE memory_id = ?", [memory.id]
        )
    )
    last_seq, last_end = (int(row[0]), row[1]) if row else (0, None)
    start = int(last_end) if last_end is not None else memory.created_ms
    con.execute(
        "INSERT INTO versions VALUES (?, ?, ?, ?, ?, ?)",
        [memory.id, last_seq + 1, memory.text, min(start, now_ms), now_ms, reason],
    )


def history(store: Store, memory_id: str) -> tuple[Memory | None, list[Version]]:
    """The memory (None once it is in the trash) and its superseded versions, newest first."""
    rows = store.query(
        "SELECT memory_id, seq, text, valid_from_ms, valid_to_ms, reason FROM versions "
        "WHERE memory_id = ? ORDER BY seq DESC",
        [memory_id],
    )
    versions = [Version(str(r[0]), int(r[1]), str(r[2]), int(r[3]), int(r[4]), str(r[5])) for r in rows]
    found = store.query(f"SELECT {_COLUMNS} FROM memories WHERE id = ?", [memory_id])
    if not found and not versions:
        raise NotFound(f"no memory with id {memory_id}")
    return (Memory.from_row(found[0]) if found else None), versions


def restore_version(store: Store, memory_id: str, seq: int, clock: Clock) -> Memory:
    """The version's text becomes the memory's again; the text it replaces is kept as a version.
    Not an award: confidence and last_seen stay."""
    with store.transaction() as con:
        memory = _get_in(con, memory_id)
        row = one(con.execute("SELECT text FROM versions WHERE memory_id = ? AND seq = ?", [memory_id, seq]))
        if row is None:
            raise NotFound(f"memory {memory_id} has no version {seq}")
        body = check_text(str(row[0]))
        _supersede(con, memory, body, clock.now_ms(), f"restored version {seq}")
        con.execute("UPDATE memories SET text = ? WHERE id = ?", [body, memory_id])
        staleness.note(con, memory_id, body)
    return Memory(**(asdict(memory) | {"text": body}))
