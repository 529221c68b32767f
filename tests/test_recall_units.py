"""Recall parts that need no model: the input filter, the gate, the in-memory index."""

from __future__ import annotations

import numpy as np
import pytest
from memevo.core.encoder.models import DEFAULT_MODEL, KNOWN, entry_for
from memevo.core.recall import crossing, lexical, sentences
from memevo.core.recall.actions import describe
from memevo.core.recall.concepts import textbook_question
from memevo.core.recall.gate import GateSettings, gate_category
from memevo.core.recall.index import MemoryIndex
from memevo.core.recall.lexical import LexicalIndex
from memevo.core.recall.terms import terms
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
    from memevo.core.recall import gate_defaults as calibration

    entry = KNOWN[DEFAULT_MODEL]
    hybrid = calibration.for_model(DEFAULT_MODEL)
    assert hybrid is not None
    defaults = GateSettings.from_config(
        {"recallTopK": 3, "recallMinScore": None, "recallMinScoreProject": None}, entry
    )
    assert (defaults.min_rule, defaults.min_project) == (hybrid.min_rule, hybrid.min_project)
    assert (defaults.lexical_weight, defaults.question_damping) == (
        hybrid.lexical_weight,
        hybrid.question_damping,
    )
    user = GateSettings.from_config(
        {"recallTopK": 5, "recallMinScore": -1, "recallMinScoreProject": 0.4, "recallMinMargin": 0.1}, entry
    )
    assert (user.top_k, user.min_rule, user.min_project, user.margin) == (5, -1, 0.4, 0.1)
    cosine = GateSettings.from_config({"recallLexicalWeight": 0}, entry)
    assert (cosine.min_rule, cosine.min_project) == (entry.recall_min_rule, entry.recall_min_project)
    assert cosine.lexical_weight == 0 and cosine.question_damping == 0
    other = GateSettings.from_config({}, entry_for("some/other-model"))
    assert other.lexical_weight == 0  # no hybrid calibration: the cosine gate


# -- lexical terms and the BM25 index ---------------------------------------------------------------------
def test_terms_keep_identifiers_whole_and_cut_chinese_into_bigrams() -> None:
    got = terms("支付页新流程的灰度开关是 pay_new_flow_v2，库在 pg-staging-02")
    assert {"pay_new_flow_v2", "pay", "flow", "pg-staging-02", "灰度", "开关", "支付"} <= set(got)
    assert "的灰" not in got and "是" not in got  # function characters cut the run
    assert {"commit", "test"} <= set(terms("Committed two tests"))
    assert "git.internal.com/platform/auth-service" in terms("在 git.internal.com/platform/auth-service 仓库")
    assert set(terms("ImageLoader")) >= {"imageloader", "imag", "loader"}
    assert "~commit" in terms("改完代码不要自动提交代码") and "~commit" in terms("git commit -m x")


def test_lexical_index_stays_in_step_and_scores_in_unit_range() -> None:
    index = LexicalIndex(capacity=2)  # forces growth
    index.upsert(
        ["a", "b", "c"],
        ["project", "project", "rule"],
        ["灰度开关是 pay_new_flow_v2", "监控在 grafana", "Never hardcode secrets"],
        [True, True, True],
    )
    scores = index.scores("pay_new_flow_v2 开着吗")
    assert scores.top("project", 3)[0][0] == "a" and 0 < scores.of("a") <= 1
    assert scores.of("b") == 0 and scores.top("rule", 3) == []
    index.upsert(["a"], ["project"], ["开关改名为 checkout_v3"], [True])  # a changed text
    assert index.scores("pay_new_flow_v2").of("a") == 0
    index.set_live("a", False)
    assert index.scores("checkout_v3").of("a") == 0 and len(index) == 2
    index.remove(["b", "c"])
    assert len(index) == 0 and index.scores("grafana").top("project", 3) == []
    for n in range(3000):  # churn: dead documents are compacted away
        index.upsert([f"m{n % 10}"], ["rule"], [f"rule number {n}"], [True])
    assert len(index) == 10 and index.documents < 3000


def test_one_memory_alone_still_scores() -> None:
    assert lexical.alone("pg-staging-02 能写吗", "The staging database is pg-staging-02") > 0.2
    assert lexical.alone("帮我写个快速排序", "The staging database is pg-staging-02") == 0


def test_textbook_questions_are_told_from_questions_about_our_things() -> None:
    assert textbook_question("SQL 里 HAVING 和 WHERE 的区别")
    assert textbook_question("What is the CAP theorem in simple terms?")
    assert not textbook_question("我们的订单库是怎么分库的")
    assert not textbook_question("What does pay_new_flow_v2 do?")
    assert not textbook_question("帮我把这几个文件提交一下")


# -- tool calls described ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tool", "tool_input", "kind"),
    [
        ("Bash", {"command": "git add -A && git commit -m 'x'"}, "commit"),
        ("Bash", {"command": "git push --force origin dev"}, "force push"),
        ("Bash", {"command": "pip install requests"}, "dependency"),
        ("Bash", {"command": "npm install"}, "install the project's dependencies"),
        ("Bash", {"command": "sudo rm -rf build"}, "delete files"),
        ("Bash", {"command": "psql -c 'ALTER TABLE t ADD COLUMN c int'"}, "table schema"),
        (
            "Edit",
            {
                "file_path": "/r/a.py",
                "old_string": "x()",
                "new_string": "try:\n    x()\nexcept Exception:\n    pass",
            },
            "swallowed",
        ),
        (
            "Edit",
            {"file_path": "/r/a.py", "old_string": "import os", "new_string": "import os\nimport requests"},
            "import a library",
        ),
        ("Write", {"file_path": "/r/s/a.scss", "content": ".a{}"}, "stylesheet"),
        # CodeBuddy IDE's tools: camelCase filePath, a SEARCH/REPLACE diff, execute_command
        ("execute_command", {"command": "git commit -am wip", "requires_approval": False}, "commit"),
        ("write_to_file", {"filePath": "/r/s/b.scss", "content": ".b{}"}, "stylesheet"),
        (
            "replace_in_file",
            {
                "path": "/r/a.py",
                "diff": "<<<<<<< SEARCH\nx()\n=======\ntry:\n    x()\nexcept Exception:\n    pass\n>>>>>>> REPLACE",
            },
            "swallowed",
        ),
        (
            "replace_in_file",
            {"path": "/r/a.py", "diff": "--- a/a.py\n+++ b/a.py\n@@\n import os\n+import requests"},
            "import a library",
        ),
        ("MCP", {"tool_name": "create_branch", "tool_input": "{}"}, "new git branch"),
        ("", {"tool_name": "execute_sql", "tool_input": '{"sql": "DROP TABLE x"}'}, "table schema"),
    ],
)
def test_tool_calls_are_described_by_what_they_do(tool: str, tool_input: dict, kind: str) -> None:
    described = describe(tool, tool_input)
    assert described is not None and any(kind in k for k in described.kinds), described


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Bash", {"command": "ls -la"}),
        ("Bash", {"command": "git status"}),
        ("Bash", {"command": "pytest -q"}),
        ("Edit", {"file_path": "/r/a.py", "old_string": "slugfy", "new_string": "slugify"}),
        ("Write", {"file_path": "/r/new.py", "content": "import os\n"}),
    ],
)
def test_calls_no_rule_is_about_are_not_recalled(tool: str, tool_input: dict) -> None:
    described = describe(tool, tool_input)
    assert described is None or not described.kinds


def test_a_huge_tool_input_is_read_in_bounded_time() -> None:
    described = describe("Write", {"file_path": "/r/a.py", "content": "x = 1\n" * 500_000 + "except:"})
    assert described is not None and len(described.text) <= 500


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


def test_every_way_of_scoring_agrees_with_plain_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool lives as columns (core/recall/index.py): the whole-pool search on one thread and
    in two halves, the scores of chosen memories, one memory's score and the cues' better
    cosine all give what one vector per row gives, through growth and a reused slot."""
    from memevo.core.recall import index as index_mod

    rng = np.random.default_rng(11)
    background = _unit(rng, 1)[0] * 0.2
    index = MemoryIndex(16, background, capacity=3)
    vectors, cue_vectors = _unit(rng, 40), _unit(rng, 40)
    ids = [f"m{i}" for i in range(40)]
    index.upsert(ids, ["rule"] * 40, ids, np.zeros(40, dtype=bool), vectors)
    index.set_cues({ids[i]: cue_vectors[i] for i in range(0, 40, 3)})
    index.remove(["m5"])
    index.upsert(["late"], ["rule"], ["late"], np.zeros(1, dtype=bool), vectors[5:6] * -1)  # m5's slot

    def centred(v: np.ndarray) -> np.ndarray:
        c = v - background
        return c / np.linalg.norm(c)

    query = _unit(rng, 1)[0]
    q = centred(query)
    expected = {i: float(centred(vectors[n]) @ q) for n, i in enumerate(ids) if i != "m5"}
    expected["late"] = float(centred(-vectors[5]) @ q)
    with_cues = dict(expected)
    for n in range(0, 40, 3):
        if ids[n] != "m5":
            with_cues[ids[n]] = max(expected[ids[n]], float(centred(cue_vectors[n]) @ q))
    for split_at in (index_mod.SPLIT_AT, 2):  # one thread, then two halves
        monkeypatch.setattr(index_mod, "SPLIT_AT", split_at)
        for cues, wanted in ((False, expected), (True, with_cues)):
            got = dict(index.ranked_centred(index.centre_query(query), 100, cues=cues)["rule"])
            assert got.keys() == wanted.keys()
            assert max(abs(got[i] - wanted[i]) for i in wanted) < 1e-6
    chosen = index.scores_of(q.astype(np.float32), ["m3", "late", "m5", "nobody"], cues=True)
    assert chosen.keys() == {"m3", "late"}
    assert abs(chosen["m3"] - with_cues["m3"]) < 1e-6 and abs(chosen["late"] - expected["late"]) < 1e-6
    one = index.score(query, "m7")
    assert one is not None and abs(one - expected["m7"]) < 1e-6


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


# -- a prompt's sentences (sentences.py) and cross-language pairs (crossing.py) --------------------
def test_a_prompt_of_one_sentence_is_searched_whole() -> None:
    assert sentences.split("帮我把登录页的按钮改成蓝色") == []
    assert sentences.split("Fix the flaky test in test_orders.py, please.") == []
    # a second sentence too short to say anything does not count either
    assert sentences.split("嗯。帮我把登录页的按钮改成蓝色") == []


def test_a_chat_turn_is_cut_at_sentence_ends_in_both_languages() -> None:
    turn = "昨天老师在班上表扬我了！我感觉好开心。You know what? I love maths and science.\n第二行也算一句"
    assert sentences.split(turn) == [
        "昨天老师在班上表扬我了！",
        "我感觉好开心。",
        "You know what?",
        "I love maths and science.",
        "第二行也算一句",
    ]
    # a dot inside a name or a number is not a sentence end
    assert sentences.split("Bump requests to 2.32 in setup.py now. Then run the tests again.") == [
        "Bump requests to 2.32 in setup.py now.",
        "Then run the tests again.",
    ]


def test_a_long_chat_keeps_how_it_opens_and_what_it_ends_asking() -> None:
    turn = "".join(f"这是第{n}句话，内容不同。" for n in range(1, 11))
    kept = sentences.split(turn)
    assert len(kept) == sentences.MAX_SENTENCES
    assert kept[0].startswith("这是第1句") and kept[-1].startswith("这是第10句")
    # linear in the text: a 500-character prompt of dots is cut once, not re-scanned
    assert sentences.split("。" * 500) == []


def test_shares_of_chinese_tell_mixed_texts_by_words_not_letters() -> None:
    assert crossing.chinese_share("Production runs on the Kubernetes cluster prod-sh-1") < 0.1
    assert crossing.chinese_share("生产环境跑在哪个集群上") == 1.0
    # an identifier in a Chinese sentence keeps it Chinese
    assert crossing.chinese_share("改完代码不要自动 commit") > 0.8
    assert crossing.chinese_share("12345 !!!") == 0.5
    gains = crossing.bonus(1.0, np.asarray([1.0, 0.0, 0.5], dtype=np.float32), 0.1)
    assert gains.tolist() == pytest.approx([0.0, 0.1, 0.05])


def test_a_cross_language_bonus_lifts_only_pairs_of_two_languages() -> None:
    rng = np.random.default_rng(7)
    index = MemoryIndex(8, np.zeros(8, dtype=np.float32))
    raw = rng.normal(size=(3, 8)).astype(np.float32)
    index.upsert(
        ["zh", "en", "mixed"],
        ["project"] * 3,
        ["支付页新流程的灰度开关", "the payment page rollout flag", "灰度开关叫 pay_new_flow_v2"],
        np.zeros(3, dtype=bool),
        raw,
    )
    query = index.centre_query(rng.normal(size=8).astype(np.float32))
    plain = index.scores_of(query, ["zh", "en", "mixed"])
    lifted = index.scores_of(query, ["zh", "en", "mixed"], crossed=(0.0, 0.1))  # an English prompt
    assert lifted["zh"] == pytest.approx(plain["zh"] + 0.1)
    assert lifted["en"] == pytest.approx(plain["en"])
    assert plain["mixed"] < lifted["mixed"] < plain["mixed"] + 0.1
    ranked = dict(index.ranked_centred(query, 3, crossed=(0.0, 0.1))["project"])
    assert ranked == pytest.approx(lifted)


def test_several_query_rows_score_the_best_of_them() -> None:
    rng = np.random.default_rng(11)
    index = MemoryIndex(8, np.zeros(8, dtype=np.float32))
    raw = rng.normal(size=(4, 8)).astype(np.float32)
    index.upsert(
        ["a", "b", "c", "d"], ["rule", "rule", "project", "project"], list("abcd"), np.zeros(4, bool), raw
    )
    rows = index.centre_queries(rng.normal(size=(3, 8)).astype(np.float32))
    each = [index.scores_of(row, list("abcd")) for row in rows]
    best = index.scores_of(rows, list("abcd"))
    assert best == pytest.approx({i: max(e[i] for e in each) for i in "abcd"})
    ranked = index.ranked_centred(rows, 2)
    assert dict(ranked["rule"]) == pytest.approx({i: best[i] for i in "ab"})
