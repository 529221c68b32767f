"""The service's anchor checks (core/repos/staleness.py), on a thread of their own.

A hook only asks for a check (`want`: a dictionary look-up and a queue put); git runs here,
never in a request. A repository is checked at its session start at most every MIN_GAP_S, after
a write to one of its memories, and every repository after the day's maintenance. When a
check turns a memory stale or fresh the session-start texts and the fallback files are
rendered again, so the next injection says it.

A session start remembers its folder as one of the repository's folders (core/repos/identity.py); the
check looks in every one of them, so a session in a folder that merely claims the repository's
remote cannot make the facts of the real checkout stale (core/repos/staleness.py says how).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from ..clock import Clock
from ..repos import identity as repos
from ..repos import staleness
from ..store.database import Store

log = logging.getLogger("memevo.service")
MIN_GAP_S = 600.0  # a repository's session starts within this much of its last check ask nothing
_ALL = "*all*"


class AnchorChecks:
    def __init__(self, store: Callable[[], Store], clock: Clock, changed: Callable[[], None]) -> None:
        self._store = store
        self._clock = clock
        self._changed = changed
        self._queue: queue.SimpleQueue[tuple[str, Any] | None] = queue.SimpleQueue()
        self._asked: dict[str, float] = {}  # repository -> when its last check was asked for
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.done = threading.Event()  # set after each check (tests wait on it)
        self.last: staleness.Report | None = None

    def want(self, repo: str | None, folder: str | None = None) -> None:
        """A session started in `repo` (in `folder` on this machine): check it unless it was
        asked for in the last MIN_GAP_S. The folder is remembered first (core/repos/identity.py)."""
        if not repo:
            return
        now = time.monotonic()
        with self._lock:
            if now - self._asked.get(repo, -MIN_GAP_S) < MIN_GAP_S:
                return
            self._asked[repo] = now
        self._put(("repo", (repo, folder)))

    def want_ids(self, ids: list[str]) -> None:
        """These memories were written: their repositories are checked (their names are new)."""
        if ids:
            self._put(("ids", list(ids)))

    def want_all(self) -> None:
        self._put((_ALL, None))

    def _put(self, item: tuple[str, Any]) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="memevo-anchors", daemon=True)
                self._thread.start()
        self._queue.put(item)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                report = self._check(*item)
            except Exception:  # a damaged store, a vanished folder: the next ask tries again
                log.warning("checking anchors (%s) failed", item[0], exc_info=True)
                report = None
            self.last = report
            if report is not None and report.changed:
                try:
                    self._changed()
                except Exception:
                    log.warning("could not render the texts again after an anchor check", exc_info=True)
            self.done.set()

    def _check(self, kind: str, what: Any) -> staleness.Report:
        store = self._store()
        if kind == _ALL:
            return staleness.check_all(store, self._clock)
        if kind == "repo":
            repo, folder = what
            if folder:
                with store.transaction() as con:
                    repos.remember(con, repo, folder)
        repos_ = [what[0]] if kind == "repo" else staleness.repos_of(store, what)
        report = staleness.Report()
        for repo in repos_:
            report.merge(staleness.check_repo(store, repo, self._clock))
        return report

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=staleness.REPO_BUDGET_S + 1)
