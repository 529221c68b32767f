"""Exactly-once writes: every write request carries an id, recorded with the change.

A caller that lost its connection after sending a write cannot know whether the service
committed it (kill -9 between COMMIT and the reply duplicated 4 of 40 CLI writes when the
caller then wrote again locally). So each write carries a `request_id`; the id is inserted in
the same transaction as the change (Store.recording), and the result is kept beside it. A
repeated id answers with the first result and changes nothing. Ids are kept at least 24 h
(the daily maintenance drops those older than two days).
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from .database import Store, one

KEEP_MS = 48 * 3_600_000
PARAM = "request_id"


def new_id() -> str:
    return uuid.uuid4().hex


def lookup(store: Store, request_id: str) -> dict[str, Any] | None:
    """The first answer to this id, or None when it was never applied. An id whose change
    committed but whose result was not saved (the process died in between) answers that it
    was applied, without the details."""
    rows = store.query("SELECT result FROM applied_requests WHERE id = ?", [request_id])
    if not rows:
        return None
    result = rows[0][0]
    if result is None:
        return {
            "already_applied": True,
            "note": "the service applied this change, then stopped before it could answer (its details were not kept)",
        }
    first: dict[str, Any] = json.loads(result)
    return first


def save_result(store: Store, request_id: str, now_ms: int, result: dict[str, Any]) -> None:
    """Keep the result for repeats. The id itself went in with the change; a write that
    committed no transaction of the store (a config key) is recorded here."""
    with store.transaction() as con:
        text = json.dumps(result, ensure_ascii=False)
        if one(con.execute("SELECT 1 FROM applied_requests WHERE id = ?", [request_id])):
            con.execute("UPDATE applied_requests SET result = ? WHERE id = ?", [text, request_id])
        else:
            con.execute("INSERT INTO applied_requests VALUES (?, ?, ?)", [request_id, now_ms, text])


def wait_for_result(store: Store, request_id: str, timeout_s: float = 10.0) -> dict[str, Any]:
    """The same id arrived twice at once: the loser waits for the winner's result."""
    deadline = time.monotonic() + timeout_s
    while True:
        rows = store.query("SELECT result FROM applied_requests WHERE id = ?", [request_id])
        if rows and (rows[0][0] is not None or time.monotonic() > deadline):
            return lookup(store, request_id) or {}
        time.sleep(0.05)


def cleanup(con: Any, now_ms: int) -> int:
    """Daily: forget ids older than KEEP_MS (inside maintenance's transaction)."""
    row = one(con.execute("SELECT count(*) FROM applied_requests WHERE ts_ms < ?", [now_ms - KEEP_MS]))
    con.execute("DELETE FROM applied_requests WHERE ts_ms < ?", [now_ms - KEEP_MS])
    return int(row[0]) if row else 0


def scrub(con: Any, memory_id: str, text: str) -> int:
    """Purge: a kept result may quote the memory's text or id."""
    where = "contains(coalesce(result, ''), ?) OR contains(coalesce(result, ''), ?)"
    row = one(con.execute(f"SELECT count(*) FROM applied_requests WHERE {where}", [text, f'"{memory_id}"']))
    con.execute(f"DELETE FROM applied_requests WHERE {where}", [text, f'"{memory_id}"'])
    return int(row[0]) if row else 0
