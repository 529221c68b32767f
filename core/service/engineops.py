"""Operations that need the loaded model, served by the service so that `memevo verify`,
`rebuild-index` and `build-background` work while the tray app or `memevo serve` holds the
store — with the very encoder that serves recall, so verify's figures are the same with the
service running as without."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput
from ..recall.engine import RecallEngine

if TYPE_CHECKING:
    from .host import ServiceHost

MODEL_WAIT_S = 180.0


def _engine(host: ServiceHost) -> RecallEngine:
    """The loaded engine, waiting for a model that is still loading."""
    deadline = time.monotonic() + MODEL_WAIT_S
    while host.engine is None and host.engine_error is None and time.monotonic() < deadline:
        time.sleep(0.2)
    if host.engine is None:
        raise InvalidInput(host.engine_error or "the model did not finish loading; try again")
    return host.engine


def verify(host: ServiceHost, params: dict[str, Any]) -> dict[str, Any]:
    from ..recall import verify as verify_mod

    case_file = verify_mod.parse(params.get("file"), str(params.get("where") or "the cases"))
    engine = _engine(host)
    if case_file.pool is not None:
        return verify_mod.run_with_pool(engine.encoder, case_file)
    return verify_mod.run(engine, case_file.cases, actions_=case_file.actions)


def rebuild_index(host: ServiceHost, params: dict[str, Any]) -> dict[str, Any]:
    from .. import vectors

    engine = _engine(host)
    backup = vectors.backup(host.store)
    vectors.clear(host.store)
    started = time.perf_counter()
    engine.sync_all()
    return {
        "model": engine.encoder.model_id,
        "encoded": len(engine.index),
        "seconds": round(time.perf_counter() - started, 2),
        "backup": str(backup) if backup else None,
    }


def build_background(host: ServiceHost, params: dict[str, Any]) -> dict[str, Any]:
    from ..encoder import background

    engine = _engine(host)
    target = background.build(engine.encoder)
    engine.background = background.ensure(engine.encoder)
    engine.sync_all()  # the index centres vectors with the mean: rebuild it with the new one
    return {"model": engine.encoder.model_id, "path": str(target), "sentences": len(background.sentences())}


OPERATIONS = {"verify": verify, "rebuild_index": rebuild_index, "build_background": build_background}
