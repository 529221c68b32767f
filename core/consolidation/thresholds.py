"""The shipped consolidation thresholds, per model.

Chosen by `python -m memevo.core.consolidation.calibrate` on the labelled pairs in
resources/consolidation-pairs.json (duplicates in other words, contradictions, related but
distinct facts, unrelated ones; Chinese, English and mixed): the values the search picks on
all pairs. tests/test_consolidation.py runs the same search and holds these.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Thresholds:
    # a duplicate: no conflicting value, and cosine + lexical_weight x lexical at least this
    duplicate_min: float
    lexical_weight: float
    # a contradiction: a conflicting value, cosine at least this and the frames this alike
    contradiction_min: float
    frame_min: float

    def floor(self) -> float:
        """The lowest cosine either kind can start at: the bulk search keeps pairs above it."""
        return min(self.duplicate_min - self.lexical_weight, self.contradiction_min)


CALIBRATED: dict[str, Thresholds] = {
    "intfloat/multilingual-e5-small": Thresholds(
        duplicate_min=0.86, lexical_weight=0.5, contradiction_min=0.57, frame_min=0.8
    ),
}


def for_model(model_id: str) -> Thresholds | None:
    return CALIBRATED.get(model_id)


def classify(cosine: float, lexical: float, frame: float, conflict: str | None, t: Thresholds) -> str | None:
    """ "duplicate", "contradiction" or None (related, unrelated: left alone)."""
    if conflict is not None:
        return "contradiction" if cosine >= t.contradiction_min and frame >= t.frame_min else None
    return "duplicate" if cosine + t.lexical_weight * lexical >= t.duplicate_min else None
