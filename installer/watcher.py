"""Self-repair: keep memevo's registration in the clients' files while the tray app runs.

Clients and their updates rewrite their config files; when our hooks, MCP entry or skill
disappear or go stale, they are put back — debounced, through the same code setup uses, so
only our entries change. We react to a file being closed after writing or moved into place
(atomic replace), never to the first modify, so a half-written file is never read; on
platforms without close events a modify starts the same debounce. A client removed with
`uninstall --only`, or whose repairs the user stopped, is left alone."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from . import jsonfile, state
from . import messages as m
from .clients import CLIENTS, client_status, files, get, needs_repair, register_client

log = logging.getLogger("memevo.watcher")
DEBOUNCE_S = 0.4
MAX_REPAIRS = 3  # within REPAIR_WINDOW_S, then give up: something keeps undoing us
REPAIR_WINDOW_S = 600.0
Repaired = Callable[[str, list[str]], None]  # client, what was restored
Failed = Callable[[str, str], None]  # client, why it could not be restored


def watched_files(client: str) -> list[Path]:
    return get(client).watched_files()


class RegistrationWatcher(FileSystemEventHandler):
    def __init__(self, on_repaired: Repaired, on_failed: Failed, debounce_s: float = DEBOUNCE_S) -> None:
        self.on_repaired = on_repaired
        self.on_failed = on_failed
        self.debounce_s = debounce_s
        self._observer = Observer()
        self._timers: dict[str, threading.Timer] = {}
        self._lock = threading.Lock()
        self._files: dict[Path, str] = {}
        self._running: set[str] = (
            set()
        )  # a repair in flight (it may run a client's CLI, which writes a watched file)
        self._again: set[str] = set()  # events that arrived meanwhile: one re-check afterwards
        self._recent: dict[str, list[float]] = {}
        self.given_up: set[str] = set()
        self.repairs = 0

    # -- lifecycle -------------------------------------------------------------------------------------
    def start(self) -> None:
        folders: set[Path] = set()
        for client in CLIENTS:
            for path in watched_files(client):
                self._files[path] = client
                if path.parent.is_dir():
                    folders.add(path.parent)
        for folder in folders:
            self._observer.schedule(self, str(folder), recursive=False)
        self._observer.start()
        for client in state.registered_clients():  # changed while the tray app was not running
            self._schedule(client)

    def stop(self) -> None:
        with self._lock:
            for timer in self._timers.values():
                timer.cancel()
            self._timers.clear()
        self._observer.stop()
        self._observer.join(timeout=5)

    # -- events ----------------------------------------------------------------------------------------
    def on_closed(self, event: FileSystemEvent) -> None:
        self._touched(event.src_path)

    def on_created(self, event: FileSystemEvent) -> None:
        self._touched(event.src_path)  # an atomic replace from a temp file in another folder

    def on_moved(self, event: FileSystemEvent) -> None:
        self._touched(event.dest_path)  # an atomic replace lands here

    def on_deleted(self, event: FileSystemEvent) -> None:
        self._touched(event.src_path)

    def on_modified(self, event: FileSystemEvent) -> None:
        if not _has_close_events():
            self._touched(event.src_path)

    def _touched(self, raw: str | bytes) -> None:
        path = Path(raw.decode() if isinstance(raw, bytes) else raw)
        client = self._files.get(path)
        if client is not None:
            self._schedule(client)

    def _schedule(self, client: str) -> None:
        with self._lock:
            previous = self._timers.pop(client, None)
            if previous is not None:
                previous.cancel()
            timer = threading.Timer(self.debounce_s, self.check, args=(client,))
            timer.daemon = True
            self._timers[client] = timer
            timer.start()

    # -- the repair ------------------------------------------------------------------------------------
    def check(self, client: str) -> bool:
        """Restore the client's registration if it is ours to keep and it needs it; True if repaired."""
        with self._lock:
            if client in self._running:
                self._again.add(client)
                return False
            self._running.add(client)
        try:
            return self._check(client)
        finally:
            with self._lock:
                self._running.discard(client)
                again = client in self._again
                self._again.discard(client)
            if again:
                self._schedule(client)

    def _check(self, client: str) -> bool:
        if client in self.given_up or client not in state.registered_clients() or not files(client).installed:
            return False
        try:
            report = client_status(client)
            if not needs_repair(report):
                return False
            if self._too_often(client):
                return False
            if client not in state.registered_clients():  # removed on purpose meanwhile
                return False
            outcome = register_client(client, jsonfile.Writer())
        except Exception as exc:  # never kill the watcher thread
            log.exception("repair of %s failed", client)
            self.on_failed(client, str(exc))
            return False
        if outcome.problems:
            self.on_failed(client, m.joined(outcome.problems))  # each problem keeps its code
            return False
        if outcome.changed:
            self.repairs += 1
            log.info("repaired %s: %s", client, outcome.lines)
            self.on_repaired(client, outcome.lines)
        return outcome.changed

    def _too_often(self, client: str) -> bool:
        """Something keeps removing our entries: stop fighting it (until the tray restarts) and say so once."""
        now = time.monotonic()
        recent = [t for t in self._recent.get(client, []) if now - t < REPAIR_WINDOW_S]
        if len(recent) >= MAX_REPAIRS:
            self.given_up.add(client)
            stopped = m.Message(m.REPAIRS_STOPPED, count=MAX_REPAIRS, minutes=f"{REPAIR_WINDOW_S // 60:.0f}")
            self.on_failed(client, stopped)
            return True
        self._recent[client] = [*recent, now]
        return False


def _has_close_events() -> bool:
    import sys

    return sys.platform.startswith("linux")  # inotify reports IN_CLOSE_WRITE; others do not


def stop_repairing(client: str) -> None:
    """The user did not want a repair: leave this client's files alone from now on."""
    state.update_client(client, repair=False)


def resume_repairing(client: str) -> None:
    state.update_client(client, repair=True)
