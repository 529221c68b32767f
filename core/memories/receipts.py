"""Receipts: for one session, what memevo injected and why (`memevo why SESSION`).

Read from what the store keeps: the injection log (each row's memories, the prompt's redacted
excerpt, and since migration 14 the receipt the hook wrote off its path: every injected
memory's gate signals, the ones that passed the gate but found no room, and whether each was
stale), the memories as they are now (or in the trash), what is known of their names
(core/repos/staleness.py), and what was learned from the session (core/memories/origins.py's rows).
"""

from __future__ import annotations

import json
from typing import Any

from ..clock import iso
from ..errors import InvalidInput
from ..ops.table import Context, operation
from ..repos import staleness
from ..store.database import Store
from . import live as memories

MIN_PREFIX = 4
MAX_ROWS = 500  # a session's injections shown at most (the newest)


def sessions_like(store: Store, wanted: str) -> list[str]:
    rows = store.query(
        "SELECT DISTINCT session FROM injections WHERE session = ? OR starts_with(session, ?) "
        "UNION SELECT DISTINCT session FROM origins WHERE session = ? OR starts_with(session, ?)",
        [wanted, wanted, wanted, wanted],
    )
    found = sorted(str(r[0]) for r in rows if r[0] is not None)
    return [wanted] if wanted in found else found


def receipts(store: Store, session: str) -> dict[str, Any]:
    rows = store.query(
        "SELECT ts_ms, client, event, prompt_id, memory_ids, chars, prompt, why FROM injections "
        "WHERE session = ? ORDER BY seq DESC LIMIT ?",
        [session, MAX_ROWS],
    )
    rows.reverse()  # oldest first: the session as it went
    learned = store.query(
        "SELECT ts_ms, memory_id, client, proposer, action FROM origins WHERE session = ? ORDER BY ts_ms",
        [session],
    )
    receipts_of = [_parsed(r[7]) for r in rows]
    ids = sorted(
        {i for r in rows for i in r[4]}
        | {i for w in receipts_of for i in w.get("left_out", [])}
        | {str(r[1]) for r in learned}
    )
    live = memories.find(store, ids)
    trashed = {t.memory.id: t.memory for t in memories.trash_list(store) if t.memory.id in set(ids)}
    names = staleness.state(store, ids)

    def memory(memory_id: str, signals: dict[str, Any] | None) -> dict[str, Any]:
        now = live.get(memory_id) or trashed.get(memory_id)
        known = names.get(memory_id)
        return {
            "id": memory_id,
            "where": "live" if memory_id in live else "trash" if memory_id in trashed else "gone",
            "category": now.category if now else None,
            "text": now.text if now else None,
            "scope": (now.scope or "global") if now else None,
            "why": signals,  # None: listed at session start (pinned first, then by confidence)
            "anchors": None
            if known is None
            else {
                "names": known["anchors"],
                "checked": iso(known["checked_ms"]) if known["checked_ms"] is not None else None,
                "stale": known["stale"],
            },
        }

    injections = []
    for (ts, client, event, prompt_id, memory_ids, chars, prompt, _), why in zip(
        rows, receipts_of, strict=True
    ):
        signals = why.get("memories", {})
        injections.append(
            {
                "ts": iso(ts),
                "client": client,
                "event": event,
                "prompt_id": prompt_id,
                "prompt": prompt,
                "chars": chars,
                "memories": [memory(i, signals.get(i)) for i in memory_ids],
                "left_out": [memory(i, None) for i in why.get("left_out", [])],
                "other_repositories": why.get("other_repositories"),
                "receipt": bool(why),  # False: logged before receipts were kept
            }
        )
    return {
        "session": session,
        "injections": injections,
        "learned": [
            {"ts": iso(ts), "client": client, "proposer": proposer, "action": action, **memory(str(i), None)}
            for ts, i, client, proposer, action in learned
        ],
    }


def _parsed(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    try:
        value = json.loads(str(raw))
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


@operation("why")
def op_why(ctx: Context, session: str) -> dict[str, Any]:
    """What was injected into a session and why; a unique prefix (4 characters or more) names it."""
    wanted = str(session).strip()
    if len(wanted) < MIN_PREFIX:
        raise InvalidInput(f"name a session by its id (at least its first {MIN_PREFIX} characters)")
    store = ctx.reader()
    found = sessions_like(store, wanted) if store is not None else []
    if not found:
        raise InvalidInput(
            f"nothing was injected into or learned from a session {wanted} (see `memevo injections`)"
        )
    if len(found) > 1:
        raise InvalidInput(
            f"{wanted} names {len(found)} sessions ({', '.join(found[:5])}); give more of its id"
        )
    assert store is not None
    return receipts(store, found[0])
