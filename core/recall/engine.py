"""Recall end to end: filter the prompt, encode it, search, gate, award.

The engine belongs to the process that owns the store and the encoder (the service; the
CLI for `verify` and `bench`). Stale vectors are encoded before searching, so a memory
added by any path is recallable from the next prompt.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from .. import config as config_mod
from .. import memories, vectors
from ..clock import Clock, SystemClock
from ..encoder import background
from ..encoder.encoder import Encoder
from ..errors import StoreBusy
from ..store import Store
from .gate import GateSettings, gate_category
from .index import MemoryIndex
from .textfilter import recall_input

log = logging.getLogger("memevo.recall")
AWARD_LOCK_WAIT_S = 0.3


@dataclass
class Hit:
    id: str
    category: str
    text: str
    score: float

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "category": self.category, "text": self.text, "score": round(self.score, 4)}


@dataclass
class RecallResult:
    rules: list[Hit] = field(default_factory=list)
    projects: list[Hit] = field(default_factory=list)
    skipped: str | None = None  # why there was no recall at all
    awarded: dict[str, int] = field(default_factory=dict)

    @property
    def hits(self) -> list[Hit]:
        return self.rules + self.projects


class RecallEngine:
    def __init__(self, store: Store, encoder: Encoder, clock: Clock | None = None) -> None:
        self.store = store
        self.encoder = encoder
        self.clock = clock or SystemClock()
        self.background = background.ensure(encoder)
        self.index = MemoryIndex(encoder.dim, self.background)
        self.sync_all()

    # -- keeping the index in sync with the store --------------------------------------------------
    def encode_stale(self, batch: int = 256) -> int:
        pending = vectors.stale(self.store, self.encoder.model_id)
        for start in range(0, len(pending), batch):
            chunk = pending[start : start + batch]
            vectors.save(self.store, self.encoder.model_id, chunk, self.encoder.encode([t for _, t in chunk]))
        return len(pending)

    def sync_all(self) -> None:
        self.encode_stale()
        index = MemoryIndex(self.encoder.dim, self.background)
        index.reserve(vectors.count_pool(self.store, self.encoder.model_id) + 1024)
        for batch in vectors.iter_pool(self.store, self.encoder.model_id):
            index.upsert_pool(batch)
        self.index = index

    def sync_ids(self, ids: list[str]) -> None:
        """After a change to these memories: re-encode what is stale and refresh their rows."""
        self.encode_stale()
        pool = vectors.load_pool_for(self.store, self.encoder.model_id, ids)
        present = set(pool.ids)
        self.index.remove([i for i in ids if i not in present])
        self.index.upsert_pool(pool)

    # -- recall --------------------------------------------------------------------------------------
    def settings(self) -> GateSettings:
        return GateSettings.from_config(config_mod.load().values, self.encoder.entry)

    def ranked(self, text: str, limit: int) -> dict[str, list[tuple[str, float]]]:
        return self.index.ranked(self.encoder.encode_one(text), limit)

    def recall(
        self, prompt: str, *, award: bool = True, settings: GateSettings | None = None
    ) -> RecallResult:
        text = recall_input(prompt)
        if text is None:
            return RecallResult(skipped="input outside 6–500 characters after removing code and logs")
        settings = settings or self.settings()
        ranked = self.ranked(text, max(settings.top_k, 2))
        result = RecallResult()
        kept = {
            category: gate_category(
                ranked[category], settings.minimum(category), settings.top_k, settings.margin
            )
            for category in ("rule", "project")
        }
        for category, pairs in kept.items():
            hits = [Hit(i, category, self.index.text(i) or "", s) for i, s in pairs]
            setattr(result, "rules" if category == "rule" else "projects", hits)
        if award and result.hits:
            result.awarded = self._award([h.id for h in result.hits])
        return result

    def _award(self, ids: list[str]) -> dict[str, int]:
        try:
            return memories.award_recall(self.store, ids, self.clock, lock_wait_s=AWARD_LOCK_WAIT_S)
        except StoreBusy as exc:
            log.warning("recall award skipped for %s: %s", ",".join(ids), exc)
            return {}
