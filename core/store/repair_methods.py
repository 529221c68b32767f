"""The ways `memevo repair` tries, in order, to get a readable store back from a damaged one,
each on a copy in the scratch folder (core/store/repair.py runs them and installs the first that
works):
1. the file with its write-ahead log cut just before the damaged entry, or with the log set aside;
2. table by table, every row that can still be read, copied into a fresh file (memories and
   trash rows that could not be read come back from the newest daily backup when it has them);
3. the newest daily backup that reads cleanly;
4. an empty store.
Each says in the report what it kept and what may be lost.
"""

from __future__ import annotations

import contextlib
import logging
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import paths
from ..clock import iso
from ..errors import StoreDamaged
from . import backups
from .damage import check_size, damage_detail
from .database import Store, one, table_names
from .repair_report import USER_TABLES, RepairReport, TableReport

log = logging.getLogger("memevo.repair")

CHUNK_ROWS = 2048  # a damaged stretch costs the rows of its chunks, no more
ABOUT = {
    "vectors": "re-encoded from the memories' text at the next start",
    "trash_vectors": "re-encoded if restored",
    "side_jobs": "learning jobs, pending proposals among them",
    "hook_events": "bookkeeping: when each hook last ran",
    "injections": "bookkeeping: the injection log",
    "side_calls": "bookkeeping: side API calls per day",
    "applied_requests": "bookkeeping: ids of applied write requests",
}
_WAL_CUT = re.compile(r"write-ahead log .* is corrupt from byte (\d+) on")


# -- 1. the write-ahead log ----------------------------------------------------------------------
def from_wal(
    work: Path, path: Path, damage: str, report: RepairReport, checkpoint_ms: int, wal_ms: int | None
) -> Path | None:
    wal = wal_path(path)
    if not wal.exists():
        return None
    log_bytes = wal.read_bytes()
    window = _window(checkpoint_ms, wal_ms)
    cut = _WAL_CUT.search(damage)
    if cut and 0 < int(cut[1]) < len(log_bytes):
        candidate = _copy_variant(work / "wal-cut", path, log_bytes[: int(cut[1])])
        probe = probe_file(candidate)
        if probe.ok:
            report.method = "wal-cut"
            report.tables = {t: TableReport(n) for t, n in probe.counts.items()}
            report.lost.append(
                f"the transactions in the write-ahead log from its damaged entry on (byte {cut[1]} of "
                f"{len(log_bytes)}; changes {window})"
            )
            return _checkpointed(candidate)
    candidate = _copy_variant(work / "wal-set-aside", path, None)
    probe = probe_file(candidate)
    if not probe.ok:
        return None
    report.method = "wal-set-aside"
    report.tables = {t: TableReport(n) for t, n in probe.counts.items()}
    report.lost.append(f"the changes in the set-aside write-ahead log ({len(log_bytes)} bytes, {window})")
    return _checkpointed(candidate)


def _window(checkpoint_ms: int, wal_ms: int | None) -> str:
    since = f"made since {iso(checkpoint_ms)}"
    return f"{since}, the last at {iso(wal_ms)}" if wal_ms else since


# -- 2. row by row -------------------------------------------------------------------------------
def salvage(
    work: Path, path: Path, damage: str, report: RepairReport, checkpoint_ms: int, wal_ms: int | None
) -> Path | None:
    """Copy every readable row into a fresh file. None when the damaged file cannot be opened."""
    import duckdb

    source, set_aside = _openable_source(work, path, damage)
    if source is None:
        return None
    target = work / "salvaged" / path.name
    target.parent.mkdir(mode=0o700)
    Store.open(target, lock_wait_s=0).close()  # the current schema, migrated
    con = duckdb.connect(str(target))
    try:
        con.execute("ATTACH ? AS damaged (READ_ONLY)", [str(source)])
        wanted = [t for t in table_names(con) if t != "schema_migrations"]
        present = set(_attached_tables(con, "damaged"))
        tables = {t: _copy_table(con, t) if t in present else TableReport(0, 0) for t in wanted}
        con.execute("DETACH damaged")
        lost_user_rows = any((tables[t].expected or 0) > tables[t].saved for t in USER_TABLES)
        daily = _newest_readable_daily(work) if lost_user_rows else None
        if daily is not None:
            _merge_daily(con, daily[1], tables)
            report.backup = str(daily[0].path)
        _advance_sequences(con)
        con.execute("CHECKPOINT")
    finally:
        con.close()
    report.method = "salvaged"
    report.tables = tables
    if set_aside:
        report.lost.append(
            f"the changes in the set-aside write-ahead log {set_aside} ({_window(checkpoint_ms, wal_ms)})"
        )
    for name, table in tables.items():
        if table.from_backup and daily is not None and name != "state":
            report.lost.append(
                f"{name}: {table.from_backup} rows came back as they were in the daily backup of "
                f"{daily[0].day}; what changed in them since is lost"
            )
        missing = (table.expected or 0) - table.saved - table.from_backup
        if missing <= 0:
            continue
        what = ABOUT.get(name, "could not be read")
        if name in USER_TABLES:
            what = "could not be read" + (" and are not in the daily backup" if daily else "")
        report.lost.append(f"{name}: {missing} of {table.expected} rows ({what})")
    return target


def _openable_source(work: Path, path: Path, damage: str) -> tuple[Path | None, str]:
    """The damaged file in a copy DuckDB can open: with its whole log, with the log cut
    before its damaged entry, or without it. The second value says what was set aside."""
    import duckdb

    wal = wal_path(path)
    variants: list[tuple[str, bytes | None, str]] = []
    if wal.exists():
        whole = wal.read_bytes()
        variants.append(("source-with-log", whole, ""))
        if cut := _WAL_CUT.search(damage):
            variants.append(("source-with-cut-log", whole[: int(cut[1])], f"from byte {cut[1]} on"))
        variants.append(("source", None, "as a whole"))
    else:
        variants.append(("source", None, ""))
    for folder, log_bytes, set_aside in variants:
        candidate = _copy_variant(work / folder, path, log_bytes)
        try:
            duckdb.connect(str(candidate), read_only=True).close()
        except duckdb.Error:
            continue
        return candidate, set_aside
    return None, ""


def _copy_table(con: Any, table: str) -> TableReport:
    columns = ", ".join(f'"{c}"' for c in _common_columns(con, table))
    insert = f'INSERT INTO main."{table}" ({columns}) SELECT {columns} FROM damaged."{table}"'
    expected = _scalar(con, f'SELECT count(*) FROM damaged."{table}"')
    try:
        con.execute(insert)
        return TableReport(_scalar(con, f'SELECT count(*) FROM main."{table}"') or 0, expected)
    except Exception as exc:
        log.warning("table %s cannot be read whole (%s); copying it chunk by chunk", table, exc)
    # chunk by chunk: a damaged block costs the rows of the chunks it holds
    end = (_scalar(con, f'SELECT max(rowid) FROM damaged."{table}"') or (expected or 0) * 2) + 1
    for start in range(0, end, CHUNK_ROWS):
        with contextlib.suppress(Exception):
            con.execute(f"{insert} WHERE rowid >= ? AND rowid < ?", [start, start + CHUNK_ROWS])
    return TableReport(_scalar(con, f'SELECT count(*) FROM main."{table}"') or 0, expected)


def _common_columns(con: Any, table: str, source: str = "damaged") -> list[str]:
    def columns(database: str) -> list[str]:
        rows = con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE database_name = ? AND table_name = ? "
            "AND schema_name = 'main' ORDER BY column_index",
            [database, table],
        ).fetchall()
        return [str(r[0]) for r in rows]

    theirs = set(columns(source))
    return [c for c in columns(_current(con)) if c in theirs]


def _attached_tables(con: Any, database: str) -> list[str]:
    rows = con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = ? AND schema_name = 'main'", [database]
    ).fetchall()
    return [str(r[0]) for r in rows]


def _merge_daily(con: Any, daily: Path, tables: dict[str, TableReport]) -> None:
    """Memories and trash rows the damaged file lost, from the backup: only ids that are in
    neither table now (a memory deleted since the backup stays in the trash); state keys too."""
    con.execute("ATTACH ? AS daily (READ_ONLY)", [str(daily)])
    try:
        for table in ("memories", "trash"):
            columns = ", ".join(f'"{c}"' for c in _common_columns(con, table, "daily"))
            before = _scalar(con, f"SELECT count(*) FROM main.{table}") or 0
            con.execute(
                f"INSERT INTO main.{table} ({columns}) SELECT {columns} FROM daily.{table} "
                "WHERE id NOT IN (SELECT id FROM main.memories) AND id NOT IN (SELECT id FROM main.trash)"
            )
            tables[table].from_backup = (_scalar(con, f"SELECT count(*) FROM main.{table}") or 0) - before
        before = _scalar(con, "SELECT count(*) FROM main.state") or 0
        con.execute(
            "INSERT INTO main.state SELECT * FROM daily.state WHERE key NOT IN (SELECT key FROM main.state)"
        )
        tables["state"].from_backup = (_scalar(con, "SELECT count(*) FROM main.state") or 0) - before
    finally:
        con.execute("DETACH daily")


def _advance_sequences(con: Any) -> None:
    """The injection log's sequence continues after the rows that were copied."""
    top = _scalar(con, "SELECT max(seq) FROM main.injections")
    if top:
        con.execute("SELECT max(nextval('injection_seq')) FROM range(?)", [top])


# -- 3. the daily backup, 4. nothing -------------------------------------------------------------
def restore_daily(work: Path, report: RepairReport) -> Path | None:
    found = _newest_readable_daily(work)
    if found is None:
        return None
    daily, copy = found
    with Store.open(copy, lock_wait_s=0) as store:  # migrated, should it be from an older version
        counts = store.verify()
        store.checkpoint()
    report.outcome, report.method, report.backup = "restored", "daily-backup", str(daily.path)
    report.tables = {t: TableReport(n) for t, n in counts.items() if t != "schema_migrations"}
    report.lost.append(
        f"every change since the daily backup of {daily.day} (taken {iso(daily.taken_ms)}); "
        "the damaged file could not be opened"
    )
    return copy


def _newest_readable_daily(work: Path) -> tuple[backups.DailyBackup, Path] | None:
    """The newest daily backup that reads cleanly, copied into the scratch folder."""
    for daily in backups.daily_backups():
        folder = work / f"daily-{daily.day}"
        if folder.exists():
            return daily, folder / paths.store_path().name
        copy = _copy_variant(folder, daily.path, None)
        if probe_file(copy).ok:
            return daily, copy
        log.warning("the daily backup %s is damaged too", daily.path)
    return None


def empty_store(work: Path, report: RepairReport) -> Path:
    target = work / "empty" / paths.store_path().name
    target.parent.mkdir(mode=0o700)
    Store.open(target, lock_wait_s=0).close()
    report.outcome, report.method = "emptied", "empty"
    report.lost.append(
        "every memory: the store could not be read and there is no daily backup to restore "
        f"(the damaged files stay in {Path(report.kept[0]).parent})"
    )
    return target


# -- pieces --------------------------------------------------------------------------------------
@dataclass
class Probe:
    ok: bool
    detail: str | None = None
    counts: dict[str, int] = field(default_factory=dict)


def probe_file(path: Path) -> Probe:
    """Open read-only (the log replayed in memory, nothing written) and read every row."""
    import duckdb

    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        return Probe(False, damage_detail(str(exc), path) or str(exc))
    try:
        check_size(con, path)
        store = Store(con, path, read_only=True)
        counts = store.verify()
        return Probe(True, counts={t: n for t, n in counts.items() if t != "schema_migrations"})
    except StoreDamaged as exc:
        return Probe(False, exc.detail)
    except duckdb.Error as exc:
        return Probe(False, str(exc))
    finally:
        con.close()


def _copy_variant(folder: Path, path: Path, log_bytes: bytes | None) -> Path:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    copy = folder / paths.store_path().name
    shutil.copyfile(path, copy)
    if log_bytes is not None:
        wal_path(copy).write_bytes(log_bytes)
    return copy


def _checkpointed(candidate: Path) -> Path:
    """The log replayed into the file and the schema brought up to date, on a scratch copy."""
    with Store.open(candidate, lock_wait_s=0) as store:
        store.checkpoint()
    return candidate


def wal_path(path: Path) -> Path:
    return path.with_name(path.name + ".wal")


def _scalar(con: Any, sql: str) -> int | None:
    try:
        row = one(con.execute(sql))
    except Exception:
        return None
    return int(row[0]) if row and row[0] is not None else None


def _current(con: Any) -> str:
    row = one(con.execute("SELECT current_database()"))
    return str(row[0]) if row else "memevo"
