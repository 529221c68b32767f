"""Heartbeats and the injection log: queued by requests, written off the request path in batches."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from ..clock import Clock
from ..store import Store

log = logging.getLogger("memevo.service")
FLUSH_EVERY_S = 0.25
_SQL = {
    "hook": (
        "INSERT INTO hook_events VALUES (?, ?, ?, 1, ?) ON CONFLICT (client, event) DO UPDATE SET "
        "last_ms = excluded.last_ms, count = hook_events.count + 1, last_service_ms = excluded.last_service_ms"
    ),
    "injection": (
        "INSERT INTO injections (ts_ms, client, session, event, prompt_id, memory_ids, chars) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)"
    ),
}


class Bookkeeper:
    def __init__(self, store: Callable[[], Store], clock: Clock) -> None:
        self.store, self.clock = store, clock
        self._queue: queue.Queue[tuple[str, tuple[Any, ...]]] = queue.Queue()
        self._closing = threading.Event()
        threading.Thread(target=self._run, name="memevo-books", daemon=True).start()

    def record_hook(self, client: str, event: str, elapsed_ms: float) -> None:
        self._queue.put(("hook", (client, event, self.clock.now_ms(), elapsed_ms)))

    def log_injection(
        self, client: str, session: str | None, event: str, prompt_id: str | None, ids: list[str], chars: int
    ) -> None:
        self._queue.put(("injection", (self.clock.now_ms(), client, session, event, prompt_id, ids, chars)))

    def flush(self) -> None:
        batch: list[tuple[str, tuple[Any, ...]]] = []
        while True:
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        if not batch:
            return
        try:
            with self.store().transaction() as con:
                for kind, row in batch:
                    con.execute(_SQL[kind], list(row))
        except Exception:
            log.warning("could not write %d heartbeat/injection records", len(batch), exc_info=True)

    def _run(self) -> None:
        while not self._closing.wait(FLUSH_EVERY_S):
            self.flush()

    def close(self) -> None:
        self._closing.set()
        self.flush()
