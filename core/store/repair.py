"""`memevo repair`: bring a damaged store back with everything that can be saved.

First a copy of the damaged files goes to `backups/damaged-<time>/` (user-only). Then, in a
scratch folder, the first of these that reads cleanly becomes the new store:
1. the file with its write-ahead log cut just before the damaged entry (the transactions
   committed before it are kept), or with the log set aside;
2. table by table, every row that can still be read, copied into a fresh file through a new
   connection (a damaged stretch costs its rows, not the table); memories and trash rows
   that could not be read come back from the newest daily backup when it has them;
3. the newest daily backup that reads cleanly;
4. an empty store (the damaged copy stays for a specialist).
The report says which, the rows per table, and what may be lost.

Nothing runs while a service holds the store: one that runs with the store damaged is asked
to stop (it can do nothing useful); a healthy one is not touched ("stop it first").

The four ways back are in core/store/repair_methods.py, the report in core/store/repair_report.py.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

from .. import paths
from ..clock import Clock, SystemClock
from ..errors import StoreBusy
from ..memories.purge import DAMAGED_PREFIX
from . import backups
from .database import Store
from .repair_methods import empty_store, from_wal, probe_file, restore_daily, salvage, wal_path
from .repair_report import RepairReport

log = logging.getLogger("memevo.repair")

STOP_WAIT_S = 30.0


# -- the command ---------------------------------------------------------------------------------
def repair(clock: Clock | None = None) -> RepairReport:
    from ..service.server import AlreadyRunning, InstanceLock

    clock = clock or SystemClock()
    stopped = _stop_damaged_service()
    lock = InstanceLock()
    try:
        lock.acquire(STOP_WAIT_S if stopped else 2.0)
    except AlreadyRunning as exc:
        raise StoreBusy(
            f"{exc}; stop it first: `memevo service stop`, then run `memevo repair` again"
        ) from exc
    try:
        report = _repair(paths.store_path(), clock)
    finally:
        lock.release()
    report.stopped_service = stopped
    return report


def _stop_damaged_service() -> bool:
    """True when a service ran with the store damaged and was asked to stop; StoreBusy when a
    healthy one (or one still starting) holds the store."""
    from ..service import spawn
    from ..service.client import ServiceUnavailable, call
    from ..service.server import ping

    status = ping(timeout_s=2.0)
    if status is None:
        if spawn.lock_held():
            raise StoreBusy(
                "a memevo service is starting and holds the store; stop it first: `memevo service stop`, "
                "then run `memevo repair` again"
            )
        return False
    if not status.get("store_error"):
        raise StoreBusy(
            f"the memevo service (pid {status.get('pid')}) is running and holds the store; "
            "stop it first: `memevo service stop`, then run `memevo repair` again"
        )
    with contextlib.suppress(ServiceUnavailable):
        call("shutdown", {}, timeout_s=5)
    deadline = time.monotonic() + STOP_WAIT_S
    while spawn.lock_held():
        if time.monotonic() > deadline:
            raise StoreBusy(
                "the memevo service did not stop; stop it with `memevo service stop` and try again"
            )
        time.sleep(0.1)
    return True


def _repair(path: Path, clock: Clock) -> RepairReport:
    wal = wal_path(path)
    if not path.exists():
        if wal.exists():  # a log without its file: nothing to replay it into
            kept = _keep_copies(path, clock)
            wal.unlink()
            lost = ["the changes in that write-ahead log: there is no store file to replay them into"]
            return RepairReport(
                "repaired", "a write-ahead log without its store file", "empty", kept, lost=lost
            )
        return RepairReport("healthy")
    _refuse_if_open_elsewhere(path)
    probe = probe_file(path)
    if probe.ok:
        return RepairReport("healthy", now=_live_counts(probe.counts))
    damage = probe.detail or "unreadable"
    checkpoint_ms = int(path.stat().st_mtime * 1000)
    wal_ms = int(wal.stat().st_mtime * 1000) if wal.exists() else None
    kept = _keep_copies(path, clock)
    log.info("repairing the store: %s (copies in %s)", damage, Path(kept[0]).parent)
    with _scratch() as work:
        report = RepairReport("repaired", damage, kept=kept)
        fresh = from_wal(work, path, damage, report, checkpoint_ms, wal_ms)
        if fresh is None:
            fresh = salvage(work, path, damage, report, checkpoint_ms, wal_ms)
        if fresh is None:
            fresh = restore_daily(work, report)
        if fresh is None:
            fresh = empty_store(work, report)
        _install(fresh, path)
    with Store.open(path, lock_wait_s=0) as store:
        report.now = _live_counts(store.verify())
        _refresh_caches(store)
    return report


# -- pieces --------------------------------------------------------------------------------------
def _refuse_if_open_elsewhere(path: Path) -> None:
    """A command (not a service) may hold the file: DuckDB's own lock says so."""
    if os.name == "nt":  # pragma: no cover - Windows: the replace below fails instead
        return
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.lockf(fd, fcntl.LOCK_UN)
    except OSError as exc:
        raise StoreBusy(
            "another memevo process has the store open; wait for it to finish, then run `memevo repair` again"
        ) from exc
    finally:
        os.close(fd)


def _keep_copies(path: Path, clock: Clock) -> list[str]:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(clock.now_ms() / 1000))
    folder = paths.backups_dir() / f"{DAMAGED_PREFIX}{stamp}"
    suffix = 1
    while folder.exists():
        suffix += 1
        folder = paths.backups_dir() / f"{DAMAGED_PREFIX}{stamp}-{suffix}"
    backups.private_dir(folder)
    kept = []
    for source in (path, wal_path(path)):
        if source.exists():
            target = folder / source.name
            shutil.copy2(source, target)
            kept.append(str(backups.private_file(target)))
    return kept


@contextlib.contextmanager
def _scratch() -> Iterator[Path]:
    work = paths.data_dir() / ".repair"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(mode=0o700, parents=True)
    try:
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _install(fresh: Path, path: Path) -> None:
    wal_path(fresh).unlink(missing_ok=True)  # checkpointed and closed: nothing left in it
    os.chmod(fresh, 0o600)
    os.replace(fresh, path)
    wal_path(path).unlink(missing_ok=True)  # the damaged one: its copy is kept


def _refresh_caches(store: Store) -> None:
    """The hooks' fallback texts from the repaired store (no service runs to do it)."""
    from ..privacy import side_api_key as secrets
    from ..service import fallback_texts

    try:
        has_key = secrets.has_api_key()
    except Exception:
        has_key = False
    fallback_texts.write(store, has_key)


def _live_counts(counts: dict[str, int]) -> dict[str, int]:
    return {t: counts.get(t, 0) for t in ("memories", "trash")}
