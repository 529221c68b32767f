"""A headless service's idle exit: after serviceIdleMinutes without requests it stops, and
the next caller starts it again. The tray app hosts its own service and never idles out."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterator

from .. import envvars

log = logging.getLogger("memevo.service")

# Overrides serviceIdleMinutes (a float, in minutes): tests use a fraction of a second.
IDLE_ENV = envvars.SERVICE_IDLE_MINUTES.name
IDLE_CHECK_MAX_S = 30.0


def idle_limit_s() -> float | None:
    """Seconds without a request after which a headless service exits; None: never."""
    minutes: float | None = None
    raw = os.environ.get(IDLE_ENV, "").strip()
    if raw:
        with contextlib.suppress(ValueError):
            minutes = float(raw)
    if minutes is None:
        from .. import config as config_mod

        minutes = float(config_mod.load()["serviceIdleMinutes"])
    return minutes * 60 if minutes > 0 else None


class IdleWatch:
    """Requests in progress and when the last one ended (a status ping does not count)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._busy = 0
        self._last = time.monotonic()

    @contextlib.contextmanager
    def request(self) -> Iterator[None]:
        with self._lock:
            self._busy += 1
        try:
            yield
        finally:
            with self._lock:
                self._busy -= 1
                self._last = time.monotonic()

    def idle_for(self) -> float:
        with self._lock:
            return 0.0 if self._busy else time.monotonic() - self._last


async def exit_when_idle(watch: IdleWatch, loader: threading.Thread, stopping: asyncio.Event) -> None:
    """Re-reads the limit at every check, so a config change applies without a restart.
    Never while the model is still loading (a first start may provision it for minutes)."""
    while not stopping.is_set():
        limit = idle_limit_s()
        if limit is not None and not loader.is_alive() and watch.idle_for() >= limit:
            minutes = limit / 60
            unit = "minute" if minutes == 1 else "minutes"
            log.info("no request for %g %s: the service exits; the next caller starts it", minutes, unit)
            stopping.set()
            return
        wait = IDLE_CHECK_MAX_S if limit is None else max(0.05, min(IDLE_CHECK_MAX_S, limit / 4))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), wait)
