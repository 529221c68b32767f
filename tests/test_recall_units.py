"""Recall parts that need no model: the input filter, the gate, the in-memory index."""

from __future__ import annotations

import numpy as np
import pytest
from memevo.core.encoder.models import DEFAULT_MODEL, KNOWN
from memevo.core.recall.gate import GateSettings, gate_category
from memevo.core.recall.index import MemoryIndex
from memevo.core.recall.textfilter import (
    REDACTED,
    judge_input,
    recall_input,
    redact_secrets,
    strip_code_and_logs,
)


# -- the input filter ---------------------------------------------------------------------------------
def test_fenced_code_is_removed() -> None:
    prompt = "这个函数为什么报错\n```python\ndef f(x):\n    return x / 0\n```\n帮我看看"
    assert strip_code_and_logs(prompt) == "这个函数为什么报错\n帮我看看"


def test_runs_of_code_lines_are_removed_but_a_single_line_stays() -> None:
    pasted = "为什么这里会空指针\nconst user = getUser(id);\nif (user.name) {\n  render(user);\n}\n请解释"
    assert strip_code_and_logs(pasted) == "为什么这里会空指针\n请解释"
    assert strip_code_and_logs("我觉得 x = 1 这行写错了") == "我觉得 x = 1 这行写错了"


def test_log_lines_are_removed() -> None:
    prompt = (
        "部署失败了，日志如下\n"
        "2026-11-29 10:00:01 ERROR payment timeout\n"
        "[INFO] retrying\n"
        "Traceback (most recent call last):\n"
        '  File "app.py", line 3, in <module>\n'
        "ValueError: bad input\n"
        "怎么回事"
    )
    assert strip_code_and_logs(prompt) == "部署失败了，日志如下\n怎么回事"


@pytest.mark.parametrize(
    ("prompt", "usable"),
    [
        ("好的", False),
        ("abcde", False),
        ("回答用中文", True),
        ("改完代码不要自动 commit", True),
        ("长" * 501, False),
        ("```\n" + "x = 1\n" * 300 + "```\n短", False),  # only the paste was long
        ("```\n" + "x = 1\n" * 300 + "```\n这段代码为什么这么慢", True),
    ],
)
def test_length_limits_after_filtering(prompt: str, usable: bool) -> None:
    assert (recall_input(prompt) is not None) == usable


@pytest.mark.parametrize(
    "secret",
    [
        "sk-proj-abcdefghijklmnopqrstuvwxyz123456",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "AKIAABCDEFGHIJKLMNOP",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ],
)
def test_key_like_strings_are_hidden_from_the_judge(secret: str) -> None:
    prompt = f"记住测试环境的 key 是 {secret} 别搞丢"
    judged = judge_input(prompt)
    assert judged is not None and secret not in judged and REDACTED in judged


def test_ordinary_words_are_not_redacted() -> None:
    text = "记住：支付页新流程的灰度开关是 pay_new_flow_v2，文档在 wiki/payment"
    assert redact_secrets(text) == text
    assert redact_secrets("token: " + "A1b2" * 10) == "token: " + REDACTED


# -- the gate ------------------------------------------------------------------------------------------
def test_relative_line_and_minimum() -> None:
    ranked = [("a", 0.80), ("b", 0.50), ("c", 0.47), ("d", 0.46)]
    # top1 x 0.6 = 0.48 beats the minimum 0.30: c and d are cut, and top-k is 3 anyway
    assert gate_category(ranked, 0.30, 3, -1) == [("a", 0.80), ("b", 0.50)]
    # a higher minimum wins over the relative line
    assert gate_category(ranked, 0.55, 3, -1) == [("a", 0.80)]
    # nothing passes when the best is below the minimum
    assert gate_category([("a", 0.2)], 0.3, 3, -1) == []


def test_minimum_minus_one_is_off_and_top_k_caps() -> None:
    ranked = [("a", 0.20), ("b", 0.19), ("c", 0.18), ("d", 0.17)]
    assert gate_category(ranked, -1, 3, -1) == ranked[:3]
    assert gate_category(ranked, -1, 1, -1) == ranked[:1]


def test_margin_on_keeps_only_top1_when_the_lead_is_small() -> None:
    ranked = [("a", 0.60), ("b", 0.58), ("c", 0.50)]
    assert gate_category(ranked, 0.3, 3, 0.05) == [("a", 0.60)]
    assert gate_category(ranked, 0.3, 3, 0.01) == ranked
    assert gate_category(ranked, 0.3, 3, -1) == ranked


def test_settings_use_model_defaults_unless_the_user_set_them() -> None:
    entry = KNOWN[DEFAULT_MODEL]
    defaults = GateSettings.from_config(
        {"recallTopK": 3, "recallMinScore": None, "recallMinScoreProject": None}, entry
    )
    assert (defaults.min_rule, defaults.min_project) == (entry.recall_min_rule, entry.recall_min_project)
    user = GateSettings.from_config(
        {"recallTopK": 5, "recallMinScore": -1, "recallMinScoreProject": 0.4, "recallMinMargin": 0.1}, entry
    )
    assert (user.top_k, user.min_rule, user.min_project, user.margin) == (5, -1, 0.4, 0.1)


# -- the index ----------------------------------------------------------------------------------------------
def _unit(rng: np.random.Generator, n: int, dim: int = 16) -> np.ndarray:
    m = rng.standard_normal((n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_index_matches_brute_force_and_stays_in_sync() -> None:
    rng = np.random.default_rng(3)
    background = _unit(rng, 1)[0] * 0.3
    index = MemoryIndex(16, background, capacity=4)  # forces growth
    vectors = _unit(rng, 50)
    ids = [f"m{i}" for i in range(50)]
    categories = ["rule" if i % 2 else "project" for i in range(50)]
    index.upsert(ids, categories, [f"text {i}" for i in ids], np.zeros(50, dtype=bool), vectors)
    query = _unit(rng, 1)[0]

    def brute(category: str, excluded: set[str]) -> list[str]:
        q = query - background
        q /= np.linalg.norm(q)
        scores = []
        for i, v in enumerate(vectors):
            if categories[i] != category or ids[i] in excluded:
                continue
            c = v - background
            scores.append((float(c @ q / np.linalg.norm(c)), ids[i]))
        return [i for _, i in sorted(scores, reverse=True)[:5]]

    assert [i for i, _ in index.ranked(query, 5)["rule"]] == brute("rule", set())
    top_rule = index.ranked(query, 1)["rule"][0][0]
    index.remove([top_rule])
    index.set_deprecated([index.ranked(query, 1)["project"][0][0]], True)
    dep = {top_rule}
    assert top_rule not in [i for i, _ in index.ranked(query, 50)["rule"]]
    assert len(index.ranked(query, 100)["project"]) == 24
    assert [i for i, _ in index.ranked(query, 5)["rule"]] == brute("rule", dep)
    index.upsert(["new"], ["rule"], ["new text"], np.zeros(1, dtype=bool), query.reshape(1, -1))
    assert index.ranked(query, 1)["rule"][0][0] == "new"
    assert index.text("new") == "new text" and index.text(top_rule) is None
    assert len(index) == 50


def test_concurrent_writers_lose_no_vector() -> None:
    """The panel's worker, request threads and the side runner upsert at the same time."""
    import threading

    dim = 8
    index = MemoryIndex(dim, np.zeros(dim, dtype=np.float32), capacity=16)  # forces growth under contention
    rng = np.random.default_rng(7)

    def writer(prefix: str) -> None:
        for i in range(500):
            vector = rng.standard_normal((1, dim)).astype(np.float32)
            index.upsert([f"{prefix}{i}"], ["rule"], [f"text {prefix}{i}"], np.array([False]), vector)
            if i % 50 == 0:
                index.ranked(vector[0], 3)

    threads = [threading.Thread(target=writer, args=(f"t{n}-",)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(index) == 4000 and index.live_count() == 4000
    assert all(index.text(f"t{n}-{i}") == f"text t{n}-{i}" for n in range(8) for i in range(500))
