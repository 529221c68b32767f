"""How close a prompt is to a question that needs no memory.

A textbook question on a memory's own topic (「Docker 镜像太大了，多阶段构建怎么用」 beside the
rule about pinning base images) scores like a related prompt: the words and the meaning are
the memory's, only the intent differs. The pattern damping (concepts.textbook_question)
catches "what is X" and 「X 和 Y 的区别」; this catches the rest by example. The shipped list
(`resources/generic-prompts.json`: general-knowledge and interview questions, error meanings,
small talk — none acting on the user's own code or project) is encoded once per model, and a
prompt's closeness is its best centred cosine to any of them. The engine takes
weight x (closeness − from) off the fused score of a prompt closer than `from` (calibrated
with the gate, core/recall/gate_defaults.py); tool calls are never damped.

The vectors are stored raw (before the background is subtracted), as float16, so a rebuilt
background still applies: shipped for the default model under `resources/models/`, built
and kept in the data dir for any other model (or after the list changed).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
from pathlib import Path

import numpy as np

from .. import atomic, paths
from ..encoder.background import Background, center, user_then_shipped
from ..encoder.encoder import Encoder
from ..encoder.models import folder_name
from ..resources_access import read_json

PROMPTS = "generic-prompts.json"


def prompts() -> list[str]:
    return [str(p) for p in read_json(PROMPTS)["prompts"]]


def prompts_digest() -> str:
    """Of the prompts themselves (the file's note can change without making vectors stale)."""
    return hashlib.sha256(json.dumps(prompts(), ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


def user_path(model_id: str) -> Path:
    return paths.data_dir() / "generic" / f"{folder_name(model_id)}.json"


def shipped_name(model_id: str) -> str:
    return f"models/{folder_name(model_id)}.generic.json"


def _decode(data: dict[str, object], model_id: str, digest: str, dim: int) -> np.ndarray | None:
    if data.get("model") != model_id or data.get("prompts_sha256") != digest:
        return None  # another model's, or made from an older list
    raw = data.get("vectors")
    if not isinstance(raw, str):
        return None
    count = data.get("count")
    flat = np.frombuffer(base64.b64decode(raw), dtype="<f2")
    if not isinstance(count, int) or flat.size != count * dim:
        return None
    return flat.reshape(-1, dim).astype(np.float32)


def load(model_id: str, dim: int) -> np.ndarray | None:
    """The vectors built in the data dir if current, else the shipped ones if current."""
    digest = prompts_digest()
    for data in user_then_shipped(user_path(model_id), shipped_name(model_id)):
        with contextlib.suppress(ValueError, TypeError):
            vectors = _decode(data, model_id, digest, dim)
            if vectors is not None:
                return vectors
    return None


def encode_document(encoder: Encoder) -> dict[str, object]:
    vectors = encoder.encode(prompts())
    return {
        "model": encoder.model_id,
        "prompts_sha256": prompts_digest(),
        "count": int(vectors.shape[0]),
        "dtype": "float16",
        "vectors": base64.b64encode(np.asarray(vectors, dtype="<f2").tobytes()).decode("ascii"),
    }


def build(encoder: Encoder, target: Path | None = None) -> Path:
    target = target or user_path(encoder.model_id)
    atomic.write_text(target, json.dumps(encode_document(encoder)) + "\n", mode=0o600)
    return target


def ensure(encoder: Encoder) -> np.ndarray:
    vectors = load(encoder.model_id, encoder.dim)
    if vectors is None:
        build(encoder)
        vectors = load(encoder.model_id, encoder.dim)
    assert vectors is not None
    return vectors


class Closeness:
    """The prompts' centred vectors; `of` gives a centred query's best cosine to them."""

    def __init__(self, raw: np.ndarray, background: Background | np.ndarray) -> None:
        self.matrix = center(raw, background)

    @classmethod
    def of_model(cls, encoder: Encoder, background: Background) -> Closeness:
        """The shipped prompts' for this model (built into the data dir first if need be)."""
        return cls(ensure(encoder), background)

    @classmethod
    def empty(cls, dim: int, background: Background) -> Closeness:
        """No prompts: every closeness is 0 (a model whose gate does not damp them)."""
        return cls(np.zeros((0, dim), np.float32), background)

    def of(self, centred_query: np.ndarray) -> float:
        if not len(self.matrix):
            return 0.0
        return float(np.max(self.matrix @ centred_query))


def damping(closeness: float, start: float, weight: float) -> float:
    """What a prompt this close loses from its fused score."""
    return weight * max(0.0, closeness - start)
