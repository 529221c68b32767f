"""What the operations served by the service run with: the held store and the clock, the
model once loaded, the learning worker, the bookkeeping writer and the tray's UI hooks.

The host (host.py) builds one at start and keeps it for the service's life; the operations
(routes.py) get it as their first argument, and nothing here knows the host or the server.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from ..clock import Clock
from ..learning import jobs
from ..ops import table as optable
from ..recall.engine import RecallEngine
from ..store.database import Store
from . import fallback_texts
from .anchorwork import AnchorChecks
from .answer_cache import Awards, Rows, SessionStarts
from .html_page_work import PageWriter
from .injection_log import Bookkeeper
from .learning_worker import Learner

log = logging.getLogger("memevo.service")
KEY_CHECK_TTL_S = 30.0


class HeldAccess(optable.StoreAccess):
    def __init__(self, store: Store) -> None:
        self.store = store

    def get(self, write: bool) -> Store:
        return self.store


def side_api_named() -> bool:
    """The config names a side API (address and model): only then does its key decide anything
    (learning.readiness.state)."""
    from .. import config as config_mod

    config = config_mod.load()
    return bool(config["sideApiBase"] and config["sideApiModel"])


class KeyCheck:
    """Whether the side API key is set (and matters), asked of the keyring at most every
    KEY_CHECK_TTL_S, and only once the config names a side API: until then the keyring and what it
    loads (secretstorage, jeepney, cryptography: `service_rss_mb`, `service_ready_s`) stay out of
    the service. A config change through the service (config_set) asks again at once
    (ServiceContext.after)."""

    def __init__(self) -> None:
        self._checked = (-1e9, False)

    def has(self) -> bool:
        checked_at, value = self._checked
        if time.monotonic() - checked_at > KEY_CHECK_TTL_S:
            from ..privacy import side_api_key as secrets

            value = side_api_named() and secrets.has_api_key()
            self._checked = (time.monotonic(), value)
        return value

    def known(self) -> bool:
        """The last answer, without asking the keyring (a locked one prompts and blocks): for the
        tray's UI thread. The tray refreshes it on a worker; only the very first call asks."""
        checked_at, value = self._checked
        return self.has() if checked_at < 0 else value

    def forget(self) -> None:
        """The key was just set or cleared (settings, `memevo secret`): look again next time."""
        self._checked = (-1e9, False)


class ServiceContext(optable.Context):
    def __init__(self, store: Store, clock: Clock) -> None:
        self.held = HeldAccess(store)
        super().__init__(self.held, clock)
        self.engine: RecallEngine | None = None
        self.engine_error: str | None = None
        self.store_error: str | None = None  # the store is damaged: `memevo repair`, never the model
        self.damaged = False  # opened unusable: hooks answer from the cached texts (damaged.py)
        self.started = time.monotonic()
        self.ready_after_s: float | None = None
        self.desktop = False  # the tray app sets it: native dialogs instead of the in-chat flow
        # The confirmation window's title as the tray shows it, in the UI's language: the tool's
        # answer names it to the model, which tells the user where to answer.
        self.confirm_window = "memevo"
        # The tray app sets these: a UI request ("panel", "settings") run on the UI thread, and
        # its test hook (desktop/testhook.py), only when switched on.
        self.ui_request: Callable[[str], None] | None = None
        self.ui_test: Callable[[dict[str, Any]], dict[str, Any]] | None = None
        self.request_stop: Callable[[], None] | None = None  # set by the server
        self.keys = KeyCheck()
        self.books = Bookkeeper(lambda: self.store, clock)
        self.learner = Learner(self)
        self.session_starts = SessionStarts()
        self.awards = Awards()
        self.rows = Rows()
        self.page = PageWriter(self._write_page)
        self.anchor_checks = AnchorChecks(lambda: self.store, clock, self._after_anchors)
        self.consolidation_thread: threading.Thread | None = None  # the day's pass (tests join it)
        self.last_request = time.monotonic()  # when a request last came (ServiceHost.handle)
        self.closed = threading.Event()  # set as the service closes: background waits end

    @property
    def store(self) -> Store:
        return self.held.store

    @store.setter
    def store(self, store: Store) -> None:
        self.held.store = store

    @property
    def in_service(self) -> bool:
        return True

    def status(self) -> dict[str, Any]:
        from . import protocol

        return {
            "pid": os.getpid(),
            "build": protocol.BUILD,
            "model_ready": self.engine is not None,
            "model_error": self.engine_error,
            "store_error": self.store_error,
            "learning_error": self.learner.error,
            "side_error": self.learner.side_error,
            "cue_error": self.learner.cue_error,
            "desktop": self.desktop,
            "memories_indexed": len(self.engine.index) if self.engine else None,
            "learning": self.learning_status(),
            "off_in": _off_repositories(),  # `memevo off`: repositories left alone
            "shared_facts_problems": _shared_facts_problems(),  # facts files refused, with the remedy
            "uptime_s": round(time.monotonic() - self.started, 1),
            "ready_after_s": round(self.ready_after_s, 2) if self.ready_after_s is not None else None,
        }

    def learning_status(self) -> dict[str, Any]:
        """Who proposes now (side, client, off), and today's proposals from the clients' models
        against their caps; the side API calls are counted beside them (status.py)."""
        from .. import config as config_mod
        from ..learning import readiness

        config = config_mod.load()
        today = self.clock.local_day(self.clock.now_ms())
        try:
            proposals, calls = jobs.proposals_today(self.store, today), jobs.calls_today(self.store, today)
        except Exception as exc:  # a damaged or busy store: the status still answers
            return {"error": f"{type(exc).__name__}: {exc}"[:200]}
        return {
            "mode": readiness.state(config, self.keys.has()).mode,
            "chosen": config["learning"],
            "proposals_today": proposals,
            "proposals_per_day": config["proposalsPerDay"],
            "proposals_per_session": config["proposalsPerSession"],
            "side_calls_today": calls,
            "side_daily_limit": config["sideDailyLimit"],
        }

    # -- what follows a change ----------------------------------------------------------------------
    def after(self, op: optable.Operation, result: dict[str, Any]) -> None:
        changed = optable.changed_ids(result)
        if op.texts:  # the config changed: a side API named or unnamed decides whether the key counts
            self.keys.forget()
        if op.writes:
            jobs.void_about(self.store, changed)  # a proposal about a memory just changed is void
            if self.engine is not None:
                if op.reload_all:
                    self.engine.sync_all()
                else:
                    self.engine.sync_ids(changed)
        self.refresh_caches()
        if op.writes:
            self.refresh_snapshot()
            if not op.reload_all:  # maintenance checked every repository itself
                self.anchor_checks.want_ids(changed)
        if op.name == "maintenance" and result.get("ran"):
            self.consolidate_later()  # `memevo maintenance --force`: the day's pass at once
        self.learner.want_cues()  # a changed memory, or learning just configured (config ops)

    def after_learning(self, result: dict[str, Any]) -> None:
        changed = optable.changed_ids(result)
        self.anchor_checks.want_ids(changed)
        if self.engine is not None:
            self.engine.sync_ids(changed)
        self.refresh_caches()
        self.refresh_snapshot()
        self.learner.want_cues()

    def after_cues(self, ids: list[str]) -> None:
        if self.engine is not None:
            self.engine.sync_ids(ids)

    def after_maintenance(self, deprecated: int) -> None:
        """After the day's maintenance. Of what it changes, the indexes hold only whether a
        memory is deprecated (confidences, the trash, side jobs are read from the store), so
        they are rebuilt only when it deprecated some: a rebuild every morning slowed the day's
        first session start (`hook_session_start_ms`) and left freed pieces in the heaps
        (`service_rss_mb`)."""
        if self.engine is not None and deprecated:
            self.engine.sync_all()
        self.refresh_caches()
        self.anchor_checks.want_all()  # the day's check of every repository, off the request
        self.consolidate_later(when_quiet=True)  # not beside the session's first prompts

    def consolidate_later(self, when_quiet: bool = False) -> None:
        """The day's consolidation pass (core/consolidation/), on its own thread."""
        from .consolidateops import in_background

        self.consolidation_thread = in_background(self, when_quiet)

    def _after_anchors(self) -> None:
        """A check turned memories stale or fresh: the next injection says so."""
        self.refresh_caches()
        self.refresh_snapshot()

    def refresh_caches(self) -> None:
        """Plain-text copies the hooks fall back on while the service is down or hung; and the
        session-start texts kept in memory are rendered again on next use."""
        self.session_starts.clear()
        self.rows.clear()
        fallback_texts.write(self.store, self.keys.has())

    def refresh_snapshot(self) -> None:
        """memories.html rendered again soon, on its own thread (pagework.py): once for a run
        of writes, never in the writer's request."""
        self.page.want()

    def _write_page(self) -> None:
        """On the page's one thread, so one render at a time: a render that read the store
        before a purge cannot land after the purge's own render (it would put the purged text
        back)."""
        from ..memories import html_page as snapshot

        snapshot.write(self.store)

    def close(self) -> None:
        self.page.close()  # the page as the store is, before the store closes
        self.closed.set()
        self.anchor_checks.close()
        self.learner.close()
        self.books.close()


def _off_repositories() -> list[str]:
    from .. import config as config_mod

    return list(config_mod.load().values["offRepositories"])


def _shared_facts_problems() -> list[dict[str, str]]:
    from . import sharework

    return sharework.problems()
