"""memories.html rendered on a thread of its own, once for a run of changes.

The page lists every memory: at 10k memories a render takes noticeable time and makes a transient
row per memory and megabytes of text. Rendered inside each write's request, 500 writes cost 500
renders, held each writer up that long and left the service heavier (freed pieces scattered among
live objects; `soak_growth_pct`, docs/performance.md). Here a change asks for a render; the thread
renders once the changes pause for QUIET_S, and at least every AT_MOST_S while they go on. Every
render begins after the last change it was asked for, so the page ends as the store is; `flush`
waits for that (the service's close, and callers that read the page at once).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

QUIET_S = 0.5
AT_MOST_S = 5.0


class PageWriter:
    def __init__(
        self, render: Callable[[], None], quiet_s: float = QUIET_S, at_most_s: float = AT_MOST_S
    ) -> None:
        self._render = render
        self._quiet_s, self._at_most_s = quiet_s, at_most_s
        self._cond = threading.Condition()
        self._asked = 0  # changes asked for so far
        self._done = 0  # changes the last finished render began after
        self._first_waiting: float | None = None  # when the oldest unrendered change came
        self._last = 0.0  # when the newest came
        self._urgent = False  # a flush waits: render without the pause
        self._closed = False
        self._thread: threading.Thread | None = None

    def want(self) -> None:
        """A change: the page is rendered again soon, off the caller's thread."""
        with self._cond:
            if self._closed:
                return
            self._asked += 1
            self._last = time.monotonic()
            if self._first_waiting is None:
                self._first_waiting = self._last
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="memevo-page", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def flush(self, timeout_s: float = 30.0) -> bool:
        """Render now what was asked for and wait for it; True when the page is current."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            wanted = self._asked
            self._urgent = True
            self._cond.notify_all()
            while self._done < wanted:
                left = deadline - time.monotonic()
                if left <= 0 or self._thread is None:
                    return self._done >= wanted
                self._cond.wait(left)
            return True

    def close(self) -> None:
        """The last asked-for render, then the thread ends."""
        self.flush()
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def _due_in(self) -> float | None:
        """Seconds until the waiting changes are due (0: now); None when none wait."""
        if self._first_waiting is None:
            return None
        if self._urgent or self._closed:
            return 0.0
        now = time.monotonic()
        return max(0.0, min(self._last + self._quiet_s, self._first_waiting + self._at_most_s) - now)

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    if self._closed and self._first_waiting is None:
                        return
                    due = self._due_in()
                    if due == 0.0:
                        break
                    self._cond.wait(due)
                asked, self._first_waiting, self._urgent = self._asked, None, False
            try:
                self._render()
            except Exception:
                log.warning("could not rewrite memories.html", exc_info=True)
            with self._cond:
                self._done = asked
                self._cond.notify_all()
