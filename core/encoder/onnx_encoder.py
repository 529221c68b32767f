"""The default model on onnxruntime: no torch, no sentence-transformers in the process.

Provisioning writes the folder's model once into `onnx/model.onnx` (Transformer, mean
pooling and normalisation in one fp32 graph) and its word-embedding table, fp16, beside it
in `onnx/word_table.npy`: the encoder reads the rows of a batch's tokens itself, so the
table is not resident in the process (a graph
written by an older release holds the table itself, after a Gather, and still runs as it
is). Both are built from the weights without torch (onnx_build.py, onnx_provision.py;
onnx_export.py is the torch export it replaced), and writes `onnx/memevo-onnx.json` only
after the graph's vectors matched on known sentences. A folder without that manifest is
encoded by sentence-transformers, as before.
"""

from __future__ import annotations

import json
import os
import threading
import weakref
from pathlib import Path
from typing import Any

import numpy as np

from . import tokenizer as tokenizer_mod

GRAPH_DIR = "onnx"
GRAPH = "model.onnx"
GRAPH_DATA = "model.onnx.data"  # the graph's initializers, mapped by onnxruntime
MANIFEST = "memevo-onnx.json"
# the tokenizer sentence-transformers runs for the folder (onnx_build.runtime_tokenizer_json)
TOKENIZER = "tokenizer.json"
FORMAT = 1
INPUTS = ("input_ids", "attention_mask")
# the word table outside the graph (manifest "word_table_file"): the graph then takes its rows
WORD_TABLE = "word_table.npy"
WORDS_INPUT = "word_rows"
OUTPUT = "sentence_embedding"
# Short prompts (10-60 tokens) split poorly over many threads; the cap leaves a many-core
# machine its other cores.
MAX_THREADS = 4
PAD_ID = 1


def graph_dir(folder: Path) -> Path:
    return folder / GRAPH_DIR


def read_manifest(directory: Path) -> dict[str, Any] | None:
    """The manifest of a graph that passed its checks, or None (absent, partial or older)."""
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
        size = (directory / GRAPH).stat().st_size
        if not (directory / TOKENIZER).is_file():
            return None
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or manifest.get("bytes") != size:
        return None
    files = manifest.get("files") or {}  # what lies beside the graph, name: bytes
    try:
        if not isinstance(files, dict) or any((directory / n).stat().st_size != b for n, b in files.items()):
            return None
    except OSError:
        return None
    return manifest


def table_outside(manifest: dict[str, Any]) -> bool:
    """The graph takes word rows from the mapped table (else it holds the table: older graphs)."""
    return manifest.get("word_table_file") is not None


def layout(manifest: dict[str, Any]) -> int:
    """What the graph's nodes are (onnx_build.LAYOUT when it wrote them; 1 before the field)."""
    value = manifest.get("layout", 1)
    return value if isinstance(value, int) else 1


def generation(manifest: dict[str, Any]) -> tuple[bool, int]:
    """Newer graphs compare greater: the word table outside, then the layout."""
    return table_outside(manifest), layout(manifest)


def graph_ready(folder: Path) -> bool:
    return read_manifest(graph_dir(folder)) is not None


def install_graph(staging: Path, folder: Path, manifest: dict[str, Any]) -> None:
    """A checked graph into place: its manifest last (the manifest is what marks it checked),
    then the staging folder becomes the folder's onnx/, unless another process finished first
    (its graph is kept). What is replaced: a partial or older graph, one that holds its word
    table where this one leaves it outside or whose nodes are of an older layout, or a hub
    model's own onnx/."""
    import shutil

    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    current = read_manifest(graph_dir(folder))
    if current is None or generation(manifest) > generation(current):
        final = graph_dir(folder)
        shutil.rmtree(final, ignore_errors=True)
        staging.rename(final)


def intra_op_threads() -> int:
    """One pool sized for the machine: the CPUs this process may run on, at most MAX_THREADS,
    and at most OMP_NUM_THREADS when that is set (the cap numerical libraries share: torch
    honours it, onnxruntime's own pool does not read it)."""
    try:
        available = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        available = os.cpu_count() or 1
    capped = os.environ.get("OMP_NUM_THREADS", "").strip()
    if capped.isdigit() and int(capped) > 0:
        available = min(available, int(capped))
    return max(1, min(available, MAX_THREADS))


class WordRows:
    """The word table's .npy, read a batch's rows at a time: with pread nothing of it is
    resident (the page cache holds what prompts read; a mapping would count whole large folios
    of it in the process's RSS); where there is no pread (Windows), a read-only mapping."""

    def __init__(self, path: Path) -> None:
        with path.open("rb") as file:
            version = np.lib.format.read_magic(file)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(file)
            else:
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(file)
            self.offset = file.tell()
        if fortran or len(shape) != 2:
            raise ValueError(f"{path}: not a C-ordered 2-D table")
        self.shape: tuple[int, int] = (int(shape[0]), int(shape[1]))
        self.dtype = np.dtype(dtype)
        self.row_bytes = self.shape[1] * self.dtype.itemsize
        self._file = path.open("rb") if hasattr(os, "pread") else None
        self._mapped = None if self._file is not None else np.load(path, mmap_mode="r")
        if self._file is not None:  # closed with the encoder that reads it
            weakref.finalize(self, self._file.close)

    def __getitem__(self, ids: np.ndarray) -> np.ndarray:
        """The rows for an array of ids, shaped ids.shape + (width,)."""
        if self._file is None:
            return np.asarray(self._mapped[ids])  # type: ignore[index]
        wanted, where = np.unique(ids, return_inverse=True)
        if wanted.size and (wanted[0] < 0 or wanted[-1] >= self.shape[0]):
            raise IndexError(f"token id out of the word table's {self.shape[0]} rows")
        rows = np.empty((wanted.size, self.shape[1]), dtype=self.dtype)
        fd = self._file.fileno()
        for index, row in enumerate(wanted.tolist()):
            rows[index] = np.frombuffer(
                os.pread(fd, self.row_bytes, self.offset + row * self.row_bytes), self.dtype
            )
        return rows[where.reshape(-1)].reshape((*ids.shape, self.shape[1]))


class OnnxEncoderModel:
    """Token ids in, normalised sentence vectors out. Thread-safe: onnxruntime's run() is."""

    def __init__(self, folder: Path, directory: Path | None = None) -> None:
        import onnxruntime as ort

        directory = directory or graph_dir(folder)
        manifest = read_manifest(directory)
        if manifest is None:
            raise FileNotFoundError(f"{directory} holds no checked ONNX graph")
        options = ort.SessionOptions()
        options.intra_op_num_threads = intra_op_threads()
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # The pool's threads spin briefly between the graph's many small parallel steps (the
        # default). Two spinning threads beat one thread and beat not spinning, quiet and loaded;
        # not spinning trims a loaded machine's p95 but costs every quiet prompt a good part of
        # the hook's budget, so the pool spins (docs/performance-journal.md, "onnxruntime's
        # thread pool"). Unlike OpenBLAS's workers (one thread in the service) they stop
        # spinning soon after a run.
        self.max_length = int(manifest.get("max_length", 512))
        self.table: WordRows | None = None
        if table_outside(manifest):
            self.table = WordRows(directory / str(manifest["word_table_file"]))
        # The tokenizer loads in Python while onnxruntime builds the session without the GIL.
        loaded: list[tokenizer_mod.TokenIds | BaseException] = []
        lean = manifest.get("tokenizer") == "lean"

        def load_tokenizer() -> None:
            try:
                loaded.append(tokenizer_mod.load(directory / TOKENIZER, self.max_length, lean=lean))
            except BaseException as exc:  # re-raised below, in the caller's thread
                loaded.append(exc)

        loader = threading.Thread(target=load_tokenizer, name="memevo-tokenizer", daemon=True)
        loader.start()
        try:
            self.session = ort.InferenceSession(
                str(directory / GRAPH), options, providers=["CPUExecutionProvider"]
            )
        finally:
            loader.join()
        if isinstance(loaded[0], BaseException):
            raise loaded[0]
        self.tokenizer: tokenizer_mod.TokenIds = loaded[0]
        # After a large batch (a rebuild, a long memory) the arena gives its extra chunks back.
        self._shrink = ort.RunOptions()
        self._shrink.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        self.dim = int(manifest["dim"])
        self.threads = options.intra_op_num_threads

    def release_pages(self) -> None:
        """At rest: what can be mapped again from files on the next prompt is let go."""
        release = getattr(self.tokenizer, "release_pages", None)
        if release is not None:
            release()

    def embed(self, batch: list[list[int]], shrink: bool = False) -> np.ndarray:
        width = max(len(ids) for ids in batch)
        input_ids = np.full((len(batch), width), PAD_ID, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, ids in enumerate(batch):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        if self.table is None:
            feed = {INPUTS[0]: input_ids, INPUTS[1]: mask}
        else:
            feed = {WORDS_INPUT: self.table[input_ids], INPUTS[1]: mask}
        (vectors,) = self.session.run([OUTPUT], feed, self._shrink if shrink else None)
        return np.asarray(vectors, dtype=np.float32)

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """Shortest first, batched, padded to each batch's longest (as sentence-transformers)."""
        tokens = [self.tokenizer.encode(text) for text in texts]
        order = sorted(range(len(tokens)), key=lambda i: len(tokens[i]))
        out = np.zeros((len(tokens), self.dim), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            out[chunk] = self.embed([tokens[i] for i in chunk], shrink=True)
        return out

    def encode_one(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed([self.tokenizer.encode(text)])[0]
        return vector
