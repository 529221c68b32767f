"""The sentence encoder: loaded once by the process that owns the store, never by a hook."""

from __future__ import annotations

import logging
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from .. import envvars
from ..errors import MemevoError
from .models import ModelEntry, entry_for, needs_torch

log = logging.getLogger("memevo.encoder")


class TorchMissing(MemevoError):
    """A folder that only sentence-transformers can run, where it is not installed."""


def load_sentence_transformer(folder: Path) -> Any:
    try:
        import transformers
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:  # the packaged program leaves torch out (packaging/README.md)
        raise TorchMissing(needs_torch(str(folder)) + f" ({exc})") from exc

    transformers.logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    transformers.logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    halve_word_embeddings(model)
    release_free_memory()
    return model


def halve_word_embeddings(model: Any) -> bool:
    """Keep the word-embedding table in float16 when that loses nothing.

    A multilingual vocabulary makes it most of the model (multilingual-e5-small: 96M of 118M
    parameters, 384 MB as float32) and our weights ship as float16 anyway, so the float32 copy
    transformers makes holds no extra information. Rows are looked up in float16 and widened
    to float32, so every vector is bit-identical (tested); the service keeps half the table's size less."""
    import torch

    try:
        embeddings = model[0].auto_model.embeddings
        table = embeddings.word_embeddings
    except (AttributeError, IndexError, KeyError, TypeError):
        return False
    if not isinstance(table, torch.nn.Embedding) or table.weight.dtype != torch.float32:
        return False
    half = table.weight.detach().to(torch.float16)
    if not torch.equal(half.to(torch.float32), table.weight.detach()):
        return False  # the weights really are float32: keep them
    embeddings.word_embeddings = half_embedding(half, table.padding_idx)
    return True


_HALF_EMBEDDING: Any = None


def half_embedding(weight: Any, padding_idx: int | None) -> Any:
    """An nn.Module (made on first use: torch is imported lazily) looking rows up in float16."""
    global _HALF_EMBEDDING
    if _HALF_EMBEDDING is None:
        import torch

        class _HalfEmbedding(torch.nn.Module):
            def __init__(self, table: Any, padding: int | None) -> None:
                super().__init__()
                self.register_buffer("weight", table, persistent=False)
                self.padding_idx = padding

            def forward(self, ids: Any) -> Any:
                table: Any = self.weight
                return torch.nn.functional.embedding(ids, table).to(torch.float32)

        _HALF_EMBEDDING = _HalfEmbedding
    return _HALF_EMBEDDING(weight, padding_idx)


def release_free_memory() -> None:
    """Loading leaves freed float16/float32 staging copies in glibc's heap; give them back."""
    from ..process import native_heap

    native_heap.trim()


BACKENDS = ("onnx", "sentence-transformers")
MAX_BATCH = 16  # waiting single texts encoded together (short prompts: one graph run)
# A diagnostic override (bench comparisons, bug reports): MEMEVO_ENCODER=sentence-transformers.
BACKEND_ENV = envvars.ENCODER.name


def choose_backend(folder: Path) -> str:
    """onnx for a folder whose exported graph passed its checks, else sentence-transformers."""
    from .onnx_encoder import graph_ready

    forced = os.environ.get(BACKEND_ENV, "").strip()
    if forced in BACKENDS:
        return forced if forced != "onnx" or graph_ready(folder) else "sentence-transformers"
    return "onnx" if graph_ready(folder) else "sentence-transformers"


class SentenceTransformerModel:
    """Any sentence-transformers folder, run by torch (models other than the default)."""

    def __init__(self, folder: Path) -> None:
        self.model = load_sentence_transformer(folder)
        self.dim = int(self.model.get_embedding_dimension())

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        vectors = self.model.encode(
            texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def encode_one(self, text: str) -> np.ndarray:
        """The per-prompt path: straight through the modules, skipping encode()'s batching."""
        import torch

        model = self.model
        with torch.inference_mode():
            features = model.preprocess([text])
            features = {k: v.to(model.device) if hasattr(v, "to") else v for k, v in features.items()}
            vector = model.forward(features)["sentence_embedding"][0]
        return np.ascontiguousarray(vector.float().cpu().numpy(), dtype=np.float32)


class Encoder:
    """Normalised float32 vectors for texts, with the model's prefix applied.

    The default model runs on onnxruntime once provisioning has exported and checked its
    graph (onnx_encoder.py); any other model, or a folder without the graph, runs on
    sentence-transformers. Both give the same vectors for the default model (tested)."""

    def __init__(self, model_id: str, folder: Path, backend: str | None = None) -> None:
        self.model_id = model_id
        self.folder = folder
        self.entry: ModelEntry = entry_for(model_id)
        if backend is not None and backend not in BACKENDS:
            raise ValueError(f"unknown encoder backend {backend!r} (known: {', '.join(BACKENDS)})")
        self.backend = backend or choose_backend(folder)
        self._model: Any = None
        self._lock = threading.Lock()
        # One encode at a time, on one lane: overlapping requests on several threads made every
        # later torch encode much slower for the service's life (docs/performance-journal.md,
        # 2026-11-30); on 2 cores two encodes at once only share the same cores anyway, so they
        # queue here instead, and what waits is encoded as one batch.
        self._lane = ThreadPoolExecutor(1, thread_name_prefix="memevo-encode")
        self._pending: list[tuple[str, Future[np.ndarray]]] = []  # single texts waiting for the lane
        self._pending_lock = threading.Lock()
        # Held by whatever runs the model: the lane, or (onnxruntime) a caller with the model idle
        # and nobody waiting, who then encodes on its own thread, two thread hops fewer.
        self._running = threading.Lock()
        self.huge_page_bytes = 0  # of the loaded model's memory (core/process/native_heap.py)

    def load(self) -> None:
        with self._lock:
            if self._model is None:
                if self.backend == "onnx":
                    from ..process import native_heap
                    from .onnx_encoder import OnnxEncoderModel

                    huge = native_heap.NewMemoryInHugePages()
                    self._model = OnnxEncoderModel(self.folder)
                    release_free_memory()
                    # The weights are read whole on every encode: in huge pages an encode is
                    # faster, a first one after a pause most (`memevo bench --json`: encode_ms)
                    started = time.monotonic()
                    self.huge_page_bytes = huge.collapse()
                    log.info(
                        "%d MB of the model's memory in huge pages (%.2f s)",
                        self.huge_page_bytes >> 20,
                        time.monotonic() - started,
                    )
                else:
                    self._model = SentenceTransformerModel(self.folder)

    def release_pages(self) -> None:
        """At rest, between bursts of requests (the service's idle trim): the loaded model lets
        go of pages it can map again from its files. Never loads the model."""
        model = self._model
        release = getattr(model, "release_pages", None)
        if release is not None:
            release()

    @property
    def dim(self) -> int:
        self.load()
        return int(self._model.dim)

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        self.load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        prefixed = [self.entry.prefix + text for text in texts]
        vectors: np.ndarray = self._lane.submit(self._run_batch, prefixed, batch_size).result()
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def _run_batch(self, texts: list[str], batch_size: int) -> np.ndarray:
        with self._running:
            vectors: np.ndarray = self._model.encode(texts, batch_size)
            return vectors

    def encode_one(self, text: str) -> np.ndarray:
        """One text, for a request. Requests that arrive while the lane is busy are encoded
        together in one batch when it frees: eight prompts at once on two cores then cost one
        run of the graph, not eight in a row (vectors equal to a lone encode within 1e-7)."""
        self.load()
        prefixed = self.entry.prefix + text
        # onnxruntime runs from any thread alike (torch did not: it stays on the lane)
        with self._pending_lock:
            inline = self.backend == "onnx" and not self._pending and self._running.acquire(blocking=False)
        if inline:
            try:
                vector: np.ndarray = self._model.encode_one(prefixed)
            finally:
                self._running.release()
            return np.ascontiguousarray(vector, dtype=np.float32)
        future: Future[np.ndarray] = Future()
        with self._pending_lock:
            self._pending.append((prefixed, future))
            drain = len(self._pending) == 1  # else a drain is already on its way to the lane
        if drain:
            self._lane.submit(self._drain)
        return np.ascontiguousarray(future.result(), dtype=np.float32)

    def _drain(self) -> None:
        """On the lane, once the model is free: everything waiting, at most MAX_BATCH, as one batch."""
        with self._running:
            with self._pending_lock:
                batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
                if self._pending:
                    self._lane.submit(self._drain)
            try:
                if len(batch) == 1:
                    vectors = [self._model.encode_one(batch[0][0])]
                else:
                    vectors = list(self._model.encode([text for text, _ in batch]))
            except BaseException as exc:
                for _, future in batch:
                    future.set_exception(exc)
                return
        for (_, future), vector in zip(batch, vectors, strict=True):
            future.set_result(vector)
