"""The recall gate (the seed's mechanism), as a pure function of scores and settings.

rule and project are gated separately: each keeps scores at or above
max(its minimum, its own top1 x 0.6), then at most recallTopK. With recallMinMargin on, a
category whose top1 does not lead its second by the margin injects only its top1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..encoder.models import ModelEntry

RELATIVE_KEEP = 0.6
OFF = -1


@dataclass(frozen=True)
class GateSettings:
    top_k: int
    min_rule: float
    min_project: float
    margin: float

    def minimum(self, category: str) -> float:
        return self.min_rule if category == "rule" else self.min_project

    @classmethod
    def from_config(cls, values: dict[str, Any], entry: ModelEntry) -> GateSettings:
        def minimum(key: str, default: float) -> float:
            value = values.get(key)
            return default if value is None else float(value)

        return cls(
            top_k=int(values.get("recallTopK") or 3),
            min_rule=minimum("recallMinScore", entry.recall_min_rule),
            min_project=minimum("recallMinScoreProject", entry.recall_min_project),
            margin=float(values.get("recallMinMargin", OFF)),
        )


def gate_category(
    ranked: list[tuple[str, float]], minimum: float, top_k: int, margin: float
) -> list[tuple[str, float]]:
    """ranked: (id, score) best first, live memories of one category only."""
    if not ranked:
        return []
    top1 = ranked[0][1]
    floor = top1 * RELATIVE_KEEP
    if minimum != OFF:
        floor = max(floor, minimum)
    kept = [(i, s) for i, s in ranked[:top_k] if s >= floor]
    if kept and margin != OFF and margin > 0 and len(ranked) > 1 and top1 - ranked[1][1] < margin:
        return kept[:1]
    return kept
