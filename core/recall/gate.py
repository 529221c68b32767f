"""The recall gate (the seed's mechanism), as a pure function of scores and settings.

The score is the hybrid one (cosine and BM25 fused, see engine.py) unless the lexical weight
is 0.

rule and project are gated separately: each keeps scores at or above
max(its minimum, its own top1 x 0.6), then at most recallTopK. With recallMinMargin on, a
category whose top1 does not lead its second by the margin injects only its top1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..encoder.models import ModelEntry
from . import gate_defaults

RELATIVE_KEEP = 0.6
OFF = -1


@dataclass(frozen=True)
class GateSettings:
    """The minimums apply to the fused score: cosine + lexical_weight x lexical, less
    question_damping for a textbook question and the generic damping for a prompt close to a
    question that needs no memory. With lexical_weight 0 it is the cosine alone,
    gated by the model's cosine minimums (the gate before hybrid recall)."""

    top_k: int
    min_rule: float
    min_project: float
    margin: float
    lexical_weight: float = 0.0
    question_damping: float = 0.0
    use_cues: bool = False
    cue_offset_rule: float = 0.0
    cue_offset_project: float = 0.0
    # A prompt whose closeness to the generic prompts (generic.py) passes `generic_from` loses
    # generic_weight x the excess; 0: off (cosine only, or a model without a hybrid calibration).
    generic_from: float = 1.0
    generic_weight: float = 0.0
    # A cross-language pair's cosine gains this x the difference of the two texts' shares of
    # Chinese (crossing.py); 0: off.
    cross_language: float = 0.0
    # A prompt of several sentences is also searched with each sentence's vector, the best
    # cosine counting (sentences.py).
    sentences: bool = False

    def minimum(self, category: str) -> float:
        return self.min_rule if category == "rule" else self.min_project

    def cue_offset(self, category: str) -> float:
        return self.cue_offset_rule if category == "rule" else self.cue_offset_project

    @classmethod
    def from_config(cls, values: dict[str, Any], entry: ModelEntry) -> GateSettings:
        def number(key: str, default: float) -> float:
            value = values.get(key)
            return default if value is None else float(value)

        hybrid = gate_defaults.for_model(entry.id)
        weight = number("recallLexicalWeight", hybrid.lexical_weight if hybrid else 0.0)
        use_cues = False
        if weight > 0 and hybrid is not None:
            min_rule, min_project, damping = hybrid.min_rule, hybrid.min_project, hybrid.question_damping
            use_cues = hybrid.cues and values.get("recallCues", True) is not False
        else:  # cosine only, or a weight set for a model without a hybrid calibration
            min_rule, min_project, damping = entry.recall_min_rule, entry.recall_min_project, 0.0
        return cls(
            top_k=int(values.get("recallTopK") or 3),
            min_rule=number("recallMinScore", min_rule),
            min_project=number("recallMinScoreProject", min_project),
            margin=float(values.get("recallMinMargin", OFF)),
            lexical_weight=max(0.0, weight),
            question_damping=damping,
            use_cues=use_cues,
            cue_offset_rule=hybrid.cue_offset_rule if use_cues and hybrid else 0.0,
            cue_offset_project=hybrid.cue_offset_project if use_cues and hybrid else 0.0,
            generic_from=hybrid.generic_from if weight > 0 and hybrid else 1.0,
            generic_weight=hybrid.generic_weight if weight > 0 and hybrid else 0.0,
            cross_language=hybrid.cross_language if weight > 0 and hybrid else 0.0,
            sentences=bool(hybrid and weight > 0 and hybrid.sentences),
        )


# The keys whose unset value is the model's (config.MODEL_DEFAULT), and what each reads of the gate.
MODEL_KEYS: dict[str, Callable[[GateSettings], float]] = {
    "recallMinScore": lambda gate: gate.min_rule,
    "recallMinScoreProject": lambda gate: gate.min_project,
    "recallLexicalWeight": lambda gate: gate.lexical_weight,
}


def model_defaults(values: dict[str, Any], entry: ModelEntry) -> dict[str, float]:
    """What recall uses for each of MODEL_KEYS when that key is left unset and the others are as
    configured: the calibrated hybrid values, or the cosine minimums once the lexical weight is
    0. The one answer `memevo config` and the settings page give."""
    out: dict[str, float] = {}
    for key, read in MODEL_KEYS.items():
        gate = GateSettings.from_config({k: v for k, v in values.items() if k != key}, entry)
        out[key] = float(read(gate))
    return out


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
