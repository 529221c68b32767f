"""Purge: remove one memory's text from every place memevo keeps it, when the user asks.

The seed admits deleted text lingers (trash, index, backups); ours must not. The injection
log's prompt excerpts that hold the text lose it here; later parts of the product that keep
memory text register a scrubber in TEXT_HOLDERS so purge reaches them too.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import atomic, paths
from ..errors import NotFound
from ..store import applied
from ..store.database import Store, one
from . import trash as memory_trash

log = logging.getLogger("memevo.purge")
# The folders under backups/ where `memevo repair` keeps the damaged files (core/store/repair.py).
DAMAGED_PREFIX = "damaged-"
# (connection, memory id, text) -> rows removed; run inside purge's transaction.
TextHolder = Callable[[Any, str, str], int]
TEXT_HOLDERS: list[TextHolder] = []
# Files of the Node tool: we never edit them, but we tell the user when they still hold the text.
# (memories.html is memevo's own page, core/memories/html_page.py: purge rewrites it.)
LEGACY_FILES = (
    "rule.jsonl",
    "project.jsonl",
    "trash.jsonl",
    "embeddings.jsonl",
    "memories.md",
)


@dataclass
class PurgeReport:
    id: str
    text: str
    removed_rows: int
    scrubbed_files: list[str] = field(default_factory=list)
    legacy_files_with_text: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "removed_rows": self.removed_rows,
            "scrubbed_files": self.scrubbed_files,
            "legacy_files_with_text": self.legacy_files_with_text,
        }


def purge(store: Store, memory_id: str) -> PurgeReport:
    """The order keeps the promise however the process stops. The backups go first: a purge
    cut short there is simply run again (the memory is still in the store). Then the store's
    one transaction, which also commits the request's "applied" record (core/store/applied.py), so it
    records the compaction as pending and rewrites memevo's page; then the compaction, which
    the next read-write open of the store finishes if it was cut short (Store.open)."""
    with store.reading() as con:  # held throughout: no daily backup is taken meanwhile
        text = _find_text(con, memory_id)
        texts = _all_texts(con, memory_id, text)  # its superseded versions go too
        daily = _scrub_daily_backups(store.path.parent, memory_id, texts)
        others = [path for t in texts for path in _scrub_backups(memory_id, t)]
        with store.transaction() as con:
            removed = _remove(con, memory_id, texts)
            store.compact_later(con)
            _rewrite_page(store)
        store.compact()
    report = PurgeReport(memory_id, text, removed)
    report.scrubbed_files = list(dict.fromkeys(daily + others))
    report.legacy_files_with_text = list(dict.fromkeys(p for t in texts for p in _legacy_files_holding(t)))
    return report


def _rewrite_page(store: Store) -> None:
    """memories.html, memevo's own page of the live store, rendered inside the purge's
    transaction (it sees the memory gone): it lacks the text before the purge commits."""
    from . import html_page as snapshot

    live = paths.store_path()
    if snapshot.path().exists() and store.path.resolve() == live.resolve():
        snapshot.write(store)


def _all_texts(con: Any, memory_id: str, text: str) -> list[str]:
    rows = con.execute("SELECT text FROM versions WHERE memory_id = ? ORDER BY seq", [memory_id]).fetchall()
    return list(dict.fromkeys([text, *(str(r[0]) for r in rows)]))


def _remove(con: Any, memory_id: str, texts: list[str]) -> int:
    """Every row of this store that holds the memory or one of its texts goes (in a transaction)."""
    removed = 0
    for table in ("memories", "trash"):
        row = one(con.execute(f"SELECT count(*) FROM {table} WHERE id = ?", [memory_id]))
        removed += int(row[0]) if row else 0
        con.execute(f"DELETE FROM {table} WHERE id = ?", [memory_id])
    for table in memory_trash.MEMORY_ROW_TABLES:
        con.execute(f"DELETE FROM {table} WHERE memory_id = ?", [memory_id])
    # an injection's receipt names the memory and may quote its names (a stale reason): it goes
    con.execute("UPDATE injections SET why = NULL WHERE contains(why, ?)", [f'"{memory_id}"'])
    for text in texts:
        removed += _remove_text(con, memory_id, text)
    return removed


def _remove_text(con: Any, memory_id: str, text: str) -> int:
    removed = 0
    # learning jobs keep the user's words, proposals and results: any that hold the text go
    row = one(
        con.execute(
            "SELECT count(*) FROM side_jobs WHERE contains(concat(words, proposal, result), ?) "
            "OR contains(coalesce(proposal, ''), ?)",
            [text, f'"{memory_id}"'],
        )
    )
    removed += int(row[0]) if row else 0
    con.execute(
        "DELETE FROM side_jobs WHERE contains(concat(words, proposal, result), ?) OR contains(coalesce(proposal, ''), ?)",
        [text, f'"{memory_id}"'],
    )
    applied.scrub(con, memory_id, text)  # results kept for repeated write requests (bookkeeping)
    _scrub_excerpts(con, text)
    for holder in TEXT_HOLDERS:
        removed += holder(con, memory_id, text)
    return removed


# An excerpt cut inside the text ends with at least this much of its beginning to count as
# holding it: shorter, too many unrelated prompts would end the same way.
_CUT_MIN = 8


def _scrub_excerpts(con: Any, text: str) -> None:
    """The injection log's prompt excerpts (core/service/injection_log.py) that hold the text lose it;
    the rows stay. An excerpt is made one line and redacted (a secret in the text reads
    [已隐去] there), and may be cut (ending in "…") partway into the text: one that holds its
    first 40 characters, or ends with its beginning, goes too. Both spellings are looked for."""
    from ..privacy.redaction import redact_secrets
    from ..service.injection_log import one_line

    for needle in dict.fromkeys((one_line(text), one_line(redact_secrets(text)))):
        if not needle:
            continue
        con.execute(
            "UPDATE injections SET prompt = NULL WHERE contains(prompt, $t) OR contains(prompt, left($t, 40)) "
            "OR (ends_with(prompt, '…') AND EXISTS (SELECT 1 FROM range($lo, 201) AS r(k) WHERE "
            "k <= length($t) AND ends_with(rtrim(left(prompt, length(prompt) - 1)), rtrim(left($t, k)))))",
            {"t": needle, "lo": _CUT_MIN},
        )


def _find_text(con: Any, memory_id: str) -> str:
    for table in ("memories", "trash"):
        row = one(con.execute(f"SELECT text FROM {table} WHERE id = ?", [memory_id]))
        if row:
            return str(row[0])
    raise NotFound(f"no memory with id {memory_id} (neither live nor in the trash)")


def _scrub_daily_backups(data: Path, memory_id: str, texts: list[str]) -> list[str]:
    """The daily copies of the store (core/store/backups.py) lose the memory as the live store did,
    and are rewritten so no freed block keeps its text. One that cannot be opened has the
    text's bytes overwritten instead."""
    from ..store import backups

    scrubbed: list[str] = []
    for daily in backups.daily_backups(data):
        taken = daily.path.stat()  # when it was taken: repair reports it, so the rewrite keeps it
        try:
            with Store.open(daily.path, lock_wait_s=0) as copy:
                with copy.transaction() as con:
                    _remove(
                        con, memory_id, list(dict.fromkeys([*texts, *_all_texts(con, memory_id, texts[0])]))
                    )
                    copy.compact_later(con)
                copy.compact()
        except Exception:
            log.warning("could not open the daily backup %s; overwriting the text's bytes", daily.path)
            for text in texts:
                _overwrite(daily.path, memory_id, text)
                _overwrite(daily.path.with_name(daily.path.name + ".wal"), memory_id, text)
        backups.private_file(daily.path)
        os.utime(daily.path, ns=(taken.st_atime_ns, taken.st_mtime_ns))
        scrubbed.append(str(daily.path))
    return scrubbed


def _scrub_backups(memory_id: str, text: str) -> list[str]:
    """Backups memevo made (text files, one record a line) lose every line that names the memory.
    The damaged files `memevo repair` keeps (binary, and unreadable by design) have the text's
    bytes overwritten in place."""
    root = paths.backups_dir()
    if not root.is_dir():
        return []
    scrubbed: list[str] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        parts = path.relative_to(root).parts
        if parts[0] == "daily":
            continue  # _scrub_daily_backups
        damaged = parts[0].startswith(DAMAGED_PREFIX)
        if (_overwrite if damaged else _scrub_file)(path, memory_id, text):
            scrubbed.append(str(path))
    return scrubbed


def _overwrite(path: Path, memory_id: str, text: str) -> bool:
    """Zero every occurrence of the text (and the quoted id) where it lies, keeping offsets."""
    try:
        data = path.read_bytes()
    except OSError:
        return False
    changed = data
    for needle in (text.encode("utf-8"), f'"{memory_id}"'.encode()):
        changed = changed.replace(needle, b"\0" * len(needle)) if needle else changed
    if changed == data:
        return False
    atomic.write_bytes(path, changed, mode=0o600)
    return True


def _scrub_file(path: Path, memory_id: str, text: str) -> bool:
    data = path.read_bytes()
    needles = (text.encode("utf-8"), f'"{memory_id}"'.encode())
    if not any(n in data for n in needles):
        return False
    kept = [line for line in data.splitlines(keepends=True) if not any(n in line for n in needles)]
    atomic.write_bytes(path, b"".join(kept))
    return True


def _legacy_files_holding(text: str) -> list[str]:
    found = []
    for name in LEGACY_FILES:
        path = paths.data_dir() / name
        try:
            if text in path.read_text(encoding="utf-8", errors="replace"):
                found.append(str(path))
        except OSError:
            continue
    return found
