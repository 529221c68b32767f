"""The generic damping (core/recall/generic.py): a prompt close to a question that needs no
memory loses part of its fused score; tool calls, the cosine-only gate and other models never
do; the shipped vectors are this model's and this list's, and a changed list is encoded once."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import numpy as np
import pytest
from memevo.core.clock import FakeClock
from memevo.core.encoder.models import DEFAULT_MODEL, KNOWN, entry_for
from memevo.core.memories import live as memories
from memevo.core.recall import gate_defaults as calibration
from memevo.core.recall import generic
from memevo.core.recall.engine import RecallEngine
from memevo.core.recall.gate import GateSettings
from memevo.core.store.database import Store

DOCKER_RULE = "Dockerfile 的基础镜像必须写死具体版本号，禁止使用 latest"
CLUSTER_FACT = "订单服务部署在 Kubernetes 集群 prod-sh-1 上，命名空间 orders"


def test_damping_counts_only_the_closeness_past_its_start() -> None:
    assert generic.damping(0.50, 0.55, 1.0) == 0.0
    assert generic.damping(0.75, 0.55, 1.0) == pytest.approx(0.20)
    assert generic.damping(0.75, 0.55, 0.5) == pytest.approx(0.10)
    assert generic.damping(0.99, 0.55, 0.0) == 0.0


def test_closeness_is_the_best_centred_cosine_and_an_empty_list_is_zero() -> None:
    raw = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]], dtype=np.float32)
    closeness = generic.Closeness(raw, np.zeros(4, dtype=np.float32))
    assert closeness.of(np.array([0.0, 1.0, 0.0, 0.0], dtype=np.float32)) == pytest.approx(1.0)
    assert closeness.of(np.array([0.6, 0.0, 0.8, 0.0], dtype=np.float32)) == pytest.approx(0.6)
    empty = generic.Closeness(np.zeros((0, 4), dtype=np.float32), np.zeros(4, dtype=np.float32))
    assert empty.of(np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)) == 0.0


def test_settings_carry_the_calibrated_damping_and_the_cosine_gate_has_none() -> None:
    hybrid = calibration.for_model(DEFAULT_MODEL)
    assert hybrid is not None and hybrid.generic_weight > 0
    entry = KNOWN[DEFAULT_MODEL]
    defaults = GateSettings.from_config({}, entry)
    assert (defaults.generic_from, defaults.generic_weight) == (hybrid.generic_from, hybrid.generic_weight)
    assert GateSettings.from_config({"recallLexicalWeight": 0}, entry).generic_weight == 0
    assert GateSettings.from_config({}, entry_for("some/other-model")).generic_weight == 0


def test_the_shipped_list_is_bilingual_distinct_and_keeps_out_of_the_user_s_work() -> None:
    prompts = generic.prompts()
    assert len(prompts) >= 800 and len(set(prompts)) == len(prompts)
    chinese = sum(1 for p in prompts if any("\u4e00" <= ch <= "\u9fff" for ch in p))
    assert 0.4 < chinese / len(prompts) < 0.8
    # requests that act on the user's own code are where rules matter: none of them here
    for action in ("帮我提交", "commit these", "review my PR", "部署到 staging", "我们的"):
        assert not any(action in p for p in prompts), action


def test_shipped_vectors_are_this_model_s_for_this_list(encoder) -> None:
    vectors = generic.load(encoder.model_id, encoder.dim)
    prompts = generic.prompts()
    assert vectors is not None and vectors.shape == (len(prompts), encoder.dim)
    sample = list(range(0, len(prompts), 45))
    fresh = encoder.encode([prompts[i] for i in sample])
    cosines = np.sum(fresh * vectors[sample], axis=1) / np.linalg.norm(vectors[sample], axis=1)
    assert float(cosines.min()) > 0.999  # float16 storage, same model


def test_a_changed_list_is_encoded_once_into_the_data_dir(
    encoder, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = ["what is a monad", "thanks!", "讲个程序员笑话"]
    monkeypatch.setattr(generic, "prompts", lambda: list(mine))
    monkeypatch.setattr(generic, "prompts_digest", lambda: "changed-list")
    assert generic.load(encoder.model_id, encoder.dim) is None  # the shipped vectors are for the old list
    calls: list[int] = []
    real_encode = encoder.encode

    def counting(texts: list[str], *args: object, **kw: object) -> np.ndarray:
        calls.append(len(texts))
        return real_encode(texts, *args, **kw)

    monkeypatch.setattr(encoder, "encode", counting)
    first = generic.ensure(encoder)
    again = generic.ensure(encoder)
    assert calls == [3] and first.shape == again.shape == (3, encoder.dim)
    built = generic.user_path(encoder.model_id)
    assert json.loads(built.read_text(encoding="utf-8"))["prompts_sha256"] == "changed-list"
    assert stat.S_IMODE(built.stat().st_mode) & 0o077 == 0  # user-only, like every file we keep


def test_a_textbook_question_on_a_memory_s_topic_is_damped_and_ours_are_not(
    store: Store, encoder, clock: FakeClock
) -> None:
    docker = memories.create(store, "rule", DOCKER_RULE, clock)
    memories.create(store, "project", CLUSTER_FACT, clock)
    engine = RecallEngine(store, encoder, clock)
    settings = engine.settings()
    textbook = engine.signals("Docker 的多阶段构建是怎么回事", 3, settings, prompt=True)["rule"]
    assert textbook[0].id == docker.id and textbook[0].damped > 0.2
    ours = engine.signals("我们的订单服务部署在哪个集群", 3, settings, prompt=True)
    assert all(row.damped == 0 for rows in ours.values() for row in rows)
    # the same text as a tool call's description is never damped
    as_action = engine.signals("Docker 的多阶段构建是怎么回事", 3, settings, prompt=False)["rule"]
    assert as_action[0].damped == 0
    assert as_action[0].score == pytest.approx(textbook[0].score + textbook[0].damped, abs=1e-6)
    # the production path damps it too: the rule is not injected for the textbook question,
    # and a question about our cluster still recalls its fact
    assert engine.recall("Docker 的多阶段构建是怎么回事", award=False).rules == []
    assert [h.text for h in engine.recall("我们的订单服务部署在哪个集群来着", award=False).projects] == [
        CLUSTER_FACT
    ]


def test_the_cosine_only_gate_never_damps(store: Store, encoder, clock: FakeClock) -> None:
    memories.create(store, "rule", DOCKER_RULE, clock)
    engine = RecallEngine(store, encoder, clock)
    cosine = GateSettings.from_config({"recallLexicalWeight": 0}, KNOWN[DEFAULT_MODEL])
    rows = engine.signals("Docker 的多阶段构建是怎么回事", 3, cosine, prompt=True)["rule"]
    assert rows and all(row.damped == 0 for row in rows)
