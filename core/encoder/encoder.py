"""The sentence encoder: loaded once by the process that owns the store, never by a hook."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from .models import ModelEntry, entry_for


def load_sentence_transformer(folder: Path) -> Any:
    import transformers
    from sentence_transformers import SentenceTransformer

    transformers.logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    transformers.logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    return SentenceTransformer(str(folder), device="cpu", local_files_only=True)


class Encoder:
    """Normalised float32 vectors for texts, with the model's prefix applied."""

    def __init__(self, model_id: str, folder: Path) -> None:
        self.model_id = model_id
        self.folder = folder
        self.entry: ModelEntry = entry_for(model_id)
        self._model: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        with self._lock:
            if self._model is None:
                self._model = load_sentence_transformer(self.folder)

    @property
    def dim(self) -> int:
        self.load()
        return int(self._model.get_embedding_dimension())

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        self.load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        prefixed = [self.entry.prefix + text for text in texts]
        vectors = self._model.encode(
            prefixed, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def encode_one(self, text: str) -> np.ndarray:
        """The per-prompt path: straight through the modules, skipping encode()'s batching."""
        import torch

        self.load()
        model = self._model
        with torch.inference_mode():
            features = model.preprocess([self.entry.prefix + text])
            features = {k: v.to(model.device) if hasattr(v, "to") else v for k, v in features.items()}
            vector = model.forward(features)["sentence_embedding"][0]
        return np.ascontiguousarray(vector.float().cpu().numpy(), dtype=np.float32)
