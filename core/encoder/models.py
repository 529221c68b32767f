"""Known embedding models and what each needs: its prefix and its calibrated recall minimums.

The minimums are a property of the model (and of the background mean), not of the gate:
the Node tool's 0.22 / 0.29 belong to bge-base-zh and do not carry over. They were
calibrated with `memevo verify` on tests/data/recall-set.json (docs/recall.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .. import envvars, paths

DEFAULT_MODEL = "intfloat/multilingual-e5-small"


@dataclass(frozen=True)
class ModelEntry:
    id: str
    # E5 compares short texts with the "query: " prefix on both sides.
    prefix: str
    dim: int | None
    recall_min_rule: float
    recall_min_project: float
    calibrated: bool
    offline_pack: bool = False
    # Calibrated with the background's language direction taken out (background.py): the
    # minimums above hold only in that space.
    language_neutral: bool = False


# Any other model's minimums until `memevo verify` is run for it (the default model's, from
# before its vectors were made language-neutral).
UNCALIBRATED_MIN_RULE, UNCALIBRATED_MIN_PROJECT = 0.44, 0.50


KNOWN: dict[str, ModelEntry] = {
    DEFAULT_MODEL: ModelEntry(
        DEFAULT_MODEL,
        prefix="query: ",
        dim=384,
        recall_min_rule=0.47,
        recall_min_project=0.54,
        calibrated=True,
        offline_pack=True,
        language_neutral=True,
    ),
    "BAAI/bge-base-zh-v1.5": ModelEntry(
        "BAAI/bge-base-zh-v1.5",
        prefix="",
        dim=768,
        recall_min_rule=0.22,
        recall_min_project=0.29,
        calibrated=False,  # the Node tool's values, for its own background mean
    ),
}


def entry_for(model_id: str) -> ModelEntry:
    """A known model's entry; any other sentence-transformers model gets the default minimums
    until `memevo verify` has been run and recallMinScore / recallMinScoreProject set."""
    known = KNOWN.get(model_id)
    if known:
        return known
    prefix = "query: " if "e5" in model_id.lower() else ""
    return ModelEntry(model_id, prefix, None, UNCALIBRATED_MIN_RULE, UNCALIBRATED_MIN_PROJECT, False)


def models_dir() -> Path:
    """All provisioned models; MEMEVO_MODELS_DIR shares one copy (tests, several data dirs)."""
    override = envvars.MODELS_DIR.get()
    return Path(override).expanduser() if override else paths.data_dir() / "models"


def folder_name(model_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "__", model_id)


def model_folder(model_id: str) -> Path:
    if Path(model_id).expanduser().is_absolute():
        return Path(model_id).expanduser()  # a local folder the user points at
    return models_dir() / folder_name(model_id)


def needs_torch(model_id: str) -> str:
    """Why a model other than the default cannot run here (the packaged program has no torch)."""
    return (
        f"{model_id} runs on sentence-transformers and torch, which this installation does not "
        f"include: the packaged program runs only the default model, {DEFAULT_MODEL}. For another "
        "model install memevo with pip (`pip install torch==2.13.0 memory-self-evolution`)"
    )
