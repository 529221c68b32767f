"""The DuckDB store: one file, one read-write owner, ordered migrations.

DuckDB lets only one process hold the file read-write ("Conflicting lock"). Until the
service owns it, each CLI process opens it for one command; a second process waits a few
seconds for the first and then refuses with the holder's PID. Inside one process every
use goes through one re-entrant lock, so a write during maintenance simply waits its turn.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from . import paths
from .errors import StoreBusy
from .migrations import MIGRATIONS, latest_version

DEFAULT_LOCK_WAIT_S = 5.0
_PID = re.compile(r"held in (?P<holder>.+?) \(PID (?P<pid>\d+)\)")


class Store:
    def __init__(self, connection: Any, path: Path, read_only: bool) -> None:
        self.con = connection
        self.path = path
        self.read_only = read_only
        self._lock = threading.RLock()

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        path: Path | None = None,
        *,
        read_only: bool = False,
        lock_wait_s: float | None = None,
    ) -> Store:
        """Open (creating and migrating when read-write) or raise StoreBusy after lock_wait_s."""
        path = path or paths.store_path()
        wait = default_lock_wait() if lock_wait_s is None else lock_wait_s
        if not read_only:
            path.parent.mkdir(parents=True, exist_ok=True)
        connection = _connect_with_retry(path, read_only, wait)
        store = cls(connection, path, read_only)
        if read_only:
            if store.schema_version() < latest_version():
                store.close()
                return cls.open(path, read_only=False, lock_wait_s=wait)
        else:
            store.migrate()
        return store

    def close(self) -> None:
        with self._lock:
            self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions ----------------------------------------------------------------------
    @contextmanager
    def transaction(self, lock_wait_s: float | None = None) -> Iterator[Any]:
        """One transaction under the process's store lock; StoreBusy if not had in lock_wait_s."""
        if not self._lock.acquire(timeout=-1 if lock_wait_s is None else lock_wait_s):
            raise StoreBusy(f"the store stayed busy for {lock_wait_s:g} s")
        try:
            self.con.execute("BEGIN TRANSACTION")
            try:
                yield self.con
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
            self.con.execute("COMMIT")
        finally:
            self._lock.release()

    @contextmanager
    def reading(self, lock_wait_s: float | None = None) -> Iterator[Any]:
        if not self._lock.acquire(timeout=-1 if lock_wait_s is None else lock_wait_s):
            raise StoreBusy(f"the store stayed busy for {lock_wait_s:g} s")
        try:
            yield self.con
        finally:
            self._lock.release()

    def query(
        self, sql: str, params: list[Any] | tuple[Any, ...] = (), lock_wait_s: float | None = None
    ) -> list[tuple[Any, ...]]:
        with self.reading(lock_wait_s) as con:
            return list(con.execute(sql, params).fetchall())

    # -- schema ----------------------------------------------------------------------------
    def schema_version(self) -> int:
        with self._lock:
            exists = one(
                self.con.execute(
                    "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_migrations'"
                )
            )
            if not exists or not exists[0]:
                return 0
            row = one(self.con.execute("SELECT coalesce(max(version), 0) FROM schema_migrations"))
            return int(row[0]) if row else 0

    def migrate(self) -> list[int]:
        applied: list[int] = []
        with self._lock:
            self.con.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                "version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_ms BIGINT NOT NULL)"
            )
            current = self.schema_version()
            for migration in MIGRATIONS:
                if migration.version <= current:
                    continue
                with self.transaction() as con:
                    for statement in migration.statements:
                        con.execute(statement)
                    con.execute(
                        "INSERT INTO schema_migrations VALUES (?, ?, ?)",
                        [migration.version, migration.name, int(time.time() * 1000)],
                    )
                applied.append(migration.version)
        return applied

    # -- small key/value state (maintenance day, import markers) ----------------------------
    def get_state(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM state WHERE key = ?", [key])
        return str(rows[0][0]) if rows else None

    def set_state(self, con: Any, key: str, value: str) -> None:
        con.execute(
            "INSERT INTO state VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [key, value],
        )

    def checkpoint(self) -> None:
        with self._lock:
            self.con.execute("CHECKPOINT")

    def compact(self) -> None:
        """Rewrite the file so deleted rows are physically gone.

        DuckDB leaves deleted strings in free blocks after DELETE and CHECKPOINT; purge must
        not, so the live data is copied into a fresh file that atomically replaces the old one.
        """
        import duckdb

        if self.read_only:
            raise RuntimeError("compact needs the store open read-write")
        with self._lock:
            fresh = self.path.with_name(f".{self.path.name}.compact")
            for leftover in (fresh, fresh.with_name(fresh.name + ".wal")):
                leftover.unlink(missing_ok=True)
            row = one(self.con.execute("SELECT current_database()"))
            name = str(row[0]) if row else "main"
            self.con.execute("ATTACH ? AS memevo_compact", [str(fresh)])
            try:
                self.con.execute(f'COPY FROM DATABASE "{name}" TO memevo_compact')
            finally:
                self.con.execute("DETACH memevo_compact")
            self.con.close()
            os.replace(fresh, self.path)
            self.path.with_name(self.path.name + ".wal").unlink(missing_ok=True)
            self.con = duckdb.connect(str(self.path))


def default_lock_wait() -> float:
    """How long a writer waits for another process's lock; MEMEVO_LOCK_WAIT_S overrides it."""
    try:
        return max(0.0, float(os.environ.get("MEMEVO_LOCK_WAIT_S", DEFAULT_LOCK_WAIT_S)))
    except ValueError:
        return DEFAULT_LOCK_WAIT_S


def _connect_with_retry(path: Path, read_only: bool, wait_s: float) -> Any:
    import duckdb  # lazy: the hooks and `memevo --help` never pay for it

    deadline = time.monotonic() + wait_s
    delay = 0.02
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as exc:
            message = str(exc)
            if "lock" not in message.lower():
                raise
            if time.monotonic() >= deadline:
                raise StoreBusy(_busy_message(message, wait_s)) from exc
            time.sleep(delay)
            delay = min(delay * 2, 0.2)


def _busy_message(duckdb_message: str, wait_s: float) -> str:
    match = _PID.search(duckdb_message)
    holder = f"process {match['pid']} ({match['holder']})" if match else "another process"
    return (
        f"the memory store is in use by {holder}; waited {wait_s:g} s; nothing was written. "
        "If the memevo service is running, stop it or retry in a moment."
    )


def open_existing(read_only: bool = True, lock_wait_s: float | None = None) -> Store | None:
    """Open the store if it exists; None when no memory was ever written (nothing to read)."""
    path = paths.store_path()
    if not path.exists():
        return None
    return Store.open(path, read_only=read_only, lock_wait_s=lock_wait_s)


def one(cursor: Any) -> tuple[Any, ...] | None:
    """The first row, reading the whole result: DuckDB refuses new work on a connection
    whose previous result was left half-read (as fetchone() leaves it)."""
    rows = cursor.fetchall()
    return tuple(rows[0]) if rows else None
