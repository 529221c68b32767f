"""One consolidation pass over the store: the live memories' vectors in bulk, the findings,
and proposals for the new ones (proposals.py). Runs in the service (it needs the model's
background to centre the vectors as recall does): on demand (`memevo consolidate`, the
panel, MCP) and after the daily maintenance, off every hook's path."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..encoder.background import center
from ..errors import InvalidInput
from ..memories import live as memories
from ..store import vectors
from . import find, proposals
from .thresholds import for_model

if TYPE_CHECKING:
    from ..clock import Clock
    from ..recall.engine import RecallEngine
    from ..store.database import Store


def scan(store: Store, engine: RecallEngine) -> list[find.Finding]:
    thresholds = for_model(engine.encoder.model_id)
    if thresholds is None:
        raise InvalidInput(
            f"consolidation has no calibrated thresholds for the model {engine.encoder.model_id}"
        )
    # Only the stored vectors: the engine encodes what a write changed (its own sync, on the
    # writer's path); a memory without a current vector yet waits for the next pass.
    live = {m.id: m for m in memories.live(store)}
    ids: list[str] = []
    texts: list[str] = []
    blocks: list[np.ndarray] = []
    for pool in vectors.iter_pool(store, engine.encoder.model_id):
        keep = [n for n, i in enumerate(pool.ids) if i in live]
        if not keep:
            continue
        ids += [pool.ids[n] for n in keep]
        texts += [pool.texts[n] for n in keep]
        blocks.append(center(pool.matrix[keep], engine.background))
    if len(ids) < 2:
        return []
    matrix = np.concatenate(blocks)
    scope_code: dict[str | None, int] = {}
    groups = np.asarray([scope_code.setdefault(live[i].scope, len(scope_code)) for i in ids], dtype=np.int64)
    return find.find(proposals.members_of(ids, texts, live), matrix, groups, thresholds)


def run(
    store: Store,
    clock: Clock,
    engine: RecallEngine,
    merge_text: Callable[[list[memories.Memory]], str | None] | None = None,
    limit: int = proposals.MAX_NEW,
) -> dict[str, Any]:
    started = time.monotonic()
    findings = scan(store, engine)
    report = proposals.propose(store, clock, findings, merge_text, limit)
    report["duplicates"] = sum(f.kind == "duplicate" for f in findings)
    report["contradictions"] = sum(f.kind == "contradiction" for f in findings)
    report["seconds"] = round(time.monotonic() - started, 2)
    return report
