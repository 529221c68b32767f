"""Memories and their trash: every change to the memory rows goes through here."""

from __future__ import annotations

import re
import secrets
import unicodedata
from dataclasses import asdict, dataclass
from typing import Any, Literal

from . import confidence as conf
from . import staleness
from .clock import Clock, iso
from .confidence import Standing, Tier
from .errors import InvalidInput, NotFound
from .store import Store, one

Category = Literal["rule", "project"]
CATEGORIES: tuple[Category, ...] = ("rule", "project")
MIN_TEXT, MAX_TEXT = 6, 400
TRASH_KEEP_DAYS = 30

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


@dataclass(frozen=True)
class Trashed:
    memory: Memory
    deleted_ms: int
    reason: str

    def as_json(self) -> dict[str, Any]:
        return self.memory.as_json() | {"deleted": iso(self.deleted_ms), "reason": self.reason}


# -- validation ------------------------------------------------------------------------------
def check_category(value: str) -> Category:
    if value == "rule":
        return "rule"
    if value == "project":
        return "project"
    raise InvalidInput(f"category must be rule or project, not {value!r}")


def text_width(text: str) -> int:
    """Display columns: a Chinese (wide) character counts as two, like a terminal shows it."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


# C0/C1 controls but newline and tab, DEL, bidi overrides and isolates, lone surrogates: they
# would ride along into every injected prompt and terminal (ESC sequences, U+202E reversal).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def first_unsafe(text: str) -> str | None:
    """A description of the first character a memory may not hold, or None."""
    found = _UNSAFE.search(text)
    return None if found is None else f"U+{ord(found.group()):04X} at position {found.start() + 1}"


# remove_unsafe must stay linear and cheap on a megabyte of hostile text (the side judge's input):
# a regex substitution pays per match, so 1 MB of "a\r" (half of it matches) took ten times the
# filter's budget. Real text holds a few distinct unsafe characters: each goes in one str.replace
# pass. Past a handful, the ASCII controls go with bytes.translate (in UTF-8 these bytes never
# occur inside a multi-byte character) and what is left with a substitution.
_UNSAFE_ASCII = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])
_UNSAFE_WIDE = re.compile("[\x80-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_REPLACE_PASSES = 8


def remove_unsafe(text: str) -> str:
    """For text that is not the user's own typing (learned, or stored before these rules)."""
    text = text.replace("\r\n", "\n")
    clean_up_to = 0
    for _ in range(_REPLACE_PASSES):
        found = _UNSAFE.search(text, clean_up_to)
        if found is None:
            return text
        clean_up_to = found.start()
        text = text.replace(found.group(), "")
    # surrogatepass: lone surrogates must survive the round trip to be removed below.
    encoded = text.encode("utf-8", "surrogatepass").translate(None, _UNSAFE_ASCII)
    return _UNSAFE_WIDE.sub("", encoded.decode("utf-8", "surrogatepass"))


def check_text(text: str) -> str:
    """6–400: at least 6 columns (「回答用中文」 is a whole rule in five wide characters), at most
    400 characters, and no control or direction-changing characters. Checked on every create,
    merge and replace, from every surface (CLI, panel, MCP, learned)."""
    text = text.replace("\r\n", "\n")
    unsafe = first_unsafe(text)
    if unsafe is not None:
        raise InvalidInput(
            f"memory text may not contain control or text-direction characters ({unsafe}); nothing written"
        )
    cleaned = text.strip()
    if text_width(cleaned) < MIN_TEXT or len(cleaned) > MAX_TEXT:
        raise InvalidInput(
            f"memory text must be {MIN_TEXT}–{MAX_TEXT} characters (a Chinese character counts as two "
            f"toward the minimum), got {len(cleaned)}; nothing written"
        )
    return cleaned


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


def trash_list(store: Store) -> list[Trashed]:
    rows = store.query(f"SELECT {_COLUMNS}, deleted_ms, reason FROM trash ORDER BY deleted_ms DESC, id")
    return [Trashed(Memory.from_row(row), int(row[12]), str(row[13])) for row in rows]


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


def _get_in(con: Any, memory_id: str) -> Memory:
    row = one(con.execute(f"SELECT {_COLUMNS} FROM memories WHERE id = ?", [memory_id]))
    if row is None:
        raise NotFound(f"no memory with id {memory_id}")
    return Memory.from_row(row)


# -- history: a replaced text is kept as a superseded version, never recalled ------------------
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
    found = find(store, [memory_id])
    if memory_id not in found and not versions:
        raise NotFound(f"no memory with id {memory_id}")
    return found.get(memory_id), versions


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
    """None or "global": global; else a repository: its identity (`host/org/x`, core/repos.py)
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
    from .clock import SystemClock

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


# Every table that keeps rows of a memory by memory_id: what a purge (core/purge.py) and the
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
    "shared_facts",  # its text as the repository's facts file had it (core/sharing.py)
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
