"""The confirmation dialog speaks the UI's language — title, every label and every button — and says
it is memevo's and where the proposal came from. Each language is read from a real process started
under that locale (LANG / LC_ALL, as a desktop session sets them): tests/dialogprobe.py writes the
jobs to a real store, shows the dialog and reads its widgets."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from deadlines import HANG_S

PROBE = Path(__file__).resolve().parent / "dialogprobe.py"
LOCALES = {"en": "en_US.UTF-8", "zh": "zh_CN.UTF-8"}
UUID = "1f3e5a7b-2c4d-4e6f-8a9b-0c1d2e3f4a5b"
REPO = "/home/dev/code/payments"


def _ms(*when: int) -> int:
    return int(datetime(*when, tzinfo=UTC).timestamp() * 1000)


NOW = _ms(2026, 12, 3, 15, 32)  # the probe runs with TZ=UTC: local time is UTC
CASES: list[dict[str, Any]] = [
    {  # the client's model, in a repository, merging into a memory; the user spoke Chinese
        "id": "merge",
        "client": "claude",
        "session": UUID,
        "repo": REPO,
        "words": "记一下，以后提交信息都用英文写",
        "created_ms": _ms(2026, 12, 3, 14, 32),
        "proposal": {
            "text": "提交信息一律用英文写",
            "category": "rule",
            "action": "merge",
            "target": "0d136432",
            "target_text": "提交信息用英文",
            "merged_text": "提交信息一律用英文写，遵循 Conventional Commits",
            "origin": "client",
            "verified_words": True,
        },
    },
    {  # the side judge, no project folder, the user spoke English
        "id": "side-global",
        "client": "cursor",
        "session": "mcp-test-1",
        "words": "remember: the payments page flag is pay_new_flow_v2",
        "created_ms": _ms(2026, 12, 2, 9, 5),
        "proposal": {
            "text": "The payments page's new-flow flag is pay_new_flow_v2",
            "category": "project",
            "action": "create",
        },
    },
    {  # words the user never typed: the warning shows
        "id": "replace-unverified",
        "client": "codebuddy",
        "session": "cb-session-42",
        "repo": REPO + "/",
        "words": "把灰度开关改成 v3",
        "created_ms": _ms(2026, 11, 29, 18, 0),
        "proposal": {
            "text": "支付页新流程的灰度开关是 pay_new_flow_v3",
            "category": "project",
            "action": "replace",
            "target": "a1b2c3d4",
            "target_text": "支付页新流程的灰度开关是 pay_new_flow_v2",
            "replace_text": "支付页新流程的灰度开关是 pay_new_flow_v3",
            "origin": "client",
            "verified_words": False,
        },
    },
    {  # a job without the user's words: no empty "You said" row
        "id": "reinforce-no-words",
        "client": "workbuddy",
        "session": "wb-7",
        "repo": "/srv/work/图片服务",
        "words": "",
        "created_ms": _ms(2026, 12, 3, 0, 10),
        "proposal": {
            "text": "Always answer in English",
            "category": "rule",
            "action": "reinforce",
            "target": "9f8e7d6c",
            "target_text": "Always answer in English",
        },
    },
]
for _case in CASES:
    _case["now_ms"] = NOW
    _case["proposal"]["options"] = []


def _probe(language: str) -> dict[str, dict[str, Any]]:
    locale = LOCALES[language]
    env = os.environ | {
        "QT_QPA_PLATFORM": "offscreen",
        "MEMEVO_LANG": "",  # conftest pins the GUI tests to Chinese: here the locale decides
        "LANG": locale,
        "LC_ALL": locale,
        "TZ": "UTC",
    }
    done = subprocess.run(
        [sys.executable, str(PROBE), json.dumps(CASES, ensure_ascii=False)],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    shown = [json.loads(line) for line in done.stdout.splitlines()]
    assert [s["case"] for s in shown] == [c["id"] for c in CASES]
    assert {s["language"] for s in shown} == {language}
    return {s["case"]: s for s in shown}


@pytest.fixture(scope="module")
def english() -> dict[str, dict[str, Any]]:
    return _probe("en")


@pytest.fixture(scope="module")
def chinese() -> dict[str, dict[str, Any]]:
    return _probe("zh")


# -- what each language shows, widget by widget --------------------------------------------------
def test_english_names_memevo_the_origin_and_every_choice(english: dict[str, dict[str, Any]]) -> None:
    merge = english["merge"]
    assert merge["title"] == "memevo · Confirm a new memory"
    assert merge["labels"][0] == "memevo learned something from your conversation. Save it as a memory?"
    assert merge["rows"] == {
        "client": "Claude Code",
        "project": "payments",
        "session": "1f3e5a7b…",
        "time": "today at 14:32",
        "proposer": "Claude Code's own model",
        "words": "记一下，以后提交信息都用英文写",
        "proposal": "Merge memory #0d136432 “提交信息用英文” into “提交信息一律用英文写，遵循 Conventional Commits”",
        "group": "Rules and preferences (rule)",
    }
    assert merge["project_tooltip"] == REPO and UUID in merge["tooltips"]
    assert merge["buttons"] == [
        "Save as a rule",
        "Save as a project fact",
        "Merge into memory #0d136432",
        "Don't save",
    ]
    for name in (
        "Client:",
        "Project:",
        "Session:",
        "When:",
        "Proposed by:",
        "You said:",
        "Proposal:",
        "Group:",
    ):
        assert name in merge["labels"]
    side = english["side-global"]
    assert side["rows"]["client"] == "Cursor" and side["rows"]["proposer"] == "the side judge"
    assert side["rows"]["project"] == "Global" and side["rows"]["session"] == "mcp-test-1"
    assert side["rows"]["time"] == "yesterday at 09:05"
    assert (
        side["rows"]["proposal"]
        == "A new project fact: “The payments page's new-flow flag is pay_new_flow_v2”"
    )
    assert side["rows"]["group"] == "Project facts (project)"
    replace = english["replace-unverified"]
    assert replace["rows"]["client"] == "CodeBuddy" and replace["rows"]["project"] == "payments"
    assert replace["rows"]["time"] == "2026-11-29 at 18:00"
    assert (
        "These words were not found in what you typed in this session — check before saving."
        in replace["labels"]
    )
    assert replace["buttons"][2] == "Replace memory #a1b2c3d4"
    assert replace["rows"]["proposal"].startswith(
        "Replace memory #a1b2c3d4 “支付页新流程的灰度开关是 pay_new_flow_v2” with"
    )
    reinforce = english["reinforce-no-words"]
    assert reinforce["rows"]["client"] == "WorkBuddy" and reinforce["rows"]["project"] == "图片服务"
    assert not reinforce["words_shown"] and "You said:" not in reinforce["labels"]
    assert reinforce["buttons"][2] == "Reinforce memory #9f8e7d6c"


def test_chinese_names_memevo_the_origin_and_every_choice(chinese: dict[str, dict[str, Any]]) -> None:
    merge = chinese["merge"]
    assert merge["title"] == "memevo · 确认一条新记忆"
    assert merge["labels"][0] == "memevo 从你的对话里学到了一条内容，要保存为记忆吗？"
    assert merge["rows"] == {
        "client": "Claude Code",
        "project": "payments",
        "session": "1f3e5a7b…",
        "time": "今天 14:32",
        "proposer": "Claude Code 自己的模型",
        "words": "记一下，以后提交信息都用英文写",
        "proposal": "与已有记忆 #0d136432「提交信息用英文」合并为「提交信息一律用英文写，遵循 Conventional Commits」",
        "group": "规则与偏好（rule）",
    }
    assert merge["project_tooltip"] == REPO
    assert merge["buttons"] == ["保存为规则", "保存为项目事实", "合并到已有记忆 #0d136432", "不保存"]
    for name in ("客户端：", "项目：", "会话：", "提议时间：", "提议者：", "你说：", "提议：", "分组："):
        assert name in merge["labels"]
    side = chinese["side-global"]
    assert side["rows"]["project"] == "全局" and side["rows"]["proposer"] == "旁路模型"
    assert side["rows"]["time"] == "昨天 09:05"
    assert side["rows"]["proposal"] == "新增项目事实「The payments page's new-flow flag is pay_new_flow_v2」"
    replace = chinese["replace-unverified"]
    assert replace["rows"]["time"] == "2026-11-29 18:00"
    assert "在本会话里你输入的内容中没有找到这段原话——保存前请核对。" in replace["labels"]
    assert replace["buttons"][2] == "替换已有记忆 #a1b2c3d4"
    assert chinese["reinforce-no-words"]["buttons"][2] == "强化已有记忆 #9f8e7d6c"


# -- nothing of the other language ---------------------------------------------------------------
CJK = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
ENGLISH_WORD = re.compile(r"[A-Za-z]{2,}")
ZH_KEPT = [
    "memevo",
    "（rule）",
    "（project）",
]  # the product's name; the groups' ids, as the config spells them


def _own_words(case: dict[str, Any]) -> list[str]:
    """What the user and the proposal said, the names of things (client, project, session, ids):
    shown as they are whatever the UI's language. Longest first, so none is cut by a shorter one."""
    from memevo.installer.clients import DISPLAY_NAMES

    proposal = case["proposal"]
    kept = [case["words"], case["session"], case["session"][:8], DISPLAY_NAMES[case["client"]]]
    kept += [case["repo"] if case.get("repo") else ""]
    kept += [Path(case["repo"]).name if case.get("repo") else ""]
    kept += [
        str(proposal.get(k) or "") for k in ("text", "target_text", "merged_text", "replace_text", "target")
    ]
    return sorted((k for k in kept if k), key=len, reverse=True)


def _visible(shown: dict[str, Any]) -> list[str]:
    return [shown["title"], *shown["labels"], *shown["buttons"], *shown["tooltips"]]


def _foreign(language: str, case: dict[str, Any], texts: list[str]) -> list[str]:
    """The pieces of the dialog's own words that are in the other language."""
    found: list[str] = []
    for text in texts:
        for own in _own_words(case) + (ZH_KEPT if language == "zh" else []):
            text = text.replace(own, " ")
        found += CJK.findall(text) if language == "en" else ENGLISH_WORD.findall(text)
    return found


def test_the_checker_finds_the_other_language() -> None:
    """The check below would have caught Chinese buttons in the English dialog."""
    case = CASES[0]
    assert _foreign("en", case, ["Save as a rule", "保存为规则"]) == list("保存为规则")
    assert _foreign("zh", case, ["保存为规则", "Save as a rule"]) == ["Save", "as", "rule"]
    assert (
        _foreign("zh", case, ["规则与偏好（rule）", "memevo · 确认一条新记忆", "Claude Code 自己的模型"])
        == []
    )
    assert _foreign("en", case, [f"“{case['proposal']['merged_text']}” {case['words']}"]) == []


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_english_shows_no_chinese_of_its_own(
    english: dict[str, dict[str, Any]], case: dict[str, Any]
) -> None:
    assert _foreign("en", case, _visible(english[case["id"]])) == []


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_chinese_shows_no_untranslated_english(
    chinese: dict[str, dict[str, Any]], case: dict[str, Any]
) -> None:
    assert _foreign("zh", case, _visible(chinese[case["id"]])) == []
