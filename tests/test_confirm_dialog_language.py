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
from memevo.core.clock import FakeClock
from memevo.core.consolidation import proposals
from memevo.core.learning import resolve
from memevo.core.memories import live as memories
from memevo.core.store.database import Store

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


# -- after the dialog (issue 48 items 1 and 7) ----------------------------------------------------
# What the user reads after answering — the notification after Save, Merge, Replace or Don't save,
# Tidy up's Keep and Keep all — is in the UI's language, worded by the dialog's own catalogue from
# the result's fields (core's `message` is Chinese, for the chat and the command line); Tidy up's
# buttons and the Purge question name each memory by its id and an excerpt of its text.
RESULT_WORD = re.compile(r"[A-Za-z]{3,}")
RULE = "Always write commit messages in English"
FACT = "The payments flag is pay_new_flow_v2"

# In a process of the given language: each result worded, and Tidy up's texts.
RESULT_PROBE = """
import json, sys
from memevo.desktop.qt import QApplication
from memevo.desktop.i18n import install_translator
from memevo.desktop import confirm_texts as texts
app = QApplication(sys.argv[:1])
language = install_translator(app)
results, members = json.loads(sys.stdin.read())
print(json.dumps({
    "language": language,
    "results": [texts.result(r) for r in results],
    "keep": texts.choice("keep:" + next(iter(members)), None, True, members),
    "heading": texts.heading({"origin": "consolidate", "kind": "duplicate"}, ["merge", "discard"]),
    "title": texts.title(),
}, ensure_ascii=False))
"""


def _results(store: Store, clock: FakeClock) -> list[dict[str, Any]]:
    """Real results of each decision, as core returns them."""
    rule = {"text": RULE, "category": "rule", "action": "create"}
    made = [resolve.apply(store, clock, rule, "create_rule")]
    target = made[0]["memory"]["id"]
    fact = {"text": FACT, "category": "project", "action": "create"}
    made.append(resolve.apply(store, clock, fact, "create_project"))
    made.append(resolve.apply(store, clock, rule, "create_rule"))  # the same text: it existed
    near = {"text": RULE + " always", "category": "rule", "target": target}
    made.append(resolve.apply(store, clock, near | {"action": "reinforce"}, "reinforce"))
    made.append(resolve.apply(store, clock, near | {"merged_text": RULE + ", please"}, "merge"))
    made.append(resolve.apply(store, clock, near | {"replace_text": RULE + " now"}, "replace"))
    made.append(resolve.apply(store, clock, rule, "discard"))
    first = memories.create(store, "rule", "Use four spaces to indent code", clock)
    second = memories.create(store, "rule", "Indent code with four spaces", clock)
    tidy = {
        "origin": "consolidate",
        "kind": "duplicate",
        "key": "k1",
        "target": first.id,
        "text": first.text,
        "members": [{"id": m.id, "text": m.text} for m in (first, second)],
        "options": [f"keep:{first.id}", f"keep:{second.id}", "discard"],
    }
    made.append(proposals.apply(store, clock, tidy, "discard"))
    made.append(proposals.apply(store, clock, tidy | {"key": "k2"}, f"keep:{first.id}"))
    third = memories.create(store, "rule", "Indent code using four spaces", clock)
    both = tidy | {"members": [{"id": m.id, "text": m.text} for m in (first, third)]}
    made.append(proposals.apply(store, clock, both, "merge", "Indent code with four spaces, never tabs"))
    return made


def _shown(language: str, results: list[dict[str, Any]], members: dict[str, str]) -> dict[str, Any]:
    env = os.environ | {"QT_QPA_PLATFORM": "offscreen", "MEMEVO_LANG": language}
    done = subprocess.run(
        [sys.executable, "-c", RESULT_PROBE],
        input=json.dumps([results, members], ensure_ascii=False),
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    shown: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    assert shown["language"] == language
    return shown


@pytest.fixture
def made(store: Store, clock: FakeClock) -> list[dict[str, Any]]:
    return _results(store, clock)


MEMBERS = {"a1b2c3d4": "Use four spaces to indent code in every Python file of this repository"}


def test_english_results_are_english(made: list[dict[str, Any]]) -> None:
    assert all(CJK.search(r["message"]) for r in made)  # core's own message stays Chinese
    shown = _shown("en", made, MEMBERS)
    said = shown["results"]
    assert [bool(CJK.search(s)) for s in said] == [False] * len(made), said
    create = made[0]["memory"]
    assert (
        said[0] == f"New memory #{create['id']} (confidence 0.5): {RULE}\nGroup: Rules and preferences (rule)"
    )
    assert said[1].endswith(f": {FACT}\nGroup: Project facts (project)")
    assert said[2].startswith("This memory already existed: reinforced #")
    assert said[3].startswith(f"Reinforced memory #{create['id']} (confidence +")
    assert said[4].startswith(f"Merged into memory #{create['id']} (confidence +")
    assert said[5].startswith(f"Replaced memory #{create['id']}: {RULE} now")
    assert said[6] == "Not saved: nothing was written."
    assert said[7].startswith("Kept them all as they are")
    assert said[8].endswith("\n1 other went to the trash (it can be restored).")
    assert said[9].startswith("Merged into memory #") and "never tabs" in said[9]
    # Tidy up's button: the id and an excerpt of the text; its question is one it can answer
    assert shown["keep"] == "Keep #a1b2c3d4 “Use four spaces to indent c…”, trash the others"
    assert shown["heading"] == (  # no side model's text: the user writes it, and is told so
        "These memories say the same thing. Merge them into one (choose or edit its text below), or keep one?"
    )
    assert shown["title"] == "memevo · Confirm a new memory"  # the MCP tool's answer names it


def test_chinese_results_are_chinese(made: list[dict[str, Any]]) -> None:
    shown = _shown("zh", made, MEMBERS)
    said = shown["results"]
    for text, result in zip(said, made, strict=True):
        rest = text.replace(str((result.get("memory") or {}).get("text")), "")  # the memory's own words
        for words in ("(rule)", "(project)", "（rule）", "（project）"):
            rest = rest.replace(words, "")
        assert not RESULT_WORD.search(re.sub(r"#\w+", "", rest)), text
    assert said[0].startswith("新增记忆 #") and said[0].endswith("分组：规则与偏好（rule）")
    assert said[6] == "已放弃这条记忆，没有写入。"
    assert said[8].endswith("其余 1 条已移到回收站（可恢复）。")
    assert shown["keep"] == "保留 #a1b2c3d4「Use four spaces to indent c…」，其余移到回收站"
    assert shown["title"] == "memevo · 确认一条新记忆"


def test_the_purge_question_names_each_memory_by_an_excerpt(
    qtbot: Any, store: Store, clock: FakeClock
) -> None:
    """The irreversible Purge… asks about each memory by its id and an excerpt of its text, the
    whole text in the tooltip (desktop/memories_dialogs.py; the suite's UI is Chinese)."""
    from memevo.desktop.memories_dialogs import purge_question

    long = memories.create(store, "rule", "Use four spaces to indent code in every Python file here", clock)
    short = memories.create(store, "project", "部署脚本在 scripts/deploy.sh", clock)
    question, tooltip = purge_question([long, short])
    assert question.startswith("从 memevo 保存的所有地方清除这些记忆的正文？这一步不能撤销。")
    assert f"#{long.id}「Use four spaces to indent c…」" in question
    assert f"#{short.id}「部署脚本在 scripts/deploy.sh」" in question
    assert tooltip == f"#{long.id}: {long.text}\n#{short.id}: {short.text}"
