"""The fixed background per model: a mean, and the direction that tells the languages apart.

The mean is subtracted from every vector before the cosine (then re-normalised). Raw cosines
of short texts crowd into 0.75-1.0; without the shared direction they spread enough for
per-category thresholds. It depends only on shipped sentences, never on the memory pool,
so a pool of one memory still recalls.

The sentences are the same 32 statements in Chinese and in English. The difference of the two
languages' means is a direction every text carries by its language alone, whatever it says:
along it a Chinese prompt is far from an English memory that says the same thing, which is why
cross-lingual prompts were hardly ever recalled without cues (8 of the verify set's 54). For a
model whose entry asks for it (models.py `language_neutral`), that direction is also taken out
of every centred vector (Libovický et al., 2020, "On the language neutrality of pre-trained
multilingual representations": removing language-specific means). It is the same linear step for memories,
prompts, cues and the generic prompts, so nothing needs to know a text's language.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import atomic, paths
from ..resources_access import read_json, read_text
from .encoder import Encoder
from .models import folder_name

SENTENCES = "background-sentences.json"
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Background:
    """What `center` takes off: the mean, and (a unit vector) the language direction, or None."""

    mean: np.ndarray
    language: np.ndarray | None = None

    def without_language(self) -> Background:
        return Background(self.mean)


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


def load(model_id: str) -> Background | None:
    """The user's rebuilt background if any, else the one shipped for this model. A document
    from before the language direction was kept is not current (it is rebuilt)."""
    for data in user_then_shipped(user_path(model_id), shipped_name(model_id)):
        mean, language = data.get("mean"), data.get("language")
        if data.get("model") != model_id or not isinstance(mean, list):
            continue
        if not isinstance(language, list):
            return None  # the user's own build from an older release: build it again
        return Background(np.asarray(mean, dtype=np.float32), np.asarray(language, dtype=np.float32))
    return None


def language_direction(texts: list[str], vectors: np.ndarray) -> np.ndarray:
    """The unit vector from the mean of the texts without Chinese to the mean of those with."""
    chinese = np.asarray([bool(_CJK.search(t)) for t in texts])
    if chinese.all() or not chinese.any():
        raise ValueError(f"{SENTENCES} needs sentences in Chinese and in English")
    direction = vectors[chinese].mean(axis=0) - vectors[~chinese].mean(axis=0)
    return np.asarray(direction / np.linalg.norm(direction), dtype=np.float32)


def compute(encoder: Encoder) -> Background:
    texts = sentences()
    vectors = encoder.encode(texts)
    return Background(np.asarray(vectors.mean(axis=0), dtype=np.float32), language_direction(texts, vectors))


def build(encoder: Encoder, target: Path | None = None) -> Path:
    computed = compute(encoder)
    assert computed.language is not None
    target = target or user_path(encoder.model_id)
    data = {
        "model": encoder.model_id,
        "sentences_sha256": sentences_digest(),
        "count": len(sentences()),
        "mean": [round(float(x), 7) for x in computed.mean],
        "language": [round(float(x), 7) for x in computed.language],
    }
    atomic.write_text(target, json.dumps(data) + "\n")
    return target


def ensure(encoder: Encoder) -> Background:
    """The model's background as recall uses it: the language direction only for a model whose
    entry is calibrated with it taken out."""
    found = known(encoder)
    if found is None:
        build(encoder)
        found = known(encoder)
    assert found is not None
    return found


def known(encoder: Encoder) -> Background | None:
    """ensure()'s answer when the background is already built or shipped (None: it must be
    built, with the model): read without loading the model."""
    found = load(encoder.model_id)
    if found is None:
        return None
    return found if encoder.entry.language_neutral else found.without_language()


def center(vectors: np.ndarray, background: Background | np.ndarray) -> np.ndarray:
    """Subtract the background mean, take out the language direction (when there is one), and
    re-normalise, row by row. A bare array is a mean alone."""
    if not isinstance(background, Background):
        background = Background(np.asarray(background, dtype=np.float32))
    shifted = np.asarray(vectors, dtype=np.float32) - background.mean
    if background.language is not None:
        shifted -= np.outer(shifted @ background.language, background.language)
    norms = np.linalg.norm(shifted, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.asarray(shifted / norms, dtype=np.float32)
