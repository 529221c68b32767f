"""ServiceHost: the store, the recall engine and everything that must stay in step with them."""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from .. import ops
from ..clock import Clock, SystemClock
from ..errors import InvalidInput, StoreDamaged
from ..recall.engine import RecallEngine
from ..store import Store
from . import caches, engineops, hookops, protocol, relay

log = logging.getLogger("memevo.service")
KEY_CHECK_TTL_S = 30.0


class HeldAccess(ops.StoreAccess):
    def __init__(self, store: Store) -> None:
        self.store = store

    def get(self, write: bool) -> Store:
        return self.store


HOOK_OPS = {
    "hook.session_start": hookops.on_session_start,
    "hook.prompt": hookops.on_prompt,
    "hook.action": hookops.on_action,
    "hook.stop": hookops.on_stop,
}
_BOOK_SQL = {
    "hook": (
        "INSERT INTO hook_events VALUES (?, ?, ?, 1, ?) ON CONFLICT (client, event) DO UPDATE SET "
        "last_ms = excluded.last_ms, count = hook_events.count + 1, last_service_ms = excluded.last_service_ms"
    ),
    "injection": (
        "INSERT INTO injections (ts_ms, client, session, event, prompt_id, memory_ids, chars) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)"
    ),
}
# Writes after which the whole index is reloaded (many memories may have changed).
RELOAD_ALL = {"maintenance", "import_legacy"}


class ServiceHost:
    def __init__(self, store: Store, clock: Clock | None = None) -> None:
        self.store = store
        self.clock = clock or SystemClock()
        self.ctx = ops.Context(HeldAccess(store), self.clock)
        self.engine: RecallEngine | None = None
        self.engine_error: str | None = None
        self.store_error: str | None = None  # the store is damaged: `memevo repair`, never the model
        self.started = time.monotonic()
        self.ready_after_s: float | None = None
        self._key_checked = (-1e9, False)
        self._cache_lock = threading.Lock()
        self._books: queue.Queue[tuple[str, tuple[Any, ...]]] = queue.Queue()
        self._closing = threading.Event()
        self.side: Any = None
        self.side_error: str | None = None  # the learning worker could not start: shown, never silent
        self._side_lock = threading.Lock()
        self.desktop = False  # the tray app sets it: native dialogs instead of the in-chat flow
        self._answers: dict[tuple[str, str], str] = {}
        self.load_progress = LoadProgress()
        self._snapshot_lock = threading.Lock()
        # The tray app sets this: runs a UI request ("panel", "settings") on the UI thread.
        self.ui_request: Callable[[str], None] | None = None
        # The tray app's test hook (desktop/testhook.py), set only when it is switched on.
        self.ui_test: Callable[[dict[str, Any]], dict[str, Any]] | None = None
        threading.Thread(target=self._bookkeeper, name="memevo-books", daemon=True).start()

    # -- the model, loaded off the request path -------------------------------------------------------
    def load_engine(self) -> None:
        from ..runtime import open_engine
        from ..store import damage_detail

        limit_blas_threads()
        try:
            self.load_progress.stage("Checking the memory store")
            self.store.verify()  # every block read once: damage is named now, not blamed on the model
            self.engine = open_engine(self.store, self.load_progress, clock=self.clock)
            self.ready_after_s = time.monotonic() - self.started
            log.info("recall ready after %.1f s (%d memories)", self.ready_after_s, len(self.engine.index))
        except Exception as exc:  # the service keeps serving session starts and the CLI
            detail = exc.detail if isinstance(exc, StoreDamaged) else damage_detail(str(exc), self.store.path)
            if detail is not None:
                self.store_error = self.engine_error = str(StoreDamaged(detail))
                log.error("%s", self.store_error, exc_info=not isinstance(exc, StoreDamaged))
            else:
                self.engine_error = f"the model could not be loaded: {exc}"
                log.exception("model load failed")

    # -- requests ----------------------------------------------------------------------------------------
    def handle(self, op: str, params: dict[str, Any]) -> dict[str, Any]:
        if op == "hook.relay":
            return relay.answer(self.handle, params)
        hook = HOOK_OPS.get(op) or engineops.OPERATIONS.get(op)
        if hook is not None:
            return hook(self, params)
        if op == "ping":
            return self.status()
        if op == "search":
            return self._search(params)
        if op == "ui.show":
            return self._show_ui(str(params.get("view", "panel")))
        if op == "ui.test":
            if self.ui_test is None:
                raise InvalidInput("the tray app's test hook is off (MEMEVO_TRAY_TEST_HOOK=1 at its start)")
            return self.ui_test(params)
        if op == "recall":
            return self._recall(params)
        if op == "side.resolve":
            return self._resolve(params)
        result = ops.dispatch(self.ctx, op, params)
        if op in ops.WRITES:
            self._after_write(op, result)
        return result

    def status(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "build": protocol.BUILD,
            "model_ready": self.engine is not None,
            "model_error": self.engine_error,
            "store_error": self.store_error,
            "learning_error": self.side_error,
            "desktop": self.desktop,
            "memories_indexed": len(self.engine.index) if self.engine else None,
            "uptime_s": round(time.monotonic() - self.started, 1),
            "ready_after_s": self.ready_after_s,
        }

    def _show_ui(self, view: str) -> dict[str, Any]:
        """A second `memevo` start asks the running tray app to bring its panel to the front."""
        if self.ui_request is None:
            return {"shown": False, "reason": "the running service is headless (memevo serve)"}
        self.ui_request(view)
        return {"shown": True}

    def _search(self, params: dict[str, Any]) -> dict[str, Any]:
        """Search by meaning (MCP memory_search, `memevo search`, the panel): nearest live
        memories, no gate, no award (core/memsearch.py)."""
        from .. import memsearch

        if self.engine is None:
            raise InvalidInput(
                self.engine_error or "search by meaning works once the model has loaded; try again"
            )
        limit = params.get("limit", 20)
        return memsearch.search(
            self.engine,
            self.store,
            str(params.get("text") or params.get("query") or ""),
            params.get("category"),
            limit if isinstance(limit, int) else 20,
        )

    def _recall(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.engine is None:
            raise InvalidInput(self.engine_error or "the model is still loading; try again in a few seconds")
        result = self.engine.recall(str(params.get("prompt", "")), award=bool(params.get("award", False)))
        return {"hits": [h.as_json() for h in result.hits], "skipped": result.skipped}

    def _resolve(self, params: dict[str, Any]) -> dict[str, Any]:
        """memory_resolve: the client comes from the caller's registration, never from the model."""
        from ..learning import resolve

        result = resolve.resolve(
            self.store,
            self.clock,
            str(params.get("client", "")),
            str(params.get("sessionID", "")),
            str(params.get("decision", "")),
            params.get("text") if params.get("from_dialog") else None,
        )
        self.after_learning(result)
        return result

    def _after_write(self, op: str, result: dict[str, Any]) -> None:
        changed = _ids_in(result)
        self._void_proposals_about(changed)
        if self.engine is not None:
            if op in RELOAD_ALL:
                self.engine.sync_all()
            else:
                self.engine.sync_ids(changed)
        self.refresh_caches()
        self._refresh_snapshot()

    # -- learning ---------------------------------------------------------------------------------------
    def start_learning(self) -> None:
        """Start the learning worker now (the tray app does, so a failure shows at once rather
        than at the first prompt). A failure is kept in `side_error` for the icon and status."""
        from ..learning.learn import SideRunner, SideUnavailable

        with self._side_lock:
            if self.side is not None:
                return
            try:
                self.side = SideRunner(self)
                self.side_error = None
            except SideUnavailable as exc:
                self.side_error = str(exc)
                log.error("learning is unavailable: %s", exc)
                raise

    def learn(self, ask: dict[str, Any], prompt: str, context: str | None = None) -> str | None:
        """Start the background analysis of the user's words; returns its sessionID."""
        from ..learning.learn import SideUnavailable

        self.start_learning()
        try:
            job_id: str | None = self.side.start(ask, prompt, context)
        except SideUnavailable as exc:
            self.side_error = str(exc)
            log.error("learning is unavailable: %s", exc)
            raise
        return job_id

    def remember_answer(self, client: str, session: str | None, text: Any, enabled: bool) -> None:
        """sideContext: keep the last assistant message of each session (memory only, redacted)."""
        if not enabled or not session or not isinstance(text, str) or not text.strip():
            return
        from ..recall.textfilter import redact_secrets, strip_code_and_logs

        self._answers[(client, session)] = redact_secrets(strip_code_and_logs(text))[-2000:]
        while len(self._answers) > 256:
            self._answers.pop(next(iter(self._answers)))

    def previous_answer(self, client: str, session: Any) -> str | None:
        return self._answers.get((client, str(session))) if session else None

    def after_learning(self, result: dict[str, Any]) -> None:
        if self.engine is not None:
            self.engine.sync_ids(_ids_in(result))
        self.refresh_caches()
        self._refresh_snapshot()

    def _void_proposals_about(self, ids: list[str]) -> None:
        """A pending proposal that points at a memory the user just changed is void."""
        if not ids:
            return
        with self.store.transaction() as con:
            con.execute(
                "UPDATE side_jobs SET status = 'voided', error = 'its target memory was changed' "
                "WHERE status IN ('ready', 'shown') AND list_contains(?, json_extract_string(proposal, '$.target'))",
                [ids],
            )

    def _refresh_snapshot(self) -> None:
        """One render at a time: a render that read the store before a purge must not land
        after the purge's own render (it would put the purged text back)."""
        from .. import snapshot

        try:
            with self._snapshot_lock:
                snapshot.write(self.store)
        except Exception:
            log.warning("could not rewrite memories.html", exc_info=True)

    def after_maintenance(self) -> None:
        if self.engine is not None:
            self.engine.sync_all()
        self.refresh_caches()

    # -- bookkeeping -------------------------------------------------------------------------------------
    def has_api_key(self) -> bool:
        checked_at, value = self._key_checked
        if time.monotonic() - checked_at > KEY_CHECK_TTL_S:
            from .. import secrets

            value = secrets.has_api_key()
            self._key_checked = (time.monotonic(), value)
        return value

    def known_api_key(self) -> bool:
        """The last answer, without asking the keyring (a locked one prompts and blocks): for the
        tray's UI thread. The tray refreshes it on a worker; only the very first call asks."""
        checked_at, value = self._key_checked
        return self.has_api_key() if checked_at < 0 else value

    def forget_key_check(self) -> None:
        """The key was just set or cleared (settings, `memevo secret`): look again next time."""
        self._key_checked = (-1e9, False)

    def record_hook(self, client: str, event: str, elapsed_ms: float) -> None:
        self._books.put(("hook", (client, event, self.clock.now_ms(), elapsed_ms)))

    def log_injection(
        self, client: str, session: str | None, event: str, prompt_id: str | None, ids: list[str], chars: int
    ) -> None:
        self._books.put(("injection", (self.clock.now_ms(), client, session, event, prompt_id, ids, chars)))

    def flush_bookkeeping(self) -> None:
        """Heartbeats and the injection log are written off the request path, in batches."""
        batch: list[tuple[str, tuple[Any, ...]]] = []
        while True:
            try:
                batch.append(self._books.get_nowait())
            except queue.Empty:
                break
        if not batch:
            return
        try:
            with self.store.transaction() as con:
                for kind, row in batch:
                    con.execute(_BOOK_SQL[kind], list(row))
        except Exception:
            log.warning("could not write %d heartbeat/injection records", len(batch), exc_info=True)

    def _bookkeeper(self) -> None:
        while not self._closing.wait(0.25):
            self.flush_bookkeeping()

    def close(self) -> None:
        self._closing.set()
        if self.side is not None:
            self.side.close()
        self.flush_bookkeeping()

    def refresh_caches(self) -> None:
        """Plain-text copies the hooks fall back on while the service is down or hung."""
        caches.write(self.store, self.has_api_key())


class LoadProgress:
    """Where loading the model has got to (the tray's tooltip shows it). Written by the loader
    thread, read by the UI: single attribute writes, so no lock is needed."""

    def __init__(self) -> None:
        self.text = "starting"
        self.fraction: float | None = None

    def stage(self, text: str) -> None:
        self.text, self.fraction = text, None

    def update(self, done: float, total: float | None = None) -> None:
        self.fraction = done / total if total else None

    def describe(self) -> str:
        percent = f" {self.fraction:.0%}" if self.fraction is not None else ""
        return f"{self.text}{percent}"


def limit_blas_threads() -> None:
    """One BLAS thread in the service. numpy's OpenBLAS threads keep spinning after a search
    and fight torch's threads for the two cores during the next encode; measured per prompt
    with 10k memories: 48 ms with both pools at two threads, 23 ms with BLAS at one."""
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1, user_api="blas")
    except Exception:
        log.warning("could not limit BLAS threads", exc_info=True)


def _ids_in(result: dict[str, Any]) -> list[str]:
    ids: list[str] = []
    memory = result.get("memory")
    if isinstance(memory, dict) and isinstance(memory.get("id"), str):
        ids.append(memory["id"])
    for key in ("deleted", "missing"):
        ids += [i for i in result.get(key, []) if isinstance(i, str)]
    for key in ("trashed",):
        if isinstance(result.get(key), str):
            ids.append(result[key])
    purged = result.get("purged")
    if isinstance(purged, dict) and isinstance(purged.get("id"), str):
        ids.append(purged["id"])
    for made in result.get("imported", []) if isinstance(result.get("imported"), list) else []:
        if isinstance(made, dict) and isinstance(made.get("id"), str):  # import_notes
            ids.append(made["id"])
    return ids
