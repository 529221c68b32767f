"""What the service injects: the session-start cap, the wording per client, the reminder."""

from __future__ import annotations

from memevo.core.service import texts


def test_session_start_stays_under_the_cap_and_counts_what_it_left_out() -> None:
    rules = [f"第 {i:02d} 条规则：" + "提交前先运行完整的单元测试并检查代码格式，" * 12 for i in range(50)]
    text, shown = texts.session_start("claude", rules, None, 10_000)
    assert len(text) <= 10_000
    assert 0 < shown < 50
    assert f"另有 {50 - shown} 条规则因篇幅未列出" in text
    assert rules[0] in text and rules[shown] not in text  # highest confidence first, cut at the cap
    assert text.endswith(texts.duties("claude"))


def test_all_rules_fit_when_short() -> None:
    text, shown = texts.session_start("default", ["回答用中文", "不要自动 commit"], None, 10_000)
    assert shown == 2 and "另有" not in text and "1. 回答用中文\n2. 不要自动 commit\n" in text


def test_wording_per_client() -> None:
    assert "Claude Code 自带的记忆" in texts.duties("claude") and "update_memory" not in texts.duties(
        "claude"
    )
    assert "update_memory" in texts.duties("codebuddy") and "update_memory" in texts.reminder("codebuddy")
    assert "本插件" in texts.reminder("claude")
    for flavor in ("default", "claude", "codebuddy"):
        assert "MEMORY_CONFIRM_V1" in texts.reminder(flavor)
        assert "项目" not in texts.duties(flavor)  # no instructions for reading project facts


def test_learning_off_replaces_duties_and_says_how_to_enable() -> None:
    off = texts.learning_off("default", legacy_blocking=False)
    text, _ = texts.session_start("default", ["回答用中文"], off, 10_000)
    assert "记忆沉淀未启用" in text and "memevo setup" in text and texts.duties("default") not in text
    assert "sideJudge=false" in texts.learning_off("claude", legacy_blocking=True)
