"""Side jobs: one per sessionID, created exclusively, kept 24 h after they end (tombstones).

Statuses: running -> nothing (not worth remembering) | ready (a proposal awaits the user) |
applied (written without confirmation) | failed; ready -> shown -> applying -> done | voided |
zombie. `applying` is held by the one answer being written (claim), so two answers arriving
together (the dialog, a terminal, the user's reply in the chat) write once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..store.database import Store, one

TOMBSTONE_MS = 24 * 3_600_000
ZOMBIE = "daily-zombie-cleanup"
OPEN = ("running", "ready", "shown")
# Store.watch topic: each change to a job is announced (the tray shows a ready proposal at once).
TOPIC = "side_jobs"
_COLUMNS = (
    "id, client, session, prompt_id, created_ms, updated_ms, status, words, proposal, result, error, "
    "shown_ms, resolved_ms, repo"
)


@dataclass
class Job:
    id: str
    client: str
    session: str
    prompt_id: str | None
    created_ms: int
    updated_ms: int
    status: str
    words: str | None
    proposal: dict[str, Any] | None
    result: dict[str, Any] | None
    error: str | None
    shown_ms: int | None
    resolved_ms: int | None
    repo: str | None = None  # the repository (or folder) the words were said in; None: none known

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Job:
        values = list(row)
        values[8] = json.loads(values[8]) if values[8] else None
        values[9] = json.loads(values[9]) if values[9] else None
        return cls(*values)

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def create(
    store: Store,
    job_id: str,
    client: str,
    session: str,
    prompt_id: str | None,
    words: str | None,
    now_ms: int,
    repo: str | None = None,
    proposal: dict[str, Any] | None = None,
) -> bool:
    """Exclusive creation: False when this sessionID already exists (a retried hook). A job
    made with its proposal (memevo's consolidation) is waiting for the user at once."""
    status = "running" if proposal is None else "ready"
    made = None if proposal is None else json.dumps(proposal, ensure_ascii=False)
    with store.transaction() as con:
        if one(con.execute("SELECT 1 FROM side_jobs WHERE id = ?", [job_id])):
            return False
        con.execute(
            "INSERT INTO side_jobs (id, client, session, prompt_id, created_ms, updated_ms, status, words, "
            "proposal, repo) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [job_id, client, session, prompt_id, now_ms, now_ms, status, words, made, repo],
        )
    store.changed(TOPIC)
    return True


CLIENT_ORIGIN = "json_extract_string(proposal, '$.origin') = 'client'"


def create_proposed(
    store: Store,
    job_id: str,
    client: str,
    session: str,
    words: str,
    now_ms: int,
    proposal: dict[str, Any],
    status: str,
    caps: tuple[int, int],
    repo: str | None = None,
) -> str:
    """A proposal from a client's model, created exclusively and within its caps in one
    transaction (so concurrent calls cannot overrun them): "created", "exists" (the same
    proposal was made before in this session), "session" or "day" (that cap is reached).
    caps: (per session, per day); the day is the proposal's own `day`."""
    per_session, per_day = caps
    with store.transaction() as con:
        if one(con.execute("SELECT 1 FROM side_jobs WHERE id = ?", [job_id])):
            return "exists"
        row = one(
            con.execute(
                f"SELECT count(*) FILTER (WHERE client = ? AND session = ?), "
                f"count(*) FILTER (WHERE json_extract_string(proposal, '$.day') = ?) "
                f"FROM side_jobs WHERE {CLIENT_ORIGIN}",
                [client, session, proposal["day"]],
            )
        )
        in_session, today = (int(row[0]), int(row[1])) if row else (0, 0)
        if in_session >= per_session:
            return "session"
        if today >= per_day:
            return "day"
        con.execute(
            "INSERT INTO side_jobs (id, client, session, prompt_id, created_ms, updated_ms, status, words, "
            "proposal, repo, shown_ms) VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)",
            [
                job_id,
                client,
                session,
                now_ms,
                now_ms,
                status,
                words,
                json.dumps(proposal, ensure_ascii=False),
                repo,
                now_ms if status == "shown" else None,  # asked in the tool's answer, now
            ],
        )
    store.changed(TOPIC)
    return "created"


def proposals_today(store: Store, day: str) -> int:
    """Proposals the clients' models made today (`memevo service`, the panel)."""
    rows = store.query(
        f"SELECT count(*) FROM side_jobs WHERE {CLIENT_ORIGIN} AND json_extract_string(proposal, '$.day') = ?",
        [day],
    )
    return int(rows[0][0]) if rows else 0


def get(store: Store, job_id: str) -> Job | None:
    rows = store.query(f"SELECT {_COLUMNS} FROM side_jobs WHERE id = ?", [job_id])
    return Job.from_row(rows[0]) if rows else None


def update(store: Store, job_id: str, now_ms: int, **fields: Any) -> None:
    sets: list[str] = ["updated_ms = ?"]
    values: list[Any] = [now_ms]
    for name, value in fields.items():
        sets.append(f"{name} = ?")
        values.append(json.dumps(value, ensure_ascii=False) if name in ("proposal", "result") else value)
    with store.transaction() as con:
        con.execute(f"UPDATE side_jobs SET {', '.join(sets)} WHERE id = ?", [*values, job_id])
    store.changed(TOPIC)


def claim(store: Store, job_id: str) -> str | None:
    """Exactly once: the job turns `applying` only from waiting (ready or shown), in one
    transaction, so of two answers arriving together the second finds it taken. Returns the
    status it had (for `release`), or None when it was not waiting."""
    with store.transaction() as con:
        row = one(con.execute("SELECT status FROM side_jobs WHERE id = ?", [job_id]))
        if row is None or row[0] not in ("ready", "shown"):
            return None
        con.execute("UPDATE side_jobs SET status = 'applying' WHERE id = ?", [job_id])
    store.changed(TOPIC)
    return str(row[0])


def release(store: Store, job_id: str, status: str) -> None:
    """A claimed job whose answer could not be written waits again as it was."""
    with store.transaction() as con:
        con.execute("UPDATE side_jobs SET status = ? WHERE id = ? AND status = 'applying'", [status, job_id])
    store.changed(TOPIC)


def record_answer(store: Store, job_id: str, now_ms: int, answer: dict[str, Any]) -> bool:
    """The user's own answer to an in-chat question, kept on the waiting job's proposal
    (`answered`): what memory_resolve from the model may then carry out. False when the job no
    longer waits."""
    with store.transaction() as con:
        row = one(con.execute("SELECT status, proposal FROM side_jobs WHERE id = ?", [job_id]))
        if row is None or row[0] not in ("ready", "shown") or not row[1]:
            return False
        proposal = json.loads(row[1]) | {"answered": answer}
        con.execute(
            "UPDATE side_jobs SET proposal = ?, updated_ms = ? WHERE id = ?",
            [json.dumps(proposal, ensure_ascii=False), now_ms, job_id],
        )
    store.changed(TOPIC)
    return True


def of_session(store: Store, client: str, session: str, statuses: tuple[str, ...]) -> list[Job]:
    rows = store.query(
        f"SELECT {_COLUMNS} FROM side_jobs WHERE client = ? AND session = ? AND list_contains(?, status) "
        "ORDER BY created_ms",
        [client, session, list(statuses)],
    )
    return [Job.from_row(r) for r in rows]


def pending(store: Store) -> list[Job]:
    rows = store.query(
        f"SELECT {_COLUMNS} FROM side_jobs WHERE status IN ('ready', 'shown') ORDER BY created_ms"
    )
    return [Job.from_row(r) for r in rows]


def unannounced(store: Store) -> list[Job]:
    """Jobs that ended without the user's confirmation (applied, or refused by the judge) and
    whose result has not been shown yet: the tray notifies each once, then marks it done."""
    rows = store.query(f"SELECT {_COLUMNS} FROM side_jobs WHERE status IN ('applied', 'refused')")
    return [Job.from_row(r) for r in rows]


def recent_errors(store: Store, limit: int = 5) -> list[str]:
    """The errors of the latest failed jobs, newest first."""
    rows = store.query(
        "SELECT error FROM side_jobs WHERE status = 'failed' AND error IS NOT NULL ORDER BY updated_ms DESC LIMIT ?",
        [limit],
    )
    return [str(r[0]) for r in rows]


def errors_since(store: Store, since_ms: int) -> list[str]:
    """The distinct errors of jobs that failed at or after `since_ms`."""
    rows = store.query(
        "SELECT DISTINCT error FROM side_jobs WHERE status = 'failed' AND error IS NOT NULL AND updated_ms >= ?",
        [since_ms],
    )
    return [str(r[0]) for r in rows]


def count_call(store: Store, day: str, limit: int) -> bool:
    """Count one side API call for today; False (and no count) once the daily limit is reached."""
    with store.transaction() as con:
        row = one(con.execute("SELECT count FROM side_calls WHERE day = ?", [day]))
        used = int(row[0]) if row else 0
        if used >= limit:
            return False
        con.execute(
            "INSERT INTO side_calls VALUES (?, 1) ON CONFLICT (day) DO UPDATE SET count = side_calls.count + 1",
            [day],
        )
    return True


def calls_today(store: Store, day: str) -> int:
    rows = store.query("SELECT count FROM side_calls WHERE day = ?", [day])
    return int(rows[0][0]) if rows else 0


def daily_cleanup(con: Any, now_ms: int, today: str, local_day: Any) -> dict[str, int]:
    """Shown before today and never resolved -> zombie (daily-zombie-cleanup); never shown and
    from before today -> kept and counted; past 30 days -> dropped; ended jobs past the 24 h
    tombstone -> dropped."""
    rows = con.execute(
        "SELECT id, status, shown_ms, created_ms FROM side_jobs WHERE status IN ('ready', 'shown')"
    ).fetchall()
    zombies = [i for i, status, shown, _ in rows if status == "shown" and shown and local_day(shown) < today]
    unshown = [i for i, status, _, created in rows if status == "ready" and local_day(created) < today]
    if zombies:
        con.execute(
            "UPDATE side_jobs SET status = 'zombie', error = ?, updated_ms = ? WHERE list_contains(?, id)",
            [ZOMBIE, now_ms, zombies],
        )
    con.execute("DELETE FROM side_jobs WHERE status = 'ready' AND created_ms < ?", [now_ms - 30 * 86_400_000])
    con.execute(
        "DELETE FROM side_jobs WHERE NOT list_contains(?, status) AND updated_ms < ?",
        [list(OPEN), now_ms - TOMBSTONE_MS],
    )
    return {"zombies": len(zombies), "never_shown": len(unshown)}


def void_about(store: Store, ids: list[str]) -> None:
    """A pending proposal that points at a memory the user just changed is void."""
    if not ids:
        return
    with store.transaction() as con:
        con.execute(
            "UPDATE side_jobs SET status = 'voided', error = 'its target memory was changed' "
            "WHERE status IN ('ready', 'shown') AND list_contains(?, json_extract_string(proposal, '$.target'))",
            [ids],
        )
    store.changed(TOPIC)


def drop_pending(store: Store) -> int:
    """Uninstall: remove the analyses still running or waiting for the user; how many."""
    where = "FROM side_jobs WHERE status IN ('running', 'ready', 'shown')"
    with store.transaction() as con:
        row = con.execute(f"SELECT count(*) {where}").fetchone()
        con.execute(f"DELETE {where}")
    return int(row[0]) if row else 0
