"""The torch way to a graph: export it from the folder loaded in sentence-transformers.

Provisioning no longer uses this for the default model: onnx_provision.py builds the same
graph from the weights without torch (onnx_build.py), which is what lets the packaged program
leave torch out. This stays for where torch is installed anyway (a pip install): provisioning
falls back to it for a folder that builder does not reproduce (onnx_provision exits 2, e.g.
weights without a `model.safetensors`), and tests/test_onnx_build.py compares the built graph
with this export and with sentence-transformers.

It runs in a child process (`python -m memevo.core.encoder.onnx_export FOLDER …`), so the
process that provisions never imports torch or sentence-transformers. The child:

1. loads the folder with sentence-transformers (word-embedding table in fp16, as the
   service used to run it);
2. with --reference MIN, checks its vectors against the shipped reference vectors (the
   check provisioning always made before a folder replaces anything);
3. with --export, writes `onnx/model.onnx` (Transformer, mean pooling and normalisation in
   one fp32 graph; the fp16 table stays fp16, a Cast follows the Gather) and the tokenizer
   sentence-transformers really runs (`onnx/tokenizer.json`), then encodes known sentences
   with the graph exactly as the service will and with sentence-transformers: every cosine
   must exceed 0.9999, or no manifest is written and the folder keeps running on
   sentence-transformers. The lean tokenizer is used only if it gave the same ids as
   `tokenizers` on every check text.

The last line on stdout is a JSON report; the exit status is 0 unless the reference check
failed (3) or the folder could not be loaded (2).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from . import onnx_encoder
from .models import entry_for
from .onnx_provision import EXIT_LOAD, EXIT_REFERENCE, MIN_COSINE, REFERENCE, check_texts, child_arguments

OPSET = 17


def reference_agreement(model: Any, prefix: str) -> float:
    from ..resources_access import read_json

    reference = read_json(REFERENCE)["sentences"]
    vectors = np.asarray(
        model.encode([prefix + s["text"] for s in reference], normalize_embeddings=True), dtype=np.float32
    )
    expected = np.asarray([s["vector"] for s in reference], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    return float(np.min(np.sum(vectors * expected, axis=1)))


def pipeline_is_mean_normalized(model: Any) -> bool:
    """Transformer -> mean pooling -> Normalize: the pipeline the graph reproduces."""
    try:
        pooling, normalize = model[1], model[2]
    except (IndexError, KeyError, TypeError):
        return False
    mode = getattr(pooling, "pooling_mode", None) or (
        "mean" if getattr(pooling, "pooling_mode_mean_tokens", False) else None
    )
    return len(model) == 3 and mode == "mean" and type(normalize).__name__ == "Normalize"


def export_graph(model: Any, target: Path) -> None:
    import torch

    bert = model[0].auto_model
    with contextlib.suppress(Exception):  # eager attention: a plainer, faster graph than sdpa
        bert.set_attn_implementation("eager")

    class Pooled(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            tokens = self.inner(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
            mean = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2, dim=1)

    wrapper = Pooled(bert).eval()
    sample = (
        torch.tensor([[0, 5, 6, 7, 2], [0, 5, 6, 2, 1]]),
        torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 1, 0]]),
    )
    axes = {"batch": 0, "seq": 1}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            wrapper,
            sample,
            str(target),
            input_names=list(onnx_encoder.INPUTS),
            output_names=[onnx_encoder.OUTPUT],
            dynamic_axes={
                onnx_encoder.INPUTS[0]: {axes["batch"]: "batch", axes["seq"]: "seq"},
                onnx_encoder.INPUTS[1]: {axes["batch"]: "batch", axes["seq"]: "seq"},
                onnx_encoder.OUTPUT: {0: "batch"},
            },
            opset_version=OPSET,
            dynamo=False,
        )


def backend_tokenizer_json(model: Any) -> str:
    """The tokenizer sentence-transformers runs, as `tokenizers` JSON (transformers rebuilds
    it from the folder: for XLM-R a WhitespaceSplit before the Metaspace, unlike the file)."""
    tokenizer = model[0].tokenizer
    backend = getattr(tokenizer, "backend_tokenizer", None) or getattr(tokenizer, "_tokenizer", None)
    if backend is None:
        raise RuntimeError(f"{type(tokenizer).__name__} has no tokenizers backend")
    data = json.loads(backend.to_str())
    # An encode leaves its padding and truncation set on the backend: the runtime does both
    data["truncation"] = data["padding"] = None
    return json.dumps(data, ensure_ascii=False)


def export_and_check(model: Any, folder: Path, model_id: str) -> dict[str, Any]:
    """Write onnx/ beside the folder's model; the manifest only if every check passed."""
    import onnxruntime
    import torch
    import transformers

    from .tokenizer import FullTokenizer, LeanUnigram

    if not pipeline_is_mean_normalized(model):
        raise RuntimeError("not a Transformer -> mean pooling -> Normalize pipeline")
    started = time.monotonic()
    staging = folder / f".onnx-staging-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        graph = staging / onnx_encoder.GRAPH
        export_graph(model, graph)
        (staging / "tokenizer.json").write_text(backend_tokenizer_json(model), encoding="utf-8")
        max_length = int(model.get_max_seq_length() or 512)
        prefix = entry_for(model_id).prefix
        texts = check_texts(prefix)
        full = FullTokenizer(staging / "tokenizer.json", max_length)
        lean = LeanUnigram.from_file(staging / "tokenizer.json", max_length)
        lean_same = lean is not None and all(lean.encode(t) == full.encode(t) for t in texts)
        theirs = np.asarray(model.encode(texts, normalize_embeddings=True, batch_size=16), dtype=np.float32)
        manifest: dict[str, Any] = {
            "format": onnx_encoder.FORMAT,
            "model": model_id,
            "bytes": graph.stat().st_size,
            "opset": OPSET,
            "dim": int(theirs.shape[1]),
            "max_length": max_length,
            "tokenizer": "lean" if lean_same else "full",
            "exported_with": {
                "torch": torch.__version__,
                "transformers": transformers.__version__,
                "onnxruntime": onnxruntime.__version__,
            },
        }
        # the graph as the service runs it: its own session, tokenizer and batching
        (staging / onnx_encoder.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        runtime = onnx_encoder.OnnxEncoderModel(folder, directory=staging)
        ours_batched = runtime.encode(texts, batch_size=16)
        ours_single = np.stack([runtime.encode_one(t) for t in texts])
        del runtime
        (staging / onnx_encoder.MANIFEST).unlink()
        cosine = float(
            min(np.min(np.sum(ours_batched * theirs, axis=1)), np.min(np.sum(ours_single * theirs, axis=1)))
        )
        manifest["checked"] = {
            "texts": len(texts),
            "min_cosine": round(cosine, 8),
            "max_abs_diff": float(
                np.max(np.abs(np.concatenate([ours_batched, ours_single]) - np.concatenate([theirs, theirs])))
            ),
            "tokenizer_ids_equal": lean_same,
        }
        if not cosine > MIN_COSINE:
            raise RuntimeError(f"the ONNX graph disagrees with sentence-transformers (cosine {cosine:.6f})")
        manifest["seconds"] = round(time.monotonic() - started, 1)
        manifest["created"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        onnx_encoder.install_graph(staging, folder, manifest)
        return manifest
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    args = child_arguments("onnx_export", argv)
    report: dict[str, Any] = {}
    status = 0
    try:
        from .encoder import load_sentence_transformer

        model = load_sentence_transformer(args.folder)
    except Exception as exc:
        report["error"] = f"could not load {args.folder}: {exc}"
        status = EXIT_LOAD
    else:
        prefix = entry_for(args.model).prefix
        if args.reference is not None:
            agreement = reference_agreement(model, prefix)
            report["reference_agreement"] = round(agreement, 6)
            if agreement < args.reference:
                report["error"] = (
                    f"the converted model disagrees with the reference "
                    f"(cosine {agreement:.4f} < {args.reference})"
                )
                status = EXIT_REFERENCE
        if args.export and status == 0:
            try:
                report["onnx"] = {"ok": True, "manifest": export_and_check(model, args.folder, args.model)}
            except Exception as exc:
                report["onnx"] = {"ok": False, "reason": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(report), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
