"""Issue 48 item 1: what the user reads after answering the dialog — the notification after
Save, Merge, Replace or Don't save, Tidy up's Keep and Keep all — is in the UI's language, worded
by the dialog's own catalogue from the result's fields (core's `message` is Chinese, for the chat
and the command line). And item 7: Tidy up's buttons name each memory by its id and an excerpt of
its text. Each language is read from a process of its own (the suite pins the UI to Chinese)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest
from deadlines import HANG_S
from memevo.core.clock import FakeClock
from memevo.core.consolidation import proposals
from memevo.core.learning import resolve
from memevo.core.memories import live as memories
from memevo.core.store.database import Store

WORD = re.compile(r"[A-Za-z]{3,}")
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
RULE = "Always write commit messages in English"
FACT = "The payments flag is pay_new_flow_v2"

# In a process of the given language: each result worded, and Tidy up's texts.
PROBE = """
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
        [sys.executable, "-c", PROBE],
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
        assert not WORD.search(re.sub(r"#\w+", "", rest)), text
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
