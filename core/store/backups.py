"""Daily backups of the store, and the user-only folders repair and backups write to.

The daily maintenance copies the live store (`COPY FROM DATABASE`: a consistent, compact
DuckDB file, WAL included) to `backups/daily/memevo-<day>.duckdb`; the 7 newest days are
kept. `memevo repair` restores or merges from the newest one that reads cleanly, and purge
removes a memory's text from each of them (core/memories/purge.py).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .. import paths
from .database import Store, one

log = logging.getLogger("memevo.backups")

DAILY_KEEP = 7
_DAILY = re.compile(r"^memevo-(\d{4}-\d{2}-\d{2})\.duckdb$")


@dataclass(frozen=True)
class DailyBackup:
    day: str
    path: Path

    @property
    def taken_ms(self) -> int:
        return int(self.path.stat().st_mtime * 1000)


def daily_dir(data: Path | None = None) -> Path:
    """backups/daily of the data dir (or of the folder that holds a store opened elsewhere)."""
    return (data / "backups" if data is not None else paths.backups_dir()) / "daily"


def private_dir(path: Path) -> Path:
    """Make path, the folders made for it and a `backups` folder above it user-only (0700)."""
    made = [p for p in (path, *path.parents) if not p.exists()]
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    above = [p for p in (path.parent, path.parent.parent) if p.name == "backups"]
    for folder in {path, *made, *above}:
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o700)
    return path


def private_file(path: Path) -> Path:
    os.chmod(path, 0o600)
    return path


def daily_backups(data: Path | None = None) -> list[DailyBackup]:
    """Newest first."""
    folder = daily_dir(data)
    if not folder.is_dir():
        return []
    found = [DailyBackup(m[1], p) for p in folder.iterdir() if (m := _DAILY.match(p.name)) and p.is_file()]
    return sorted(found, key=lambda b: b.day, reverse=True)


def take_daily(store: Store, day: str, keep: int = DAILY_KEEP) -> Path:
    """Copy the store to backups/daily/memevo-<day>.duckdb (replacing that day's copy), then
    keep the `keep` newest days. Next to the store: its folder's backups/daily."""
    folder = private_dir(daily_dir(store.path.parent))
    target = folder / f"memevo-{day}.duckdb"
    partial = folder / f".memevo-{day}.duckdb.partial"
    _remove_with_wal(partial)
    try:
        with store.reading() as con:
            row = one(con.execute("SELECT current_database()"))
            name = str(row[0]) if row else "memevo"
            con.execute("ATTACH ? AS memevo_daily_backup", [str(partial)])
            try:
                con.execute(f'COPY FROM DATABASE "{name}" TO memevo_daily_backup')
            finally:
                con.execute("DETACH memevo_daily_backup")
        private_file(partial)
        os.replace(partial, target)
    finally:
        _remove_with_wal(partial)
    rotate(keep, store.path.parent)
    return target


def take_daily_quietly(store: Store, day: str) -> Path | None:
    """For the daily maintenance: a backup that fails (disk full…) is logged, never fatal."""
    try:
        return take_daily(store, day)
    except Exception:
        log.warning("could not take the daily backup of the store", exc_info=True)
        return None


def rotate(keep: int = DAILY_KEEP, data: Path | None = None) -> list[Path]:
    """Delete all but the `keep` newest daily backups; returns what was deleted."""
    removed = []
    for old in daily_backups(data)[keep:]:
        _remove_with_wal(old.path)
        removed.append(old.path)
    return removed


def _remove_with_wal(path: Path) -> None:
    for leftover in (path, path.with_name(path.name + ".wal")):
        leftover.unlink(missing_ok=True)
