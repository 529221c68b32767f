"""The default model on onnxruntime: the same scores as sentence-transformers, no torch loaded,
the same token ids from the lean tokenizer, and the graph added to folders provisioned before."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import hugepages
import numpy as np
import pytest
from deadlines import HANG_S
from memevo.core.clock import FakeClock
from memevo.core.encoder import onnx_encoder, provision
from memevo.core.encoder import tokenizer as tokenizer_mod
from memevo.core.encoder.encoder import Encoder
from memevo.core.encoder.models import DEFAULT_MODEL
from memevo.core.memories import live as memories
from memevo.core.recall import verify
from memevo.core.recall.engine import RecallEngine
from memevo.core.recall.textfilter import recall_input
from memevo.core.store.database import Store

RECALL_SET = Path(__file__).parent / "data" / "recall-set.json"


def test_the_default_model_runs_on_onnx(encoder: Encoder) -> None:
    assert encoder.backend == "onnx"
    assert onnx_encoder.graph_ready(encoder.folder)
    manifest = onnx_encoder.read_manifest(onnx_encoder.graph_dir(encoder.folder))
    assert manifest is not None and manifest["checked"]["min_cosine"] > 0.9999
    # the lean tokenizer passed its check on the provisioned folder (fresh or upgraded)
    assert manifest["tokenizer"] == "lean" and manifest["checked"]["tokenizer_ids_equal"] is True
    assert encoder._model.tokenizer.kind == "lean"
    assert encoder.dim == 384


def test_the_thread_pool_is_the_cpus_allowed_capped_by_omp_num_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    allowed = len(os.sched_getaffinity(0))
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert onnx_encoder.intra_op_threads() == min(allowed, onnx_encoder.MAX_THREADS)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert onnx_encoder.intra_op_threads() == 1
    for ignored in ("0", "-2", "two", ""):  # not a cap: the CPUs decide
        monkeypatch.setenv("OMP_NUM_THREADS", ignored)
        assert onnx_encoder.intra_op_threads() == min(allowed, onnx_encoder.MAX_THREADS)


def _run_backend(encoder: Encoder, home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The verify set through one backend, in a store of its own (each encodes its memories)."""
    monkeypatch.setenv("MEMEVO_HOME", str(home))
    data = json.loads(RECALL_SET.read_text(encoding="utf-8"))
    clock = FakeClock()
    with Store.open() as store:
        for item in data["pool"]:
            memories.create(store, item["category"], item["text"], clock)
        engine = RecallEngine(store, encoder, clock)
        engine.sync_all()
        text_of = {m.id: m.text for c in ("rule", "project") for m in memories.ranked(store, c, limit=None)}
        cases = [verify.Case(c["prompt"], c["expect"]) for c in data["cases"]]
        scores: dict[tuple[str, str], float] = {}
        for case in cases:
            text = recall_input(case.prompt)
            if text is None:
                continue
            for category, ranked in engine.ranked(text, len(text_of)).items():
                for memory_id, score in ranked:
                    scores[(case.prompt, text_of[memory_id])] = score
                assert category in ("rule", "project")
        report = verify.run(engine, cases)
    outcome = [
        (c["prompt"], c["hit"], sorted((i["category"], i["text"]) for i in c["injected"]))
        for c in report["cases"]
    ]
    return {"scores": scores, "outcome": outcome, "report": report}


def test_both_backends_give_the_same_scores_on_the_verify_set(
    encoder: Encoder, st_encoder: Encoder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Largest score change at most 1e-4 and no verify case changes (measured: about 5e-7)."""
    onnx = _run_backend(encoder, tmp_path / "onnx", monkeypatch)
    torch = _run_backend(st_encoder, tmp_path / "st", monkeypatch)
    assert onnx["scores"].keys() == torch["scores"].keys() and len(onnx["scores"]) > 1000
    worst = max(abs(onnx["scores"][k] - torch["scores"][k]) for k in onnx["scores"])
    print(f"largest score change: {worst:.2e} over {len(onnx['scores'])} scores")
    assert worst <= 1e-4
    assert onnx["outcome"] == torch["outcome"]
    for key in ("relevant_hit", "unrelated_rule_leaks", "unrelated_project_leaks", "single_memory_hit"):
        assert onnx["report"][key] == torch["report"][key]


def test_vectors_agree_alone_and_in_a_batch(encoder: Encoder, st_encoder: Encoder) -> None:
    texts = [
        "回答问题时请一律使用中文",
        "payment page gray switch",
        "改完代码不要自动 commit，等我确认后再提交。" * 3,
        "  spaces around  ",
        "长" * 700,  # past the 512-token limit: truncated the same way
    ]
    batch = encoder.encode(texts)
    alone = np.stack([encoder.encode_one(t) for t in texts])
    theirs = st_encoder.encode(texts)
    assert batch.dtype == np.float32 and batch.shape == (5, 384)
    assert np.min(np.sum(batch * theirs, axis=1)) > 0.99999
    assert np.min(np.sum(alone * theirs, axis=1)) > 0.99999
    assert np.allclose(np.linalg.norm(alone, axis=1), 1.0, atol=1e-5)


def _strings(seed: int, count: int) -> list[str]:
    """Mixed scripts, full-width forms, emoji, controls, special-token look-alikes, repeats."""
    rng = random.Random(seed)
    ranges = [(32, 127), (0xA0, 0x250), (0x3000, 0x3040), (0x4E00, 0x4F00), (0xFF00, 0xFF60)]
    alphabet = [chr(c) for low, high in ranges for c in range(low, high)]
    alphabet += [chr(c) for c in (0x1F600, 0x1F44D, 0x200B, 0xFEFF, 0x2028, 0x85, 9, 10, 13, 0x301, 0xE000)]
    alphabet += ["<s>", "</s>", "<mask>", "<unk>", "<pad>", "▁", "  "]
    out = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(count)]
    out += ["x" * n for n in range(1, 30)] + ["哈" * n for n in range(1, 20)] + ["ab" * 40, "-" * 50]
    return out


def test_the_lean_tokenizer_gives_the_same_ids(provisioned_model: Any) -> None:
    directory = onnx_encoder.graph_dir(provisioned_model.folder)
    path = directory / onnx_encoder.TOKENIZER
    lean = tokenizer_mod.load(path, 512)
    full = tokenizer_mod.FullTokenizer(path, 512)
    assert lean.kind == "lean"
    data = json.loads(RECALL_SET.read_text(encoding="utf-8"))
    texts = [i["text"] for i in data["pool"]] + [c["prompt"] for c in data["cases"]] + _strings(7, 3000)
    texts = ["query: " + t for t in texts] + texts
    mismatched = [t for t in texts if lean.encode(t) != full.encode(t)]
    assert mismatched == []


def test_an_unfamiliar_tokenizer_file_gets_tokenizers_itself(tmp_path: Path, provisioned_model: Any) -> None:
    data = json.loads(
        (onnx_encoder.graph_dir(provisioned_model.folder) / "tokenizer.json").read_text("utf-8")
    )
    data["model"]["byte_fallback"] = True
    odd = tmp_path / "tokenizer.json"
    odd.write_text(json.dumps(data), encoding="utf-8")
    assert tokenizer_mod.load(odd, 512).kind == "full"


def test_the_service_side_never_imports_torch(data_dir: Path) -> None:
    """What the service runs to load its encoder (runtime.load_encoder), in a fresh process."""
    code = (
        "import sys\n"
        "from memevo.core.process.runtime import load_encoder\n"
        "e = load_encoder()\n"
        "e.encode_one('改完代码不要自动 commit'); e.encode(['a', 'b'])\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers', 'onnx') if m in sys.modules]\n"
        "print(e.backend, heavy)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_S)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["onnx", "[]"]


def test_a_folder_provisioned_before_gets_the_graph(upgraded_model: dict[str, Any]) -> None:
    """Users upgrading: the folder has no onnx/ yet; the next provision adds it, checked
    (conftest.py's upgraded_model runs that provision once for this test and test_onnx_build.py)."""
    target = upgraded_model["folder"]
    assert upgraded_model["backend_before"] == "sentence-transformers"
    again = upgraded_model["provisioned"]
    assert again.reused and again.folder == target
    assert [module for module, _ in upgraded_model["children"]] == ["onnx_provision"]  # no torch export
    assert onnx_encoder.graph_ready(target)
    assert Encoder(DEFAULT_MODEL, target).backend == "onnx"
    assert not (target / provision.GRAPH_FAILED).exists()
    assert [p.name for p in target.iterdir() if p.name.startswith(".onnx-staging")] == []


def _graph_with_the_table_inside(folder: Path, target: Path) -> Path:
    """onnx/ as a release before the table left the graph wrote it: one file, table inside."""
    from memevo.core.encoder import onnx_build

    directory = target / onnx_encoder.GRAPH_DIR
    directory.mkdir(parents=True)
    shape = onnx_build.read_shape(folder)
    model = onnx_build.build_model(shape, onnx_build.load_weights(folder, shape))
    (directory / onnx_encoder.GRAPH).write_bytes(model.SerializeToString())
    source = onnx_encoder.graph_dir(folder)
    (directory / onnx_encoder.TOKENIZER).write_bytes((source / onnx_encoder.TOKENIZER).read_bytes())
    manifest = onnx_encoder.read_manifest(source)
    assert manifest is not None
    for key in ("files", "word_table_file"):
        manifest.pop(key)
    manifest["bytes"] = (directory / onnx_encoder.GRAPH).stat().st_size
    (directory / onnx_encoder.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return directory


def _failing_checks(monkeypatch: pytest.MonkeyPatch, reason: str) -> list[tuple[Path, bool]]:
    """Provisioning's checks of a graph, made to fail with `reason`: each call's folder and
    whether it was asked to export, in order."""
    calls: list[tuple[Path, bool]] = []

    def failing(target: Path, entry: Any, minimum: Any, export: bool) -> dict[str, object]:
        calls.append((target, export))
        return {"onnx": {"ok": False, "reason": reason}}

    monkeypatch.setattr(provision, "_run_checks", failing)
    return calls


def _rebuilt_once(monkeypatch: pytest.MonkeyPatch, current: Path, outdated: Path) -> None:
    """Provision rebuilds the outdated folder's graph once (the failure note stops a second try
    within the release) and leaves the current one alone."""
    assert provision.graph_outdated(outdated) and not provision.graph_outdated(current)
    calls = _failing_checks(monkeypatch, "stopped here")
    entry = provision.entry_for(DEFAULT_MODEL)
    for target in (current, outdated, outdated):
        provision.add_missing_graph(target, entry, provision.Silent())
    assert [target for target, _ in calls] == [outdated]


def _installed(tmp_path: Path, graphs: list[tuple[str, bool, int | None]]) -> Path:
    """Stub graphs (name, word table outside, layout or None) installed in turn into one folder."""
    target = tmp_path / "install"
    target.mkdir()
    for name, outside, layout in graphs:
        directory = tmp_path / name
        directory.mkdir()
        (directory / onnx_encoder.GRAPH).write_bytes(b"graph " + name.encode())
        (directory / onnx_encoder.TOKENIZER).write_text("{}", encoding="utf-8")
        manifest: dict[str, Any] = {"format": onnx_encoder.FORMAT, "bytes": len(b"graph " + name.encode())}
        if outside:
            (directory / onnx_encoder.WORD_TABLE).write_bytes(b"rows")
            manifest |= {"word_table_file": onnx_encoder.WORD_TABLE, "files": {onnx_encoder.WORD_TABLE: 4}}
        if layout is not None:
            manifest["layout"] = layout
        onnx_encoder.install_graph(directory, target, manifest)
    return target


def test_a_graph_with_the_table_inside_still_runs_and_is_rebuilt_once(
    provisioned_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The word table left the graph (only the rows prompts use are resident). A folder an older
    release provisioned gives the same vectors from its graph until the next provision rebuilds
    it once, and a rebuilt graph replaces it where a graph of the same kind would not."""
    folder = provisioned_model.folder
    new = onnx_encoder.OnnxEncoderModel(folder)
    assert new.table is not None and new.table.dtype == np.float16  # mapped, fp16 as in the graph
    assert onnx_encoder.GRAPH_DATA in onnx_encoder.read_manifest(onnx_encoder.graph_dir(folder))["files"]
    old_dir = _graph_with_the_table_inside(folder, tmp_path / "old")
    old = onnx_encoder.OnnxEncoderModel(folder, directory=old_dir)
    assert old.table is None
    data = json.loads(RECALL_SET.read_text(encoding="utf-8"))
    texts = ["query: " + c["prompt"] for c in data["cases"][:40]] + ["passage: " + "长" * 600]
    assert np.max(np.abs(old.encode(texts) - new.encode(texts))) <= 1e-6
    one = [old.encode_one(t) - new.encode_one(t) for t in texts[:10]]
    assert max(float(np.max(np.abs(d))) for d in one) <= 1e-6
    _rebuilt_once(monkeypatch, folder, tmp_path / "old")
    # installing: a graph with the table outside replaces the old kind, not its own kind
    target = _installed(tmp_path, [("first", False, None), ("second", True, None), ("third", True, None)])
    assert (onnx_encoder.graph_dir(target) / onnx_encoder.GRAPH).read_bytes() == b"graph second"
    (onnx_encoder.graph_dir(target) / onnx_encoder.WORD_TABLE).write_bytes(b"cut")
    assert not onnx_encoder.graph_ready(target)  # a table of the wrong size: not a checked graph


def test_a_graph_of_the_older_layout_is_rebuilt_once_and_replaced(
    provisioned_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A graph onnx_build wrote before LAYOUT 2 (the torch export's nodes: the same vectors,
    tests/test_onnx_build.py, but a slower encode) is rebuilt once by the next provision; a
    newer layout replaces it on install, the same layout does not replace a graph in place."""
    from memevo.core.encoder import onnx_build

    folder = provisioned_model.folder
    source = onnx_encoder.graph_dir(folder)
    manifest = onnx_encoder.read_manifest(source)
    assert manifest is not None and manifest["layout"] == onnx_build.LAYOUT == 2
    older = tmp_path / "older"
    (older / onnx_encoder.GRAPH_DIR).mkdir(parents=True)
    for item in source.iterdir():
        if item.name != onnx_encoder.MANIFEST:
            (older / onnx_encoder.GRAPH_DIR / item.name).symlink_to(item)
    del manifest["layout"]  # as written before the field
    (older / onnx_encoder.GRAPH_DIR / onnx_encoder.MANIFEST).write_text(
        json.dumps(manifest), encoding="utf-8"
    )
    assert onnx_encoder.graph_ready(older)  # it still serves meanwhile
    _rebuilt_once(monkeypatch, folder, older)
    layouts = [("first", True, None), ("second", True, 2), ("third", True, 2), ("fourth", True, 1)]
    target = _installed(tmp_path, layouts)
    # the first went in, the second (newer) replaced it, the third and fourth found it in place
    assert (onnx_encoder.graph_dir(target) / onnx_encoder.GRAPH).read_bytes() == b"graph second"


def test_a_failed_export_is_not_retried_until_the_next_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    checked = _failing_checks(monkeypatch, "no torch here")
    entry = provision.entry_for(DEFAULT_MODEL)
    provision.add_missing_graph(folder, entry, provision.Silent())
    provision.add_missing_graph(folder, entry, provision.Silent())
    assert checked == [(folder, True)]
    note = json.loads((folder / provision.GRAPH_FAILED).read_text(encoding="utf-8"))
    assert note["reason"] == "no torch here"
    note["build"] = "0.0.1"  # an older release failed: this one tries again
    (folder / provision.GRAPH_FAILED).write_text(json.dumps(note), encoding="utf-8")
    provision.add_missing_graph(folder, entry, provision.Silent())
    assert checked == [(folder, True), (folder, True)]
    # other models never get a graph
    provision.add_missing_graph(folder, provision.entry_for("BAAI/bge-base-zh-v1.5"), provision.Silent())
    assert checked == [(folder, True), (folder, True)]


def test_encodes_from_many_threads_at_once_each_get_their_own_vector(encoder: Encoder) -> None:
    """A request with the model idle encodes on its own thread, the others queue for the lane
    and a rebuild's batch waits its turn: each text gets its own vector, and none is left
    waiting (the lane and the caller share one lock on the model)."""
    import threading

    texts = [f"线程 {i} 的提示：灰度开关 pay_flow_{i} 在哪里" for i in range(24)]
    alone = {t: encoder.encode_one(t) for t in texts}
    got: dict[str, list[np.ndarray]] = {t: [] for t in texts}
    batches: list[np.ndarray] = []

    def asker(mine: list[str]) -> None:
        for _ in range(3):
            for text in mine:
                got[text].append(encoder.encode_one(text))

    threads = [threading.Thread(target=asker, args=(texts[i::6],)) for i in range(6)]
    threads.append(threading.Thread(target=lambda: batches.append(encoder.encode(texts))))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads)
    assert all(len(vectors) == 3 for vectors in got.values())
    worst = max(float(np.max(np.abs(v - alone[t]))) for t, vs in got.items() for v in vs)
    assert worst <= 1e-6
    assert float(np.max(np.abs(batches[0] - np.stack([alone[t] for t in texts])))) <= 1e-6


def test_requests_that_arrive_together_share_one_batch(
    encoder: Encoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Single encodes arriving while the lane is busy run as one batch when it frees, with the
    vectors each would have had alone (within float noise)."""
    import threading
    import time

    texts = [f"第 {i} 个问题：支付页的灰度开关在哪里配置 (case {i})" for i in range(8)]
    alone = np.stack([encoder.encode_one(t) for t in texts])
    model = encoder._model
    real_encode, real_one = model.encode, model.encode_one
    batches: list[int] = []
    release = threading.Event()

    def slow_one(text: str) -> np.ndarray:
        release.wait(10)  # the lane is busy with a first request while the others arrive
        return real_one(text)

    def counted(batch: list[str], batch_size: int = 32) -> np.ndarray:
        batches.append(len(batch))
        return real_encode(batch, batch_size)

    monkeypatch.setattr(model, "encode_one", slow_one)
    monkeypatch.setattr(model, "encode", counted)
    got: dict[int, np.ndarray] = {}

    def ask(i: int) -> None:
        got[i] = encoder.encode_one(texts[i])

    first = threading.Thread(target=ask, args=(0,))
    first.start()
    time.sleep(0.2)
    rest = [threading.Thread(target=ask, args=(i,)) for i in range(1, 8)]
    for thread in rest:
        thread.start()
    time.sleep(0.3)
    release.set()
    for thread in [first, *rest]:
        thread.join(30)
    assert batches == [7]  # the seven that waited, in one run of the graph
    together = np.stack([got[i] for i in range(8)])
    assert float(np.abs(together - alone).max()) < 1e-5


_HUGE_PAGES_PROBE = """
import json, sys
from pathlib import Path
from memevo.core.encoder.encoder import Encoder
encoder = Encoder(sys.argv[1], Path(sys.argv[2]))
encoder.load()
vector = encoder.encode_one("改完代码不要自动 commit")
smaps = open("/proc/self/smaps").read().splitlines()
huge = sum(int(line.split()[1]) * 1024 for line in smaps if line.startswith("AnonHugePages:"))
print(json.dumps({"collapsed": encoder.huge_page_bytes, "huge": huge, "vector": vector.tolist()}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="transparent huge pages (Linux)")
def test_the_loaded_models_weights_are_in_huge_pages_and_encode_the_same(provisioned_model: Any) -> None:
    """The ~86 MB of layers every encode reads whole, in huge pages once loaded
    (core/process/native_heap.py); MEMEVO_HUGE_PAGES=0 leaves them in 4 KB pages. Same vector either way."""

    def probe(**env: str) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-c", _HUGE_PAGES_PROBE, provisioned_model.model, str(provisioned_model.folder)],
            env=os.environ | env,
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout))

    on, off = probe(), probe(MEMEVO_HUGE_PAGES="0")
    assert off["collapsed"] == 0
    assert on["vector"] == off["vector"]
    if hugepages.offered():
        assert on["collapsed"] >= 80 << 20
        assert on["huge"] >= on["collapsed"] > off["huge"]
