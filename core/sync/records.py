"""A person's memories as text records: one JSON file per memory, written,
read and merged here; core/sync/remote.py moves them through git.

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

A record from the remote is text a stranger may have written (anyone who can push to it): it
passes the checks a memory written here passes (check_content) or it is a conflict and the
memory here stays as it was. Its id must be one memevo gives (it names the file), its text
passes memories.check_text, its confidence and award lie within the confidence rules' range,
its history holds at most MAX_HISTORY texts, and no date lies further ahead than CLOCK_SKEW_MS:
a later-than-possible date would win every later merge and never decay. Such a record is
refused, not clamped: a clamped copy would differ from its file, so the base would never
settle, and no honest memevo writes one (a machine whose clock runs ahead has its records
taken once the others' clocks catch up). The same checks hold a local memory back from the
remote (`unsendable`), so no machine exports what every other one would refuse.

A memory whose file the remote deleted moves to the trash here (recoverable, `memevo
restore`), never out of the store: a deletion can come from a forged commit. Its trash entry
stays on this machine; only a restore (a change here) sends it back.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..errors import InvalidInput
from ..memories import confidence as conf
from ..privacy import redaction
from ..store.database import Store

SCHEMA = 1
LOSER_REASON = "sync: the other machine's text"
DELETED_REASON = "deleted on another machine (memevo sync)"
# The ids memevo gives (secrets.token_hex in core/memories/live.py) and the Node tool's ("m_rule1",
# kept by import-legacy): letters, digits, '_' and '-', so an id is always one plain file name.
ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
MAX_HISTORY = 200  # superseded texts a record carries; merge keeps the newest
MAX_REASON = 200
# A whole record at its largest: MAX_HISTORY texts and reasons at their limits in UTF-8.
MAX_RECORD_BYTES = 1 << 20
CLOCK_SKEW_MS = conf.DAY_MS  # how far ahead of this machine's clock a date may lie


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


_KINDS = {str: "a text", int: "a whole number", bool: "true or false"}


def valid_id(memory_id: str) -> bool:
    return ID.fullmatch(memory_id) is not None


def parse(text: str, now_ms: int) -> Record:
    """A record from its file, checked (check_content), or BrokenRecord saying what is wrong."""
    try:
        body = json.loads(text)
    except ValueError as exc:
        raise BrokenRecord(f"not JSON: {exc}") from None
    if not isinstance(body, dict) or body.get("schema") != SCHEMA or not isinstance(body.get("memory"), dict):
        raise BrokenRecord(f"not a memevo record of schema {SCHEMA}")
    changed = body.get("changed_ms")
    if not isinstance(changed, int) or isinstance(changed, bool):
        raise BrokenRecord("changed_ms is not a whole number")
    _check_date("changed_ms", changed, now_ms)
    return Record(check_content(body["memory"], now_ms), changed)


def check_content(content: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """The record's content as memevo would have written it (only its own fields), or
    BrokenRecord naming the first field that a memory written here could not hold."""
    for key, kind in _FIELDS.items():
        if not isinstance(content.get(key), kind) or (kind is int and isinstance(content.get(key), bool)):
            raise BrokenRecord(f"{key} missing or not {_KINDS[kind]}")
    if not valid_id(content["id"]):
        raise BrokenRecord("id is not a memevo memory id")
    if content["category"] not in ("rule", "project"):
        raise BrokenRecord("category is neither rule nor project")
    _check_text("text", content["text"], whole=True)
    if not 0 <= content["confidence"] <= conf.CAP:
        raise BrokenRecord(f"confidence is outside 0–{conf.CAP} hundredths")
    if not 0 <= content["award_pts"] <= int(conf.Tier.REINFORCE):
        raise BrokenRecord("award_pts is outside the day's awards")
    for key in ("created_ms", "last_seen_ms"):
        _check_date(key, content[key], now_ms)
    day = content.get("award_day")
    if day is not None and not _is_day(day):
        raise BrokenRecord("award_day is not a YYYY-MM-DD day")
    pinned = content.get("pinned_ms")
    if pinned is not None:
        if not _is_int(pinned):
            raise BrokenRecord("pinned_ms is not a number")
        _check_date("pinned_ms", pinned, now_ms)
    scope = content.get("scope")
    if scope is not None and (not isinstance(scope, str) or _unsafe(scope) or len(scope) > 4096):
        raise BrokenRecord("scope is not a repository's name")
    trashed = content.get("trashed")
    if trashed is not None:
        if not isinstance(trashed, dict) or not _is_int(trashed.get("deleted_ms")):
            raise BrokenRecord("trashed is not {deleted_ms, reason}")
        _check_date("trashed.deleted_ms", trashed["deleted_ms"], now_ms)
        _check_reason(trashed.get("reason"))
        trashed = {"deleted_ms": trashed["deleted_ms"], "reason": trashed["reason"]}
    history = content.get("history")
    if not isinstance(history, list) or len(history) > MAX_HISTORY:
        raise BrokenRecord(f"history is not a list of at most {MAX_HISTORY} earlier texts")
    for h in history:
        if not (isinstance(h, list) and len(h) == 4 and _is_int(h[0]) and _is_int(h[1])):
            raise BrokenRecord("history is not a list of [from_ms, to_ms, reason, text]")
        _check_date("a history date", h[0], now_ms)
        _check_date("a history date", h[1], now_ms)
        _check_reason(h[2])
        _check_text("an earlier text", h[3], whole=False)
    return {
        **{key: content[key] for key in _FIELDS},
        "award_day": day,
        "pinned_ms": pinned,
        "scope": scope,
        "trashed": trashed,
        "history": [list(h) for h in history],
    }


def unsendable(found: dict[str, dict[str, Any]], now_ms: int) -> dict[str, str]:
    """The local memories every other machine would refuse (see check_content), and why:
    they stay on this machine (a text imported long ago beyond today's limits, a date ahead)."""
    kept: dict[str, str] = {}
    for memory_id, content in found.items():
        try:
            check_content(content, now_ms)
        except BrokenRecord as exc:
            kept[memory_id] = str(exc)
    return kept


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_date(name: str, value: int, now_ms: int) -> None:
    if not 0 <= value <= now_ms + CLOCK_SKEW_MS:
        raise BrokenRecord(f"{name} lies in the future (or before 1970)")


def _is_day(value: Any) -> bool:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return False
    try:
        datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        return False
    return True


def _unsafe(text: str) -> bool:
    from ..memories.text import first_unsafe

    return first_unsafe(text) is not None


def _check_text(name: str, text: Any, whole: bool) -> None:
    """A current text passes memories.check_text unchanged (as a memory written here); an
    earlier text is kept whatever its length then was, within MAX_TEXT and without controls."""
    from ..memories.text import MAX_TEXT, check_text

    if not isinstance(text, str):
        raise BrokenRecord(f"{name} is not a text")
    if whole:
        try:
            cleaned = check_text(text)
        except InvalidInput as exc:
            raise BrokenRecord(f"{name}: {str(exc).removesuffix('; nothing written')}") from None
        if cleaned != text:
            raise BrokenRecord(f"{name} is not as memevo stores it (spaces around it)")
    elif not text.strip() or len(text) > MAX_TEXT or _unsafe(text):
        raise BrokenRecord(f"{name} is empty, longer than {MAX_TEXT} or holds control characters")


def _check_reason(reason: Any) -> None:
    if not isinstance(reason, str) or len(reason) > MAX_REASON or _unsafe(reason):
        raise BrokenRecord(f"a reason is not a text of at most {MAX_REASON} characters")


# -- the store's side ------------------------------------------------------------------------

_ROW = "id, category, text, confidence, created_ms, last_seen_ms, deprecated, award_day, award_pts"


def export_all(store: Store) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Every memory (live and trashed) as record content; and the ids held back because their
    text holds what looks like a secret (they stay on this machine)."""
    with store.reading() as con:
        every = _contents(con)
    found: dict[str, dict[str, Any]] = {}
    held: list[str] = []
    for memory_id, content in every.items():
        texts = [content["text"], *(h[3] for h in content["history"])]
        if any(redaction.redact_secrets(t) != t for t in texts):
            held.append(memory_id)
            continue
        found[memory_id] = content
    return found, sorted(held)


def _contents(con: Any, only: str | None = None) -> dict[str, dict[str, Any]]:
    """Record content of every memory, or of the one memory `only`, read in `con`."""
    by_id, by_memory, params = (
        ("", "", []) if only is None else (" WHERE id = ?", " WHERE memory_id = ?", [only])
    )
    rows: list[tuple[Any, tuple[int, str] | None]] = [
        (r, None) for r in con.execute(f"SELECT {_ROW} FROM memories{by_id}", params).fetchall()
    ]
    rows += [
        (r[:9], (int(r[9]), str(r[10])))
        for r in con.execute(f"SELECT {_ROW}, deleted_ms, reason FROM trash{by_id}", params).fetchall()
    ]
    pins = dict(con.execute(f"SELECT memory_id, pinned_ms FROM pins{by_memory}", params).fetchall())
    scopes = dict(con.execute(f"SELECT memory_id, repo FROM scopes{by_memory}", params).fetchall())
    history: dict[str, list[list[Any]]] = {}
    for memory_id, start, end, reason, text in con.execute(
        f"SELECT memory_id, valid_from_ms, valid_to_ms, reason, text FROM versions{by_memory} "
        "ORDER BY memory_id, seq",
        params,
    ).fetchall():
        history.setdefault(str(memory_id), []).append([int(start), int(end), str(reason), str(text)])
    found: dict[str, dict[str, Any]] = {}
    for row, trashed in rows:
        memory_id = str(row[0])
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
    return found


def bases(store: Store) -> dict[str, tuple[str, int]]:
    rows = store.query("SELECT memory_id, sha, changed_ms FROM sync_state")
    return {str(r[0]): (str(r[1]), int(r[2])) for r in rows}


def forget_bases(store: Store) -> None:
    """A new sync clone: the bases named the files of one that is gone. Kept, they would make
    every memory look deleted in the new (empty) tree; without them both sides are new and
    merge, nothing lost."""
    with store.transaction() as con:
        con.execute("DELETE FROM sync_state")


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


def write(store: Store, memory_id: str, record: Record | None, base: bool, now_ms: int) -> bool:
    """Make the store hold `record` for memory_id, in one transaction; with base, what it then
    holds is also the new base. None (the file is gone from the tree): a live memory moves to
    the trash (DELETED_REASON), a trashed one stays there, and the base becomes that trash
    entry, so it is neither sent back nor trashed again. True when the store changed."""
    with store.transaction() as con:
        if record is not None:
            _replace(con, record.content)
            settled: tuple[str, int] | None = (record.sha, record.changed_ms)
            changed = True
        else:
            content = _contents(con, memory_id).get(memory_id)
            changed = content is not None and content["trashed"] is None
            if content is not None and changed:
                content["trashed"] = {"deleted_ms": now_ms, "reason": DELETED_REASON}
                _replace(con, content)
            settled = (content_sha(content), now_ms) if content is not None else None
        if base:
            _set_base(con, memory_id, settled)
    return changed


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
    # bounded as every record is (check_content): the oldest superseded texts give way
    content["history"] = sorted(list(h) for h in history)[-MAX_HISTORY:]
    return Record(content, max(a.changed_ms, b.changed_ms))
