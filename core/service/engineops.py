"""Operations that need the loaded model, served by the service so that `memevo verify`,
`rebuild-index` and `build-background` work while the tray app or `memevo serve` holds the
store — with the very encoder that serves recall, so verify's figures are the same with the
service running as without."""

from __future__ import annotations

import time
from typing import Any

from ..errors import InvalidInput
from ..ops.table import operation
from ..recall.engine import RecallEngine
from .context import ServiceContext

MODEL_WAIT_S = 180.0


def _engine(ctx: ServiceContext) -> RecallEngine:
    """The loaded engine, waiting for a model that is still loading."""
    deadline = time.monotonic() + MODEL_WAIT_S
    while ctx.engine is None and ctx.engine_error is None and time.monotonic() < deadline:
        time.sleep(0.2)
    if ctx.engine is None:
        raise InvalidInput(ctx.engine_error or "the model did not finish loading; try again")
    return ctx.engine


@operation("verify", service=True)
def verify(ctx: ServiceContext, file: Any = None, where: Any = None, field: Any = None) -> dict[str, Any]:
    """A cases file (its own memories in a throwaway store, or the user's pool), or one file of
    the public form (core/recall/public_sets.py; `field`: which text of each item to send)."""
    from ..recall import public_sets
    from ..recall import verify as verify_mod

    if public_sets.is_public(file):
        public = public_sets.parse(file, str(where or "the public set"), str(field or "prompt"))
        return public_sets.run(_engine(ctx).encoder, public)
    case_file = verify_mod.parse(file, str(where or "the cases"))
    engine = _engine(ctx)
    if case_file.pool is not None:
        return verify_mod.run_with_pool(engine.encoder, case_file)
    return verify_mod.run(engine, case_file.cases, actions_=case_file.actions)


@operation("rebuild_index", service=True)
def rebuild_index(ctx: ServiceContext) -> dict[str, Any]:
    from ..store import vectors

    engine = _engine(ctx)
    backup = vectors.backup(ctx.store)
    vectors.clear(ctx.store)
    started = time.perf_counter()
    engine.sync_all()
    return {
        "model": engine.encoder.model_id,
        "encoded": len(engine.index),
        "seconds": round(time.perf_counter() - started, 2),
        "backup": str(backup) if backup else None,
    }


@operation("build_background", service=True)
def build_background(ctx: ServiceContext) -> dict[str, Any]:
    from ..encoder import background

    engine = _engine(ctx)
    target = background.build(engine.encoder)
    engine.background = background.ensure(engine.encoder)
    engine.recentre()  # the index and the generic prompts are centred with the mean: again
    return {"model": engine.encoder.model_id, "path": str(target), "sentences": len(background.sentences())}


@operation("backfill_scan", service=True)
def backfill_scan(ctx: ServiceContext, prompts: Any = None) -> dict[str, Any]:
    """`memevo backfill`: candidates in the user's past prompts (read by the command from the
    clients' transcripts), found with the loaded encoder against the memories there are."""
    from ..importers import backfill

    if not isinstance(prompts, list):
        raise InvalidInput("backfill_scan needs prompts (a list)")
    return backfill.run(ctx.store, _engine(ctx).encoder, prompts)
