"""The DuckDB store: one file, one read-write owner, ordered migrations.

DuckDB lets only one process hold the file read-write ("Conflicting lock"). Until the
service owns it, each CLI process opens it for one command; a second process waits a few
seconds for the first and then refuses with the holder's PID. Inside one process every
use goes through one re-entrant lock, so a write during maintenance simply waits its turn.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .. import envvars, paths
from ..errors import StoreBusy, StoreDamaged
from .damage import DamagedConnection, check_size, damage_detail
from .migrations import MIGRATIONS, latest_version

log = logging.getLogger("memevo.store")
# Long enough for a burst of commands writing without a service (docs/data.md, "One owner, any
# start order").
DEFAULT_LOCK_WAIT_S = 30.0
_PID = re.compile(r"held in (?P<holder>.+?) \(PID (?P<pid>\d+)\)")
# Read whole at every open (quick next to the open itself), so a command meets damage to what the
# user sees as StoreDamaged; the service reads every table once more when it starts.
OPEN_CHECKED = ("memories", "trash", "state")
# Set (in `state`) in the transaction that deletes text which must leave the file, cleared in the
# compacted copy itself: a compaction cut short is done again by the next read-write open.
COMPACT_PENDING = "store.compact_pending"
# reopen_if_worn: a service runs a few leaking queries a write, so after this many uses a
# reopen gives back what they kept (`memevo bench --json`: soak_growth_pct); rarely enough that
# its pause is not felt.
REOPEN_AFTER_USES = 500


class Store:
    def __init__(self, connection: Any, path: Path, read_only: bool) -> None:
        self.con = connection
        self.path = path
        self.read_only = read_only
        self._lock = StoreLock()
        self._local = threading.local()  # the write request whose id the next commit records
        self._watchers: dict[str, list[Callable[[], None]]] = {}
        self._uses = 0  # reads and transactions so far, for reopen_if_worn
        self._uses_at_open = 0

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
        try:
            check_size(connection, path)
        except StoreDamaged:
            connection.close()
            raise
        store = cls(connection, path, read_only)
        if read_only:
            if store.schema_version() < latest_version():
                store.close()
                return cls.open(path, read_only=False, lock_wait_s=wait)
        else:
            store.migrate()
            store.rekey_scopes()
        try:
            store.verify(OPEN_CHECKED)
        except StoreDamaged:
            store.close()
            raise
        if not read_only:
            try:
                store.finish_compaction()
            except Exception:  # disk full…: still pending, tried again at the next open
                log.warning("could not finish the compaction of %s", path, exc_info=True)
        return store

    @classmethod
    def unusable(cls, path: Path, damage: StoreDamaged) -> Store:
        """A store that could not be opened: every use raises `damage` (the service keeps
        running with it, so the tray and the commands can say what is wrong)."""
        return cls(DamagedConnection(damage), path, read_only=True)

    def give_up(self, damage: StoreDamaged) -> None:
        """Found damaged after it opened (a block `verify` could not read): from now on every
        use raises `damage`, as for a store that could not be opened, and the file is let go."""
        with self._lock:
            try:
                self.con.close()
            except Exception:  # a damaged file may fail its last checkpoint too: it is left as it is
                log.warning("closing the damaged store failed", exc_info=True)
            self.con = DamagedConnection(damage)

    def verify(self, only: tuple[str, ...] | None = None) -> dict[str, int]:
        """Read every row of every table (or of `only`) once; rows per table. A damaged block
        shows now as StoreDamaged, rather than in the middle of a later request."""
        counts: dict[str, int] = {}
        with self._lock:
            tables = [t for t in table_names(self.con) if only is None or t in only]
        for table in tables:
            try:
                with self._lock:  # table by table: requests wait for one table's scan at most
                    row = one(self.con.execute(f'SELECT count(*), max(hash(COLUMNS(*))) FROM "{table}"'))
            except Exception as exc:
                detail = damage_detail(str(exc), self.path)
                if detail is None:
                    raise
                raise StoreDamaged(f"table {table}: {detail}") from exc
            counts[table] = int(row[0]) if row else 0
        return counts

    def close(self) -> None:
        self._lock.forbidden = None  # closing at the end is the one use any thread may make
        with self._lock:
            self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- who wants to know about a change, and which thread must never wait here -------------
    def watch(self, topic: str, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback` (on the writing thread) after each change announced on `topic`;
        returns the function that stops it. The tray learns of a new proposal this way instead
        of asking the store every second."""
        self._watchers.setdefault(topic, []).append(callback)

        def unwatch() -> None:
            with contextlib.suppress(ValueError):
                self._watchers.get(topic, []).remove(callback)

        return unwatch

    def changed(self, topic: str) -> None:
        """Announce a committed change: a watcher's failure is logged, never the writer's."""
        for callback in list(self._watchers.get(topic, ())):
            try:
                callback()
            except Exception:
                log.exception("a watcher of %s failed", topic)

    def keep_off(self, thread: threading.Thread) -> None:
        """`thread` (the tray's UI thread, which also runs the service's loop) must never wait
        on this store: each use from it is recorded and logged with where it came from."""
        self._lock.forbidden = thread.ident

    @property
    def forbidden_uses(self) -> list[str]:
        """Each use from the thread kept off (keep_off): where it came from."""
        return self._lock.forbidden_uses

    # -- transactions ----------------------------------------------------------------------
    @contextmanager
    def transaction(self, lock_wait_s: float | None = None) -> Iterator[Any]:
        """One transaction under the process's store lock; StoreBusy if not had in lock_wait_s."""
        if not self._lock.acquire(timeout=-1 if lock_wait_s is None else lock_wait_s):
            raise StoreBusy(f"the store stayed busy for {lock_wait_s:g} s")
        self._uses += 1
        try:
            self.con.execute("BEGIN TRANSACTION")
            try:
                yield self.con
                request = getattr(self._local, "request", None)
                if request is not None:  # in the change's own transaction: see applied.py
                    self.con.execute("INSERT INTO applied_requests (id, ts_ms) VALUES (?, ?)", list(request))
                    self._local.request = None
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
            self.con.execute("COMMIT")
        finally:
            self._lock.release()

    @contextmanager
    def recording(self, request_id: str, now_ms: int) -> Iterator[None]:
        """The first transaction this thread commits inside the block also records the write
        request's id (exactly-once writes, core/store/applied.py)."""
        self._local.request = (request_id, now_ms)
        try:
            yield
        finally:
            self._local.request = None

    @contextmanager
    def reading(self, lock_wait_s: float | None = None) -> Iterator[Any]:
        if not self._lock.acquire(timeout=-1 if lock_wait_s is None else lock_wait_s):
            raise StoreBusy(f"the store stayed busy for {lock_wait_s:g} s")
        self._uses += 1
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
                    if migration.code is not None:
                        migration.code(con)
                    con.execute(
                        "INSERT INTO schema_migrations VALUES (?, ?, ?)",
                        [migration.version, migration.name, int(time.time() * 1000)],
                    )
                applied.append(migration.version)
        return applied

    # -- small key/value state (maintenance day, import markers) ----------------------------
    def rekey_scopes(self) -> None:
        """Scopes keyed by a folder that has a remote move to its identity (core/repos/identity.py)."""
        from ..repos import identity as repos

        try:
            with self.transaction() as con:
                moved = repos.rekey(con)
        except Exception:  # a busy or read-only file: the folder keys still work, moved next open
            log.warning("could not move folder-keyed scopes to their repositories", exc_info=True)
            return
        if moved:
            log.info("moved %d scopes from folders to their repositories' remotes", moved)

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

    def release_cache(self) -> None:
        """DuckDB's buffer pool keeps every block a query read until memory_limit (80% of the
        machine's memory) presses it: after `verify` and the pool's load, the whole store (part of
        the service's resident memory: `memevo bench --json`, service_rss_mb). Lowering the limit for a moment
        evicts the blocks no query holds; a later query reads what it needs again (from the page
        cache). Under the lock, so no query of this process runs meanwhile. The store runs on
        DuckDB's default limit, which RESET puts back exactly (a limit SET again from its
        printed form, rounded, came back lower each time)."""
        with self._lock:
            try:
                self.con.execute("SET memory_limit = '1MB'")
            except Exception:  # blocks held (a write's undo): what could be evicted was
                log.debug("DuckDB kept part of its cache", exc_info=True)
            finally:
                self.con.execute("RESET memory_limit")

    def reopen_if_worn(self, after_uses: int = REOPEN_AFTER_USES) -> bool:
        """Close the database and open it again once `after_uses` reads and transactions ran
        since it was opened: DuckDB keeps native memory for each query it has run (ours: a top-N
        over text, the correlated subqueries; in no cache that closing a connection, lowering
        memory_limit or a checkpoint empties), and gives it back only when the database closes
        (docs/performance-journal.md, "The soak: what DuckDB keeps"). For a resident process,
        at a pause: under the lock (a short pause), the next query reads its blocks again from the page cache. True when it
        reopened."""
        import duckdb

        with self._lock:
            if self.read_only or isinstance(self.con, DamagedConnection):
                return False
            if self._uses - self._uses_at_open < after_uses:
                return False
            try:
                self.con.close()  # checkpoints; the file stays this process's (the service's lock)
            except duckdb.Error:  # its checkpoint failed (a full disk): the log keeps the writes
                log.warning("closing the store to open it again failed", exc_info=True)
            try:
                self.con = _connect_with_retry(self.path, False, default_lock_wait())
            except (duckdb.Error, StoreBusy, OSError) as exc:
                self.con = DamagedConnection(
                    StoreDamaged(f"the memory store could not be opened again ({exc}); restart memevo")
                )
                raise
            self._uses_at_open = self._uses
            return True

    def compact_later(self, con: Any) -> None:
        """In the transaction that deletes text: the file must be compacted. Should the process
        die before `compact` swaps the files, the next read-write open compacts instead, so
        no one reads that the change was applied while its text is still in the file."""
        self.set_state(con, COMPACT_PENDING, "1")

    def compact(self) -> None:
        """Rewrite the file so deleted rows are physically gone.

        DuckDB leaves deleted strings in free blocks after DELETE and CHECKPOINT; purge must
        not, so the live data is copied into a fresh file that atomically replaces the old one.
        The copy no longer says a compaction is pending; the old file does until it is replaced.
        """
        import duckdb

        if self.read_only:
            raise RuntimeError("compact needs the store open read-write")
        with self._lock:
            fresh = self._remove_leftovers()
            row = one(self.con.execute("SELECT current_database()"))
            name = str(row[0]) if row else "main"
            self.con.execute("ATTACH ? AS memevo_compact", [str(fresh)])
            try:
                self.con.execute(f'COPY FROM DATABASE "{name}" TO memevo_compact')
                self.con.execute("DELETE FROM memevo_compact.main.state WHERE key = ?", [COMPACT_PENDING])
            finally:
                self.con.execute("DETACH memevo_compact")
            self.con.close()
            try:
                # The old file was checkpointed as it closed; its log must not meet the new file.
                self.path.with_name(self.path.name + ".wal").unlink(missing_ok=True)
                os.replace(fresh, self.path)
            finally:
                self.con = returns_freed_memory(duckdb.connect(str(self.path)))
                self._remove_leftovers()

    def finish_compaction(self) -> None:
        """At a read-write open: a compaction cut short (the process was killed while a purge
        rewrote the file) is done again, and a leftover copy (user data) is removed."""
        if self.get_state(COMPACT_PENDING) is not None:
            self.compact()
        else:
            self._remove_leftovers()

    def _remove_leftovers(self) -> Path:
        fresh = self.path.with_name(f".{self.path.name}.compact")
        for leftover in (fresh, fresh.with_name(fresh.name + ".wal")):
            leftover.unlink(missing_ok=True)
        return fresh


class StoreLock:
    """The store's one re-entrant lock, which also notices a use from a forbidden thread."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.forbidden: int | None = None  # a thread's ident (Store.keep_off)
        self.forbidden_uses: list[str] = []  # where each use from the forbidden thread came from
        self._reported: set[str] = set()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if self.forbidden is not None and threading.get_ident() == self.forbidden:
            self._forbidden_use()
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _forbidden_use(self) -> None:
        import traceback

        where = "".join(traceback.format_stack(limit=16)[:-2])
        if len(self.forbidden_uses) < 100:
            self.forbidden_uses.append(where)
        if where not in self._reported:  # once per call site: a log, not a flood
            self._reported.add(where)
            log.warning("the store was used on the UI thread (it may freeze the tray):\n%s", where)


def returns_freed_memory(con: Any) -> Any:
    """DuckDB's allocator keeps what a query freed until a background thread gives it back:
    without one, loading a pool left memory resident in the service for good; with it, back
    soon after (the service's memory: `memevo bench --json`, service_rss_mb). Set, not
    passed as connect config: a connection with other config to the same file would fail."""
    con.execute("SET allocator_background_threads = true")
    return con


def default_lock_wait() -> float:
    """How long a writer waits for another process's lock; MEMEVO_LOCK_WAIT_S overrides it."""
    try:
        return max(0.0, float(envvars.LOCK_WAIT_S.get() or DEFAULT_LOCK_WAIT_S))
    except ValueError:
        return DEFAULT_LOCK_WAIT_S


def _connect_with_retry(path: Path, read_only: bool, wait_s: float) -> Any:
    import duckdb  # lazy: the hooks and `memevo --help` never pay for it

    deadline = time.monotonic() + wait_s
    delay = 0.02
    while True:
        try:
            return returns_freed_memory(duckdb.connect(str(path), read_only=read_only))
        except duckdb.Error as exc:
            message = str(exc)
            detail = damage_detail(message, path)
            if detail is not None:
                raise StoreDamaged(detail) from exc
            if not isinstance(exc, duckdb.IOException) or "lock" not in message.lower():
                raise
            if time.monotonic() >= deadline:
                raise StoreBusy(_busy_message(message, wait_s)) from exc
            time.sleep(delay)
            delay = min(delay * 2, 0.2)


def table_names(connection: Any) -> list[str]:
    rows = connection.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main' ORDER BY table_name"
    ).fetchall()
    return [str(r[0]) for r in rows]


def _busy_message(duckdb_message: str, wait_s: float) -> str:
    match = _PID.search(duckdb_message)
    holder = f"process {match['pid']} ({match['holder']})" if match else "another process"
    return (
        f"the memory store is in use by {holder}; waited {wait_s:g} s; nothing was written. "
        "Another memevo command (or a service starting) is still writing: retry in a moment; "
        "`memevo service` says whether a service runs."
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
