"""The fixed background mean per model.

It is subtracted from every vector before the cosine (then re-normalised). Raw cosines of
short texts crowd into 0.75-1.0; without the shared direction they spread enough for
per-category thresholds. It depends only on shipped sentences, never on the memory pool,
so a pool of one memory still recalls.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

import numpy as np

from .. import atomic, paths
from ..resources_access import read_json, read_text
from .encoder import Encoder
from .models import folder_name

SENTENCES = "background-sentences.json"


def sentences() -> list[str]:
    return [str(s) for s in read_json(SENTENCES)["sentences"]]


def sentences_digest() -> str:
    return hashlib.sha256(read_text(SENTENCES).encode("utf-8")).hexdigest()[:16]


def user_path(model_id: str) -> Path:
    return paths.data_dir() / "background" / f"{folder_name(model_id)}.json"


def shipped_name(model_id: str) -> str:
    return f"models/{folder_name(model_id)}.background.json"


def user_then_shipped(user_file: Path, shipped: str) -> list[dict[str, object]]:
    """A per-model document as built into the data dir, then as shipped: each one that reads
    (the caller checks which is current). Shared with the generic prompts' vectors."""
    candidates: list[dict[str, object]] = []
    with contextlib.suppress(OSError, ValueError):
        candidates.append(json.loads(user_file.read_text(encoding="utf-8")))
    with contextlib.suppress(OSError, ValueError):
        candidates.append(read_json(shipped))
    return [c for c in candidates if isinstance(c, dict)]


def load(model_id: str) -> np.ndarray | None:
    """The user's rebuilt mean if any, else the one shipped for this model."""
    for data in user_then_shipped(user_path(model_id), shipped_name(model_id)):
        if data.get("model") == model_id and isinstance(data.get("mean"), list):
            return np.asarray(data["mean"], dtype=np.float32)
    return None


def compute(encoder: Encoder) -> np.ndarray:
    vectors = encoder.encode(sentences())
    return np.asarray(vectors.mean(axis=0), dtype=np.float32)


def build(encoder: Encoder, target: Path | None = None) -> Path:
    mean = compute(encoder)
    target = target or user_path(encoder.model_id)
    data = {
        "model": encoder.model_id,
        "sentences_sha256": sentences_digest(),
        "count": len(sentences()),
        "mean": [round(float(x), 7) for x in mean],
    }
    atomic.write_text(target, json.dumps(data) + "\n")
    return target


def ensure(encoder: Encoder) -> np.ndarray:
    mean = load(encoder.model_id)
    if mean is None:
        build(encoder)
        mean = load(encoder.model_id)
    assert mean is not None
    return mean


def center(vectors: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Subtract the background and re-normalise, row by row."""
    shifted = np.asarray(vectors, dtype=np.float32) - mean
    norms = np.linalg.norm(shifted, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.asarray(shifted / norms, dtype=np.float32)
