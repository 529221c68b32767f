"""The model loading on a thread of its own, begun as early as a process can.

onnxruntime builds its session without the GIL (a noticeable part of a start), so the
service's start runs it beside work that holds the GIL: `memevo serve` begins it before it
imports the service (the imports take as long again), the service's host takes it up
(ServiceHost.start_model_load), and the recall engine reads the pool and the lexical index
while it finishes. Only a model already provisioned and ready to load is begun early; one still
to download, convert or build is left to the host's load_engine, which shows its progress.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from .encoder import Encoder

log = logging.getLogger("memevo.encoder")
_early: ModelLoad | None = None
_early_lock = threading.Lock()


class OnThread:
    """A call on a thread of its own; `wait` joins it and re-raises what it raised."""

    def __init__(self, name: str, call: Callable[[], object]) -> None:
        self._error: BaseException | None = None
        self._call = call
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._call()
        except BaseException as exc:  # re-raised by wait(), in the caller's thread
            self._error = exc

    def wait(self) -> None:
        self._thread.join()
        if self._error is not None:
            raise self._error


class ModelLoad(OnThread):
    """The encoder loading while the caller does other work."""

    def __init__(self, encoder: Encoder) -> None:
        self.encoder = encoder
        super().__init__("memevo-model-load", encoder.load)


def ready_to_load() -> ModelLoad | None:
    """The configured model's load begun now, if it is provisioned and needs no building."""
    from .. import config as config_mod
    from .models import entry_for
    from .provision import graph_outdated, ready_folder, wants_graph

    try:
        model_id = str(config_mod.load()["model"])
        folder = ready_folder(model_id)
        if folder is None or (wants_graph(entry_for(model_id)) and graph_outdated(folder)):
            return None
        return ModelLoad(Encoder(model_id, folder))
    except Exception:  # load_engine provisions and loads as it would have, and says why
        log.debug("the model's load was not begun early", exc_info=True)
        return None


def begin_early() -> None:
    """Begin the load for this process's service, before the service's imports."""
    global _early
    with _early_lock:
        if _early is None:
            _early = ready_to_load()


def take_early() -> ModelLoad | None:
    """The load begun early in this process (once), else one begun now."""
    global _early
    with _early_lock:
        found, _early = _early, None
    return found if found is not None else ready_to_load()
