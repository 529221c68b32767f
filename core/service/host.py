"""ServiceHost: the service's lifecycle: its context, the model loaded off the request path,
the learning worker started and everything closed again in order.

What a request does is in the operation table (routes.py and the modules it names); what a
request runs with is the context (context.py). The host only builds, loads and closes them.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from .. import messages as msg
from ..clock import Clock, SystemClock
from ..encoder.loading import ModelLoad
from ..errors import StoreDamaged
from ..messages import Message
from ..recall.engine import RecallEngine
from ..store.database import Store
from . import relay, routes, sharework
from .context import ServiceContext

log = logging.getLogger("memevo.service")


class ServiceHost:
    def __init__(self, store: Store, clock: Clock | None = None) -> None:
        self.clock = clock or SystemClock()
        self.ctx = ServiceContext(store, self.clock)
        self.load_progress = LoadProgress()
        self._early_load: ModelLoad | None = None  # start_model_load's

    # The parts callers reach through the host (the tray, its panel, tests).
    @property
    def store(self) -> Store:
        return self.ctx.store

    @store.setter
    def store(self, store: Store) -> None:
        self.ctx.store = store

    @property
    def engine(self) -> RecallEngine | None:
        return self.ctx.engine

    @engine.setter
    def engine(self, engine: RecallEngine | None) -> None:
        self.ctx.engine = engine

    def handle(self, op: str, params: dict[str, Any]) -> dict[str, Any]:
        """One request, by the operation table: the socket server's and the panel's entry."""
        if op != "ping":  # a status probe is not the user at work
            self.ctx.last_request = time.monotonic()
        return routes.dispatch(self.ctx, op, params)

    def changes(self) -> int:
        """A count that moves whenever the service changed memories: every write, learning
        result, maintenance run, staleness check and recall award that gained clears the
        cached session-start texts (context.refresh_caches), and this counts those clearings.
        Read without the store, so the panel can look at it often and reload its rows only
        when it moved. Compare it for equality only: a settings change moves it too, and a
        write made straight to the store, not through the service, does not."""
        return self.ctx.session_starts.generation

    def status(self) -> dict[str, Any]:
        return self.ctx.status()

    def start_model_load(self) -> None:
        """Begin loading the model now if it is provisioned and ready to load (or take up the
        load `memevo serve` began before its imports: core/encoder/loading.py): the service's
        start does, before it writes the hooks' texts and listens; load_engine takes it up."""
        from ..encoder import loading

        self._early_load = loading.take_early()

    def load_engine(self) -> None:
        """The model, loaded off the request path; the service serves meanwhile."""
        from ..encoder.encoder import release_free_memory
        from ..process.runtime import open_engine, provisioned_encoder
        from ..recall import lexical_file
        from ..store.damage import damage_in

        ctx = self.ctx
        limit_blas_threads()
        try:
            relay.warm()  # the client adapters, so the first relayed hook does not load them
        except Exception:
            log.warning("could not load the hook adapters ahead of the first hook", exc_info=True)
        try:
            # the model loads (onnxruntime's session without the GIL) while the store is checked
            # and the pool and the lexical index are read (RecallEngine)
            encoder, early = provisioned_encoder(self.load_progress), self._early_load
            self._early_load = None
            if early is not None and (early.encoder.model_id, early.encoder.folder) == (
                encoder.model_id,
                encoder.folder,
            ):
                loading = early
            else:
                loading = ModelLoad(encoder)
            self.load_progress.stage(Message(msg.CHECKING_STORE))
            self.store.verify()  # every block read once: damage is named now, not blamed on the model
            ctx.engine = open_engine(
                self.store,
                self.load_progress,
                clock=self.clock,
                loading=loading,
                lexical_file=lexical_file.path_beside(self.store.path),
            )
            self.store.release_cache()  # the blocks verify and the pool's load read (`service_rss_mb`)
            release_free_memory()  # what loading freed (the pool's batches)
            ctx.ready_after_s = time.monotonic() - ctx.started
            log.info("recall ready after %.1f s (%d memories)", ctx.ready_after_s, len(ctx.engine.index))
            ctx.learner.want_cues()  # memories from before cues, or written while it was down
            # the trusted facts files that changed while no service ran (a pull), read now: the
            # session start that started us was answered from the cache and never reached them
            sharework.want(ctx, None)
        except Exception as exc:  # the service keeps serving session starts and the CLI
            damage = damage_in(exc, self.store.path)
            if damage is not None:
                # as for a store that could not be opened (server.py): every command says so,
                # hooks answer from the cached texts with the remedy, `memevo repair` stops us
                from . import damaged

                self.store.give_up(damage)
                damaged.mark(ctx, damage)
                log.error("%s", ctx.store_error, exc_info=not isinstance(exc, StoreDamaged))
            else:
                ctx.engine_error = f"the model could not be loaded: {exc}"
                log.exception("model load failed")

    def start_learning(self) -> None:
        """Start the learning worker now (the tray app does, so a failure shows at once);
        raises LearningUnavailable, kept in `ctx.learner.error` for the icon and status."""
        self.ctx.learner.start()

    def close(self) -> None:
        self.ctx.close()
        if self.ctx.engine is not None:
            self.ctx.engine.save_lexical()  # changed since the start: the next start reads it


class LoadProgress:
    """Where loading the model has got to (the tray's tooltip shows it). Written by the loader
    thread, read by the UI: single attribute writes, so no lock is needed."""

    def __init__(self) -> None:
        self.text: str = Message(msg.STARTING)
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
    and fight torch's threads for the two cores during the next encode: one BLAS thread makes a
    prompt's answer faster (`hook_prompt_ms` in `memevo bench --json`, docs/performance.md).

    `memevo serve` and `memevo tray` set OPENBLAS_NUM_THREADS=1 before numpy's import
    (cli/service_commands.py one_blas_thread), which OpenBLAS reads as it loads: then there is
    nothing to do, and threadpoolctl (its modules, a scan of every loaded library) stays out of
    the resident process. Otherwise (the tray started as `memevo` alone, a host in a test's
    process, a count the user set) threadpoolctl limits the threads already started."""
    if os.environ.get("OPENBLAS_NUM_THREADS") == "1":
        return
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1, user_api="blas")
    except Exception:
        log.warning("could not limit BLAS threads", exc_info=True)
