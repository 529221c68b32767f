"""Work off the UI thread: store queries, writes (which rewrite memories.html) and encoding run
on one worker thread, in order; their results come back to the UI thread through a queued Qt
signal. One thread keeps the order of a user's actions (edit, then reload) obvious."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .qt import QObject, Signal

log = logging.getLogger("memevo.desktop")


class OffUi(QObject):
    _finished = Signal(object, object)  # (callback, value), delivered on the UI thread

    def __init__(self, name: str = "memevo-ui-work", parent: QObject | None = None) -> None:
        # With a parent, the worker dies with its view and late answers are dropped.
        super().__init__(parent)
        self._pool = ThreadPoolExecutor(1, name)
        self._pending = 0
        self._count_lock = threading.Lock()
        self._finished.connect(self._deliver)
        self.ui_thread = threading.current_thread()

    @property
    def busy(self) -> bool:
        return self._pending > 0

    def run(
        self,
        work: Callable[[], Any],
        done: Callable[[Any], None],
        failed: Callable[[Exception], None] | None = None,
    ) -> None:
        with self._count_lock:
            self._pending += 1
        self._pool.submit(self._work, work, done, failed)

    def _work(self, work: Callable[[], Any], done: Callable[[Any], None], failed: Any) -> None:
        try:
            value = work()
        except Exception as exc:  # reported to the user by `failed`, never lost in the thread
            log.warning("background work failed: %s", exc)
            self._emit(failed or _log_only, exc)
            return
        self._emit(done, value)

    def _emit(self, callback: Callable[[Any], None], value: Any) -> None:
        try:
            self._finished.emit(callback, value)
        except RuntimeError:  # the view (and this worker's Qt half) was closed meanwhile
            log.debug("answer dropped: its view is gone")

    def _deliver(self, callback: Callable[[Any], None], value: Any) -> None:
        try:
            callback(value)
        finally:
            with self._count_lock:
                self._pending -= 1

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _log_only(exc: Exception) -> None:
    log.warning("unhandled background failure: %s", exc)
