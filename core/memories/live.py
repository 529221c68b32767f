"""Memories: reading and changing the live memory rows (history and trash have their own modules)."""

from __future__ import annotations

import secrets
from dataclasses import asdict
from typing import Any

from ..clock import Clock
from ..errors import InvalidInput, NotFound
from ..repos import staleness
from ..store.database import Store, one
from . import confidence as conf
from .confidence import Standing, Tier
from .history import _supersede
from .row import _COLUMNS, _get_in, _insert
from .row import Memory as Memory
from .text import CATEGORIES, Category, check_category, first_unsafe
from .text import check_text as check_text
from .trash import _move_to_trash
from .trash import delete as delete
from .trash import trash_list as trash_list


# -- reading -----------------------------------------------------------------------------------
def get(store: Store, memory_id: str) -> Memory:
    rows = store.query(f"SELECT {_COLUMNS} FROM memories WHERE id = ?", [memory_id])
    if not rows:
        raise NotFound(f"no memory with id {memory_id}")
    return Memory.from_row(rows[0])


def find(store: Store, ids: list[str], lock_wait_s: float | None = None) -> dict[str, Memory]:
    if not ids:
        return {}
    sql = f"SELECT {_COLUMNS} FROM memories WHERE list_contains(?, id)"
    rows = store.query(sql, [list(set(ids))], lock_wait_s)
    return {row[0]: Memory.from_row(row) for row in rows}


def ranked(
    store: Store,
    category: Category,
    *,
    offset: int = 0,
    limit: int | None = 50,
    include_deprecated: bool = True,
) -> list[Memory]:
    """By confidence, ties most recently active first (the seed's order)."""
    where = "category = ?" + ("" if include_deprecated else " AND NOT deprecated")
    sql = f"SELECT {_COLUMNS} FROM memories WHERE {where} ORDER BY confidence DESC, last_seen_ms DESC, id"
    params: list[Any] = [category]
    if limit is not None:
        sql += " LIMIT ? OFFSET ?"
        params += [limit, offset]
    elif offset:
        sql += " OFFSET ?"
        params.append(offset)
    return [Memory.from_row(row) for row in store.query(sql, params)]


def session_rules(store: Store, limit: int, repo: str | None = None) -> list[Memory]:
    """The rules session start lists: pinned first, then by confidence; ties newest first by creation and
    id, never by last use, so the list (and the clients' prompt caches) stays put between
    sessions while the rules do."""
    sql = (
        f"SELECT {_COLUMNS} FROM memories WHERE category = 'rule' AND NOT deprecated "
        "AND id NOT IN (SELECT memory_id FROM scopes WHERE repo IS DISTINCT FROM ?) "
        "ORDER BY pinned DESC, confidence DESC, created_ms DESC, id LIMIT ?"
    )
    return [Memory.from_row(row) for row in store.query(sql, [repo, limit])]


def live(store: Store) -> list[Memory]:
    """Every live memory of both groups (a proposal is compared with each, once)."""
    return [
        m for category in CATEGORIES for m in ranked(store, category, limit=None, include_deprecated=False)
    ]


def same_text(store: Store, category: Category, text: str, scope: str | None = None) -> Memory | None:
    """The memory an add of this text would repeat: same category and text as create stores it,
    global or of the same repository; a live one before a deprecated one (trash is not looked at)."""
    sql = (
        f"SELECT {_COLUMNS} FROM memories WHERE category = ? AND text = ? "
        "AND id NOT IN (SELECT memory_id FROM scopes WHERE repo IS DISTINCT FROM ?) "
        "ORDER BY deprecated, confidence DESC, id LIMIT 1"
    )
    rows = store.query(sql, [category, check_text(text), scope])
    return Memory.from_row(rows[0]) if rows else None


def counts(store: Store) -> dict[str, dict[str, int]]:
    rows = store.query(
        "SELECT category, count(*) FILTER (WHERE NOT deprecated), count(*) FILTER (WHERE deprecated) "
        "FROM memories GROUP BY category"
    )
    result: dict[str, dict[str, int]] = {c: {"live": 0, "deprecated": 0} for c in CATEGORIES}
    for category, live, deprecated in rows:
        result[category] = {"live": int(live), "deprecated": int(deprecated)}
    return result


def confidence_histogram(store: Store) -> list[tuple[int, int]]:
    """Live memories per tenth of confidence: (bin 0-10, count), lowest bin first, empty bins left out."""
    rows = store.query(
        "SELECT least(floor(confidence / 10), 10)::INTEGER AS bin, count(*) FROM memories "
        "WHERE NOT deprecated GROUP BY bin ORDER BY bin"
    )
    return [(int(b), int(n)) for b, n in rows]


# -- writing -----------------------------------------------------------------------------------
def _new_id(con: Any) -> str:
    while True:
        candidate = secrets.token_hex(4)
        taken = one(
            con.execute(
                "SELECT 1 FROM memories WHERE id = ? UNION ALL SELECT 1 FROM trash WHERE id = ?",
                [candidate, candidate],
            )
        )
        if not taken:
            return candidate


def _save_standing(con: Any, memory_id: str, standing: Standing) -> None:
    con.execute(
        "UPDATE memories SET confidence = ?, last_seen_ms = ?, award_day = ?, award_pts = ?, deprecated = ? "
        "WHERE id = ?",
        [
            standing.confidence,
            standing.last_seen_ms,
            standing.award_day,
            standing.award_pts,
            standing.deprecated,
            memory_id,
        ],
    )


def create(store: Store, category: str, text: str, clock: Clock, scope: str | None = None) -> Memory:
    """A new memory always starts at 0.50; no caller may choose its confidence. scope: the
    repository it belongs to (None: global)."""
    cat = check_category(category)
    body = check_text(text)
    repo = check_scope(scope)
    now = clock.now_ms()
    standing = conf.new_standing(now, clock.local_day(now))
    with store.transaction() as con:
        memory = Memory(_new_id(con), cat, body, *_standing_tuple(standing), scope=repo)
        _insert(con, "memories", memory)
        if repo is not None:
            con.execute("INSERT INTO scopes VALUES (?, ?)", [memory.id, repo])
        staleness.note(con, memory.id, body)
    return memory


def check_scope(scope: str | None) -> str | None:
    """None or "global": global; else a repository: its identity (`host/org/x`, core/repos/identity.py)
    or an absolute folder path — a folder that is a repository is keyed by its identity."""
    from pathlib import PurePath

    from . import scopes

    if scope is None or scope == "global":
        return None
    if (
        not isinstance(scope, str)
        or first_unsafe(scope)
        or len(scope) > 4096
        or any(c.isspace() for c in scope.strip())
        or not (PurePath(scope).is_absolute() or "/" in scope.strip("/"))
    ):
        raise InvalidInput(
            f"scope must be global, a repository's remote (host/org/name) or its absolute path, not {str(scope)[:200]!r}"
        )
    if PurePath(scope).is_absolute():
        from pathlib import Path

        try:
            if (Path(scope) / ".git").exists():
                return scopes.repo_of(scope) or scope
        except OSError:
            pass
    return scope


def set_scope(store: Store, memory_id: str, scope: str | None) -> Memory:
    repo = check_scope(scope)
    with store.transaction() as con:
        _get_in(con, memory_id)
        con.execute("DELETE FROM scopes WHERE memory_id = ?", [memory_id])
        if repo is not None:
            con.execute("INSERT INTO scopes VALUES (?, ?)", [memory_id, repo])
        return _get_in(con, memory_id)


def _standing_tuple(s: Standing) -> tuple[int, int, int, bool, str | None, int]:
    # Memory's field order after id/category/text: confidence, created, last_seen, deprecated, day, pts.
    return (s.confidence, s.last_seen_ms, s.last_seen_ms, s.deprecated, s.award_day, s.award_pts)


def reinforce(store: Store, memory_id: str, clock: Clock) -> tuple[Memory, int]:
    """+0.10 under the daily cap; the way to revive a deprecated memory. Returns points added."""
    now = clock.now_ms()
    with store.transaction() as con:
        memory = _get_in(con, memory_id)
        award = conf.apply_award(memory.standing, Tier.REINFORCE, now, clock.local_day(now))
        if award.effective:
            _save_standing(con, memory_id, award.standing)
    return memory.with_standing(award.standing), award.gained


def award_recall(
    store: Store,
    ids: list[str],
    clock: Clock,
    lock_wait_s: float | None = None,
    known: dict[str, Memory] | None = None,
) -> dict[str, int]:
    """+0.05 per injected hit in one transaction. Writes nothing when nothing is due today.

    lock_wait_s bounds the wait for the store (recall gives up after 300 ms: StoreBusy).
    known: these memories as the caller just read them (the decision needs no second read;
    the award itself re-reads each one under the lock)."""
    now = clock.now_ms()
    today = clock.local_day(now)
    unique = list(dict.fromkeys(ids))
    read = (
        {i: known[i] for i in unique}
        if known is not None and all(i in known for i in unique)
        else find(store, unique, lock_wait_s)
    )
    # A stale memory is idle (its repository no longer confirms it): being shown earns nothing.
    due = [
        m
        for m in read.values()
        if not m.deprecated and m.stale is None and conf.points_due(m.standing, Tier.RECALL, today) > 0
    ]
    if not due:
        return {}
    gained: dict[str, int] = {}
    with store.transaction(lock_wait_s) as con:
        for stale in due:
            memory = _get_in(con, stale.id)  # re-read under the lock: another writer may have awarded
            if memory.deprecated:
                continue
            award = conf.apply_award(memory.standing, Tier.RECALL, now, today)
            if award.effective:
                _save_standing(con, memory.id, award.standing)
                gained[memory.id] = award.gained
    return gained


def merge_learned(store: Store, memory_id: str, text: str, clock: Clock) -> tuple[Memory, int]:
    """A merge decided by the side judge: new text, +0.10 under the daily cap.

    On a day whose award is already full the text is still replaced, without gain.
    """
    body = check_text(text)
    now = clock.now_ms()
    with store.transaction() as con:
        memory = _get_in(con, memory_id)
        award = conf.apply_award(memory.standing, Tier.REINFORCE, now, clock.local_day(now))
        _supersede(con, memory, body, now, "merged (learned)")
        con.execute("UPDATE memories SET text = ? WHERE id = ?", [body, memory_id])
        staleness.note(con, memory_id, body)
        if award.effective:
            _save_standing(con, memory_id, award.standing)
    merged = memory.with_standing(award.standing)
    return Memory(**(asdict(merged) | {"text": body})), award.gained


def replace_learned(store: Store, memory_id: str, text: str, clock: Clock) -> Memory:
    """A replace decided by the side judge (the user contradicted an old memory).

    Confidence stays the target's; it counts as an effective reinforce for last_seen only.
    """
    body = check_text(text)
    now = clock.now_ms()
    with store.transaction() as con:
        memory = _get_in(con, memory_id)
        _supersede(con, memory, body, now, "replaced (learned)")
        con.execute("UPDATE memories SET text = ?, last_seen_ms = ? WHERE id = ?", [body, now, memory_id])
        staleness.note(con, memory_id, body)
    return Memory(**(asdict(memory) | {"text": body, "last_seen_ms": now}))


def replace_text(store: Store, memory_id: str, text: str, clock: Clock | None = None) -> Memory:
    """A manual edit: not an award; confidence and last_seen stay as they were. The old text
    is kept as a superseded version."""
    from ..clock import SystemClock

    body = check_text(text)
    now = (clock or SystemClock()).now_ms()
    with store.transaction() as con:
        memory = _get_in(con, memory_id)
        _supersede(con, memory, body, now, "replaced")
        con.execute("UPDATE memories SET text = ? WHERE id = ?", [body, memory_id])
        staleness.note(con, memory_id, body)
    return Memory(**(asdict(memory) | {"text": body}))


def merge_manual(store: Store, keep_id: str, other_id: str, text: str, clock: Clock) -> Memory:
    """The user's merge: keep_id takes the text and the higher confidence; other_id goes to trash."""
    if keep_id == other_id:
        raise InvalidInput("cannot merge a memory with itself")
    body = check_text(text)
    with store.transaction() as con:
        keep = _get_in(con, keep_id)
        other = _get_in(con, other_id)
        best = max(keep.confidence, other.confidence)
        deprecated = best <= conf.DEPRECATED_AT_OR_BELOW and not keep.pinned
        _supersede(con, keep, body, clock.now_ms(), f"merged with {other_id}")
        con.execute(
            "UPDATE memories SET text = ?, confidence = ?, deprecated = ? WHERE id = ?",
            [body, best, deprecated, keep_id],
        )
        staleness.note(con, keep_id, body)
        _move_to_trash(con, other, clock.now_ms(), f"merged into {keep_id}")
    return Memory(**(asdict(keep) | {"text": body, "confidence": best, "deprecated": deprecated}))


def set_pinned(store: Store, memory_id: str, pinned: bool, clock: Clock) -> Memory:
    """Pin (never decays, never deprecated; a deprecated memory comes back) or unpin.

    Not an award: confidence and last_seen stay; reinforce and recall still raise it."""
    with store.transaction() as con:
        _get_in(con, memory_id)  # NotFound for an unknown id
        if pinned:
            con.execute(
                "INSERT INTO pins VALUES (?, ?) ON CONFLICT (memory_id) DO NOTHING",
                [memory_id, clock.now_ms()],
            )
            con.execute("UPDATE memories SET deprecated = FALSE WHERE id = ?", [memory_id])
        else:
            con.execute("DELETE FROM pins WHERE memory_id = ?", [memory_id])
        return _get_in(con, memory_id)


def move(store: Store, memory_id: str, category: str) -> Memory:
    target = check_category(category)
    with store.transaction() as con:
        memory = _get_in(con, memory_id)
        if memory.category != target:
            con.execute("UPDATE memories SET category = ? WHERE id = ?", [target, memory_id])
    return Memory(**(asdict(memory) | {"category": target}))
