"""A repository's facts in the repository: `.memevo/facts.md`, reviewed and merged like code.

The file itself — its format, and reading it safely — is core/sharing/facts_file.py; the user's trust in
its content (review, trust, untrust) core/sharing/trust.py; writing it (`memevo share`)
core/sharing/write.py. This is the store's side of reading it.

Trust. What is read from a repository's file is injected into the user's prompts, and a
repository is text a stranger may have written: so a file is read only when its content (its
hash) is trusted for that repository (shared_trust) — the user was shown it. Otherwise nothing
is read and the file is recorded as waiting for review (shared_files.waiting), for `memevo
share`, the log and the tray to say so. Any change is such content, even one that only removes
items (removing a fact changes what the user relies on).

Folders. A repository's identity is what its git config claims (core/repos/identity.py), so one folder's
file never rewrites or retires facts read from another folder's file: shared_facts is keyed by
the folder too, and a fact another folder's mapping also holds is left to it (a change in this
file maps its item to another memory, a removal drops only this folder's mapping).

Reading (`apply`): a trusted file's facts are the repository's facts, created (marked as coming
from the repository: an origin row) or matched by id through shared_facts, which keeps the text
the file had when last read — the base against which both sides' changes are told apart: an
item whose text changed in the file replaces the local text (the local one kept in history); an
item gone from the file sends its fact to the trash; a local edit of a fact the file did not
change is left alone and offered back (`pending`), never written without being asked. The store
is read a fixed number of times per file, not per item, and the mapping written in one
statement per few hundred rows.

Labels: a fact whose text is one a file gave it (from_file, file_text) is injected under a
heading of its own, as the repository's and not the user's (`from_files`; core/service/texts.py).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Any

from ..clock import Clock
from ..memories import live as memories
from ..memories import origins
from ..memories import trash as memory_trash
from ..store.database import Store
from .facts_file import FILE, FileProblem, Item, Parsed, parse, path_in, read

__all__ = ["FILE", "FileProblem", "path_in"]  # what callers of reading name

ORIGIN = {"client": origins.REPOSITORY, "proposer": origins.SHARE}
_ROWS_PER_INSERT = 200


@dataclass(frozen=True)
class Mapped:
    memory_id: str
    file_text: str  # the item's text as the file had it when last read (or written)
    from_file: bool  # the memory's text came from a file (not from the user)


@dataclass(frozen=True)
class FileState:
    sha: str | None = None  # the content last read into the store
    problem: str | None = None
    waiting: str | None = None  # content not trusted yet: waiting for the user's review
    declined: str | None = None  # content the user declined or stopped trusting: not announced


# -- the store's rows ------------------------------------------------------------------------


def mapping(store: Store, repo: str, folder: str) -> dict[str, Mapped]:
    rows = store.query(
        "SELECT share_id, memory_id, file_text, from_file FROM shared_facts WHERE repo = ? AND folder = ?",
        [repo, folder],
    )
    return {str(r[0]): Mapped(str(r[1]), str(r[2]), bool(r[3])) for r in rows}


def write_mapping(con: Any, repo: str, folder: str, rows: dict[str, Mapped]) -> None:
    """This folder's rows, all of them, in the caller's transaction: a statement per
    _ROWS_PER_INSERT rows, not per row."""
    con.execute("DELETE FROM shared_facts WHERE repo = ? AND folder = ?", [repo, folder])
    items = list(rows.items())
    for start in range(0, len(items), _ROWS_PER_INSERT):
        chunk = items[start : start + _ROWS_PER_INSERT]
        values: list[Any] = []
        for share_id, m in chunk:
            values += [repo, folder, share_id, m.memory_id, m.file_text, m.from_file]
        marks = ", ".join("(?, ?, ?, ?, ?, ?)" for _ in chunk)
        con.execute(f"INSERT INTO shared_facts VALUES {marks}", values)


def _held_elsewhere(store: Store, repo: str, folder: str, ids: list[str]) -> set[str]:
    """Of these memories, those another folder's file (or another repository's) maps too."""
    if not ids:
        return set()
    rows = store.query(
        "SELECT DISTINCT memory_id FROM shared_facts WHERE list_contains(?, memory_id) "
        "AND NOT (repo = ? AND folder = ?)",
        [ids, repo, folder],
    )
    return {str(r[0]) for r in rows}


def file_state(store: Store, repo: str, folder: str) -> FileState:
    rows = store.query(
        "SELECT sha, problem, waiting, declined FROM shared_files WHERE repo = ? AND folder = ?",
        [repo, folder],
    )
    return FileState(*rows[0]) if rows else FileState()


def set_file_state(con: Any, repo: str, folder: str, state: FileState, now_ms: int) -> None:
    con.execute("DELETE FROM shared_files WHERE repo = ? AND folder = ?", [repo, folder])
    con.execute(
        "INSERT INTO shared_files VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            repo,
            folder,
            state.sha,
            now_ms,
            state.problem,
            state.waiting,
            now_ms if state.waiting else None,
            state.declined,
        ],
    )


def save_state(store: Store, repo: str, folder: str, state: FileState, clock: Clock) -> None:
    with store.transaction() as con:
        set_file_state(con, repo, folder, state, clock.now_ms())


# -- trust (recorded by core/sharing/trust.py) -------------------------------------------------


def trusted(store: Store, repo: str, sha: str) -> bool:
    """This content was trusted for this repository, here or in another of its folders."""
    return bool(store.query("SELECT 1 FROM shared_trust WHERE repo = ? AND sha = ? LIMIT 1", [repo, sha]))


# -- labels: which memories say what a repository's file says -----------------------------------

_labels: dict[str, dict[str, frozenset[str]]] = {}  # store path -> memory id -> its file texts
_labels_lock = threading.Lock()
_labels_generation = [0]  # bumped after every committed write of shared_facts


def forget_labels() -> None:
    """After the write's commit: a read that raced it is not kept (the generation moved)."""
    with _labels_lock:
        _labels.clear()
        _labels_generation[0] += 1


def from_files(store: Store) -> dict[str, frozenset[str]]:
    """Memory id -> the texts files gave it (from_file rows), kept in memory until a write of
    shared_facts (all of them are here): a prompt asks without a store read. A memory is the
    repository's while its text is one of these; edited here, it is the user's."""
    key = str(store.path)
    with _labels_lock:
        kept = _labels.get(key)
        generation = _labels_generation[0]
    if kept is not None:
        return kept
    found: dict[str, set[str]] = {}
    for memory_id, text in store.query("SELECT memory_id, file_text FROM shared_facts WHERE from_file"):
        found.setdefault(str(memory_id), set()).add(str(text))
    made = {memory_id: frozenset(texts) for memory_id, texts in found.items()}
    with _labels_lock:
        if generation == _labels_generation[0]:
            _labels[key] = made
    return made


def is_from_file(labels: dict[str, frozenset[str]], memory_id: str, text: str) -> bool:
    return text in labels.get(memory_id, ())


# -- reading ---------------------------------------------------------------------------------


def apply(store: Store, repo: str, folder: str, clock: Clock, force: bool = False) -> dict[str, Any]:
    """Read the repository's facts file into the store, if its content is trusted (see the
    module's doc); else record it as waiting for review (report["review"]; "new": the first
    time this content waits)."""
    report: dict[str, Any] = {"repo": repo, "folder": folder, "created": [], "updated": [], "deleted": []}
    report |= {"problem": None, "review": None}
    state = file_state(store, repo, folder)

    def refused(exc: FileProblem) -> dict[str, Any]:  # kept with the file's last good state; nothing read
        save_state(store, repo, folder, replace(state, problem=str(exc)), clock)
        report["problem"] = str(exc)
        return report

    try:
        got = read(folder)
    except FileProblem as exc:
        return refused(exc)
    if got is None:  # no file (or a branch without it): nothing is read, nothing retired
        if state.waiting or state.problem:
            save_state(store, repo, folder, replace(state, problem=None, waiting=None), clock)
        return report
    text, sha = got
    ok = trusted(store, repo, sha)
    if not force and ok and (state.sha, state.problem, state.waiting) == (sha, None, None):
        report["unchanged"] = True
        return report
    if not ok and (state.problem, state.waiting) == (None, sha):  # the same content, still waiting
        report["review"] = {"sha": sha, "new": False}
        return report
    try:
        parsed = parse(text)
    except FileProblem as exc:
        return refused(exc)
    if not ok:  # announced once per content (not at all when the user declined it)
        save_state(store, repo, folder, replace(state, problem=None, waiting=sha), clock)
        new = sha not in (state.waiting, state.declined)
        report["review"] = {"sha": sha, "new": new, "facts": len(parsed.items)}
        return report
    rows = _apply_items(store, repo, folder, clock, parsed, report)
    with store.transaction() as con:
        write_mapping(con, repo, folder, rows)
        set_file_state(con, repo, folder, FileState(sha), clock.now_ms())
    forget_labels()
    return report


_NONE = Mapped("", "\0", False)  # no mapping: every text is fresh


def _apply_items(
    store: Store, repo: str, folder: str, clock: Clock, parsed: Parsed, report: dict[str, Any]
) -> dict[str, Mapped]:
    """The file's items into the store; returns this folder's new mapping rows. The store is
    read once for all items (the mapping, the memories it names, the matching texts)."""
    known_rows = mapping(store, repo, folder)
    ids = sorted({m.memory_id for m in known_rows.values()})
    elsewhere = _held_elsewhere(store, repo, folder, ids)
    live = memories.find(store, ids)
    trashed = _in_trash(store, [i for i in ids if i not in live])
    fresh = [
        item.text for item in parsed.items if (known_rows.get(item.share_id) or _NONE).file_text != item.text
    ]
    same = _same_texts(store, repo, fresh)
    rows: dict[str, Mapped] = {}
    for item in parsed.items:
        known = known_rows.pop(item.share_id, None)
        if known is not None and known.file_text == item.text:  # unchanged in the file: a local edit stays
            rows[item.share_id] = known
            continue
        if known is not None and known.memory_id not in elsewhere:
            memory_id = known.memory_id
            current = live.get(memory_id)
            if current is None and memory_id in trashed:
                current = memory_trash.restore(store, memory_id)
            if current is not None:
                mine = current.text == item.text and not known.from_file  # the user already said it
                if current.text != item.text:
                    memories.replace_text(store, memory_id, item.text, clock)
                    _said_by_the_file(store, memory_id, folder)
                    origins.record(store, memory_id, clock.now_ms(), _origin(item, folder), "replace")
                    report["updated"].append(memory_id)
                rows[item.share_id] = Mapped(memory_id, item.text, not mine)
                continue
        rows[item.share_id] = _match_or_create(store, repo, folder, clock, item, same, report)
    still = {m.memory_id for m in rows.values()}
    gone = [
        m.memory_id for m in known_rows.values() if m.memory_id not in elsewhere and m.memory_id not in still
    ]
    gone = [i for i in dict.fromkeys(gone) if i in live]
    if gone:  # gone from the file: retired everywhere
        memories.delete(store, gone, clock, f"deleted from {FILE}")
        report["deleted"] += gone
    return rows


def _origin(item: Item, folder: str) -> dict[str, Any]:
    """The file (its whole path: which clone's) and the item's line, as the change's words."""
    return {**ORIGIN, "words": f"{path_in(folder)} line {item.first + 1}"}


def said_by_file(folder: str) -> str:
    """The reason a text replaced by a read of the file is kept with (`memevo history`, the
    panel's History dialog): not the user's edit."""
    return f"changed by the repository's shared facts file ({path_in(folder)})"


def _said_by_the_file(store: Store, memory_id: str, folder: str) -> None:
    """The version replace_text just kept says the file replaced it, not an edit of the user's."""
    with store.transaction() as con:
        con.execute(
            "UPDATE versions SET reason = ? WHERE memory_id = ? AND reason = 'replaced' "
            "AND seq = (SELECT max(seq) FROM versions WHERE memory_id = ?)",
            [said_by_file(folder), memory_id, memory_id],
        )


def _match_or_create(
    store: Store,
    repo: str,
    folder: str,
    clock: Clock,
    item: Item,
    same: dict[str, tuple[str, bool]],
    report: dict[str, Any],
) -> Mapped:
    """The memory an add of this text would repeat (as memories.same_text), else a new one.
    Its origin is recorded with it, so a read cut short still knows it came from a file."""
    found = same.get(item.text)
    if found is not None:
        return Mapped(found[0], item.text, found[1])
    memory = memories.create(store, "project", item.text, clock, repo)
    origins.record(store, memory.id, clock.now_ms(), _origin(item, folder), "create")
    report["created"].append(memory.id)
    same[item.text] = (memory.id, True)  # a second item of the same text is the same fact
    return Mapped(memory.id, item.text, True)


def _same_texts(store: Store, repo: str, texts: list[str]) -> dict[str, tuple[str, bool]]:
    """For each text, the project memory memories.same_text would find (global or of this
    repository; live before deprecated, then the most confident), and whether a repository's
    file made it: one query for all of them."""
    if not texts:
        return {}
    rows = store.query(
        "SELECT m.id, m.text, EXISTS (SELECT 1 FROM origins o WHERE o.memory_id = m.id AND o.client = ?) "
        "FROM memories m WHERE m.category = 'project' AND list_contains(?, m.text) "
        "AND m.id NOT IN (SELECT memory_id FROM scopes WHERE repo IS DISTINCT FROM ?) "
        "ORDER BY m.deprecated, m.confidence DESC, m.id",
        [origins.REPOSITORY, sorted(set(texts)), repo],
    )
    found: dict[str, tuple[str, bool]] = {}
    for memory_id, text, made in rows:
        found.setdefault(str(text), (str(memory_id), bool(made)))
    return found


def _in_trash(store: Store, ids: list[str]) -> set[str]:
    if not ids:
        return set()
    return {str(r[0]) for r in store.query("SELECT id FROM trash WHERE list_contains(?, id)", [ids])}
