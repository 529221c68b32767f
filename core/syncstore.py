"""A person's memories as text records (issue 35, item 2): one JSON file per memory, written,
read and merged here; core/syncgit.py moves them through git.

A record is a memory's whole state: its row (text, confidence and the rest), pin, scope, trash
entry and superseded texts — deterministic JSON (sorted keys, one field a line) so git stores
and merges one file per memory. `changed_ms` beside it says when a machine first exported
that state (the store keeps no per-memory change time); it never counts as a change itself.

sync_state keeps, per memory, the content hash of the record as last committed: the base that
tells which side changed. Writing a record into the store replaces all of that memory's rows in
one transaction with its base, so a repeated import (after a kill -9) writes the same rows
again and nothing twice.

merge(a, b) of two changed records: a record the other side purged or trashed loses to an
edit (the edit survives); else the later change wins; the loser's text is kept in history.
The result depends only on the two records, so merging again with either side gives it back.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from . import redaction
from .store import Store

SCHEMA = 1
LOSER_REASON = "sync: the other machine's text"


@dataclass(frozen=True)
class Record:
    content: dict[str, Any]
    changed_ms: int

    @property
    def id(self) -> str:
        return str(self.content["id"])

    @property
    def sha(self) -> str:
        return content_sha(self.content)

    def to_text(self) -> str:
        body = {"schema": SCHEMA, "changed_ms": self.changed_ms, "memory": self.content}
        return json.dumps(body, ensure_ascii=False, sort_keys=True, indent=1) + "\n"


class BrokenRecord(ValueError):
    pass


def content_sha(content: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(content, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


_FIELDS = {
    "id": str,
    "category": str,
    "text": str,
    "confidence": int,
    "created_ms": int,
    "last_seen_ms": int,
    "deprecated": bool,
    "award_pts": int,
}


def parse(text: str) -> Record:
    """A record from its file, or BrokenRecord saying what is wrong."""
    try:
        body = json.loads(text)
    except ValueError as exc:
        raise BrokenRecord(f"not JSON: {exc}") from None
    if not isinstance(body, dict) or body.get("schema") != SCHEMA or not isinstance(body.get("memory"), dict):
        raise BrokenRecord(f"not a memevo record of schema {SCHEMA}")
    content, changed = body["memory"], body.get("changed_ms")
    for key, kind in _FIELDS.items():
        if not isinstance(content.get(key), kind) or (kind is int and isinstance(content.get(key), bool)):
            raise BrokenRecord(f"{key} missing or not a {kind.__name__}")
    if content["category"] not in ("rule", "project") or not isinstance(changed, int):
        raise BrokenRecord("category or changed_ms is wrong")
    history = content.get("history")
    if not isinstance(history, list) or not all(
        isinstance(h, list) and len(h) == 4 and isinstance(h[0], int) and isinstance(h[1], int)
        for h in history
    ):
        raise BrokenRecord("history is not a list of [from_ms, to_ms, reason, text]")
    from .memories import first_unsafe

    texts = [content["text"], *(h[3] for h in history)]
    if not all(isinstance(t, str) and t.strip() and not first_unsafe(t) for t in texts):
        raise BrokenRecord("a text is empty or holds characters memevo does not store")
    scope = content.get("scope")
    if scope is not None and (not isinstance(scope, str) or first_unsafe(scope) or len(scope) > 4096):
        raise BrokenRecord("scope is not a repository's name")
    return Record(content, changed)


# -- the store's side ------------------------------------------------------------------------

_ROW = "id, category, text, confidence, created_ms, last_seen_ms, deprecated, award_day, award_pts"


def export_all(store: Store) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Every memory (live and trashed) as record content; and the ids held back because their
    text holds what looks like a secret (they stay on this machine)."""
    with store.reading() as con:
        rows: list[tuple[Any, tuple[int, str] | None]] = [
            (r, None) for r in con.execute(f"SELECT {_ROW} FROM memories").fetchall()
        ]
        rows += [
            (r[:9], (int(r[9]), str(r[10])))
            for r in con.execute(f"SELECT {_ROW}, deleted_ms, reason FROM trash").fetchall()
        ]
        pins = dict(con.execute("SELECT memory_id, pinned_ms FROM pins").fetchall())
        scopes = dict(con.execute("SELECT memory_id, repo FROM scopes").fetchall())
        history: dict[str, list[list[Any]]] = {}
        for memory_id, start, end, reason, text in con.execute(
            "SELECT memory_id, valid_from_ms, valid_to_ms, reason, text FROM versions ORDER BY memory_id, seq"
        ).fetchall():
            history.setdefault(str(memory_id), []).append([int(start), int(end), str(reason), str(text)])
    found: dict[str, dict[str, Any]] = {}
    held: list[str] = []
    for row, trashed in rows:
        memory_id = str(row[0])
        texts = [str(row[2]), *(h[3] for h in history.get(memory_id, []))]
        if any(redaction.redact_secrets(t) != t for t in texts):
            held.append(memory_id)
            continue
        found[memory_id] = {
            "id": memory_id,
            "category": str(row[1]),
            "text": str(row[2]),
            "confidence": int(row[3]),
            "created_ms": int(row[4]),
            "last_seen_ms": int(row[5]),
            "deprecated": bool(row[6]),
            "award_day": row[7],
            "award_pts": int(row[8]),
            "pinned_ms": int(pins[memory_id]) if memory_id in pins else None,
            "scope": scopes.get(memory_id),
            "trashed": {"deleted_ms": trashed[0], "reason": trashed[1]} if trashed else None,
            "history": sorted(history.get(memory_id, [])),
        }
    return found, sorted(held)


def bases(store: Store) -> dict[str, tuple[str, int]]:
    rows = store.query("SELECT memory_id, sha, changed_ms FROM sync_state")
    return {str(r[0]): (str(r[1]), int(r[2])) for r in rows}


def set_bases(store: Store, items: dict[str, tuple[str, int] | None]) -> None:
    if not items:
        return
    with store.transaction() as con:
        for memory_id, base in items.items():
            _set_base(con, memory_id, base)


def _set_base(con: Any, memory_id: str, base: tuple[str, int] | None) -> None:
    con.execute("DELETE FROM sync_state WHERE memory_id = ?", [memory_id])
    if base is not None:
        con.execute("INSERT INTO sync_state VALUES (?, ?, ?)", [memory_id, base[0], base[1]])


_MEMORY_TABLES = ("pins", "scopes", "versions")


def write(store: Store, memory_id: str, record: Record | None, base: bool) -> None:
    """Make the store hold `record` for memory_id (None: the memory is gone everywhere: its
    rows go), in one transaction; with base, the record is also the new base."""
    with store.transaction() as con:
        if record is None:
            from .purge import remove_rows

            remove_rows(con, memory_id)
        else:
            _replace(con, record.content)
        if base:
            _set_base(con, memory_id, (record.sha, record.changed_ms) if record else None)


def _replace(con: Any, c: dict[str, Any]) -> None:
    memory_id = c["id"]
    row = [
        memory_id,
        c["category"],
        c["text"],
        c["confidence"],
        c["created_ms"],
        c["last_seen_ms"],
        c["deprecated"],
        c.get("award_day"),
        c["award_pts"],
    ]
    was_live = bool(con.execute("SELECT count(*) FROM memories WHERE id = ?", [memory_id]).fetchone()[0])
    con.execute("DELETE FROM memories WHERE id = ?", [memory_id])
    con.execute("DELETE FROM trash WHERE id = ?", [memory_id])
    for table in _MEMORY_TABLES:
        con.execute(f"DELETE FROM {table} WHERE memory_id = ?", [memory_id])
    trashed = c.get("trashed")
    marks = ", ".join("?" for _ in row)
    if trashed:
        con.execute(
            f"INSERT INTO trash VALUES ({marks}, ?, ?)",
            [*row, int(trashed["deleted_ms"]), str(trashed["reason"])],
        )
        if was_live:  # its vector follows it to the trash (a restore needs no re-encode)
            con.execute("DELETE FROM trash_vectors WHERE memory_id = ?", [memory_id])
            con.execute("INSERT INTO trash_vectors SELECT * FROM vectors WHERE memory_id = ?", [memory_id])
        con.execute("DELETE FROM vectors WHERE memory_id = ?", [memory_id])
    else:
        con.execute(f"INSERT INTO memories VALUES ({marks})", row)
        con.execute("DELETE FROM trash_vectors WHERE memory_id = ?", [memory_id])
    if c.get("pinned_ms") is not None:
        con.execute("INSERT INTO pins VALUES (?, ?)", [memory_id, int(c["pinned_ms"])])
    if c.get("scope"):
        con.execute("INSERT INTO scopes VALUES (?, ?)", [memory_id, str(c["scope"])])
    for seq, (start, end, reason, text) in enumerate(c.get("history") or [], 1):
        con.execute(
            "INSERT INTO versions VALUES (?, ?, ?, ?, ?, ?)", [memory_id, seq, text, start, end, reason]
        )


# -- merging two changed records -----------------------------------------------------------


def merge(a: Record | None, b: Record | None) -> Record | None:
    """Both sides changed one memory since the base (see the module's doc)."""
    if a is None or b is None:  # purged on one side: the other side's change survives
        return a or b
    a_gone, b_gone = bool(a.content.get("trashed")), bool(b.content.get("trashed"))
    if a_gone != b_gone:  # a delete against an edit: the edit survives
        winner, loser = (b, a) if a_gone else (a, b)
    else:
        winner, loser = sorted((a, b), key=lambda r: (r.changed_ms, r.sha), reverse=True)
    history = {tuple(h) for h in a.content.get("history") or []} | {
        tuple(h) for h in b.content.get("history") or []
    }
    texts = {h[3] for h in history}
    if loser.content["text"] != winner.content["text"] and loser.content["text"] not in texts:
        start = min(loser.content["created_ms"], loser.changed_ms)
        history.add((start, max(a.changed_ms, b.changed_ms), LOSER_REASON, loser.content["text"]))
    content = dict(winner.content)
    content["history"] = sorted(list(h) for h in history)
    return Record(content, max(a.changed_ms, b.changed_ms))
