"""Issue 46 in the panel: "From past sessions" reviews what the user said again and again in a
history tests/history.py writes, as `memevo backfill --review` does (cli/backfill_commands.py):
nothing is written before an accept, a skipped candidate never comes back, a review left midway
proposes the rest again, a whole review makes the next scan read only what is new; and the
wizard's offer opens it (pytest-qt, offscreen, the real model in process)."""

from __future__ import annotations

import html
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import history
import pytest
from memevo.core.importers import backfill
from memevo.core.memories import live as memories
from memevo.core.service.host import ServiceHost
from memevo.desktop.backfill_view import BackfillView
from PySide6.QtCore import Qt

SCAN_MS = 180_000


@pytest.fixture
def user_home(isolated_home: Path) -> Path:
    home = Path(os.environ["HOME"])
    history.realistic(home, history.make_repos(home))
    return home


def _settle(qtbot: Any, view: BackfillView) -> None:
    qtbot.waitUntil(lambda: not view.worker.busy, timeout=SCAN_MS)


def _scanned(qtbot: Any, host: ServiceHost) -> BackfillView:
    view = BackfillView(host)
    qtbot.addWidget(view)
    view.scan()
    _settle(qtbot, view)
    return view


def _texts(host: ServiceHost) -> dict[str, tuple[str, str | None]]:
    return {
        m.text: (category, m.scope)
        for category in ("rule", "project")
        for m in memories.ranked(host.store, category)
    }


@contextmanager
def english(app: Any) -> Iterator[None]:
    """The suite runs the UI in Chinese: its catalogues out for a while, the English sources shown."""
    from memevo.desktop import i18n

    for translator in i18n._installed:
        app.removeTranslator(translator)
    try:
        yield
    finally:
        for translator in i18n._installed:
            app.installTranslator(translator)


def test_the_panels_review_does_what_the_terminals_does(
    qtbot: Any, model_host: ServiceHost, user_home: Path
) -> None:
    view = _scanned(qtbot, model_host)
    assert len(view.items) >= 7, view.last_message
    assert "条待审阅" in view.last_message and _texts(model_host) == {}  # nothing written before a yes
    fact = next(c for c in view.items if "pay_new_flow_v2" in c["text"])
    assert fact["category"] == "project" and fact["scope"] == "github.com/ann/shop"
    view.list.setCurrentRow(view.items.index(fact))
    shown = view.evidence.text()  # the evidence: group, sessions and dates, repository, words, why
    assert (
        "项目事实（github.com/ann/shop）" in shown and "github.com/ann/shop" in view.list.currentItem().text()
    )
    assert fact["evidence"]["first_day"] in shown and "你的原话" in shown and "原因" in shown
    assert html.escape(fact["evidence"]["words"][0]) in shown  # the user's words, verbatim
    first, second, third, fourth = (dict(c) for c in view.items[:4])
    # a: accept the first (one key, the list has focus)
    view.list.setCurrentRow(0)
    view.list.setFocus()
    qtbot.keyClick(view.list, "a")
    _settle(qtbot, view)
    assert first["text"] in _texts(model_host) and first["sha"] not in [c["sha"] for c in view.items]
    # g then a: the second in the other group
    qtbot.keyClick(view.list, "g")
    assert view.items[0]["category"] != second["category"]
    view.buttons["accept"].click()
    _settle(qtbot, view)
    other = "project" if second["category"] == "rule" else "rule"
    assert _texts(model_host)[second["text"]][0] == other
    # s: the third is skipped, written nowhere, recorded
    qtbot.keyClick(view.list, "s")
    _settle(qtbot, view)
    assert third["text"] not in _texts(model_host) and third["sha"] in backfill.load_state()["skipped"]
    assert backfill.load_state()["files"] == {}  # the review is not whole yet
    # e: the fourth, edited, then accepted with the user's text
    view.ask_text = lambda current: current + "（已编辑）"  # type: ignore[method-assign]
    qtbot.keyClick(view.list, "e")
    assert view.items[0]["text"] == fourth["text"] + "（已编辑）"
    view.buttons["accept"].click()
    _settle(qtbot, view)
    assert fourth["text"] + "（已编辑）" in _texts(model_host) and fourth["text"] not in _texts(model_host)
    left = [c["sha"] for c in view.items]
    # the view closed midway: a new scan proposes the rest again, never the skipped or kept ones
    again = _scanned(qtbot, model_host)
    shas = [c["sha"] for c in again.items]
    assert third["sha"] not in shas and first["sha"] not in shas and second["sha"] not in shas
    assert set(left) <= set(shas)
    # A (shift): every shown one is kept, and the review is whole
    again.list.setFocus()
    qtbot.keyClick(again.list, "A", Qt.KeyboardModifier.ShiftModifier)
    _settle(qtbot, again)
    assert all(model_host.handle("notes_known", {"shas": [s], "texts": [""]})["known"] for s in left)
    assert again.items == [] and len(_texts(model_host)) >= 4
    assert "所有候选都已处理" in again.last_message
    assert backfill.load_state()["files"]  # the transcripts' signatures: the next scan reads what is new
    last = _scanned(qtbot, model_host)
    assert last.items == [] and last.last_message == "自上次审阅以来，会话中没有新内容。"
    assert third["sha"] in backfill.load_state()["skipped"]


def test_in_english_and_what_is_said_when_nothing_is_found(
    qtbot: Any, qapp: Any, host: ServiceHost, isolated_home: Path
) -> None:
    view = _scanned(qtbot, host)  # no transcripts on this machine: the service is not even asked
    assert view.items == [] and view.last_message == "没有找到历史会话：本机上没有编程助手的会话记录。"
    assert view.buttons["accept_all"].isEnabled() is False
    with english(qapp):
        view = _scanned(qtbot, host)
        assert view.last_message == (
            "No past sessions found: no coding assistant's transcripts are on this machine."
        )
        assert view.buttons["accept"].text() == "Accept (a)"
        assert view.buttons["accept_all"].text() == "Accept all shown (A)"


def test_the_evidence_in_english(qtbot: Any, qapp: Any, host: ServiceHost) -> None:
    candidate = {
        "text": "Use pnpm, never npm, in this repository's scripts",
        "category": "project",
        "scope": "github.com/ann/shop",
        "sha": "x",
        "source": "backfill",
        "evidence": {
            "sessions": 3,
            "first_day": "2026-10-01",
            "last_day": "2026-10-20",
            "repositories": ["github.com/ann/shop"],
            "clients": ["claude"],
            "words": ["use pnpm, never npm", "pnpm please, not npm"],
            "why": ["said in 3 sessions", "says it is to last"],
        },
    }
    with english(qapp):
        view = BackfillView(host)
        qtbot.addWidget(view)
        view._found({"prompts": 9, "candidates": [candidate], "files": {}, "before": False})
        shown = view.evidence.text()
        assert "Project fact in github.com/ann/shop" in shown
        assert "said in 3 session(s), 2026-10-01..2026-10-20" in shown
        assert "Why: said in 3 sessions, says it is to last" in shown
        assert "Your words:" in shown and "“pnpm please, not npm”" in shown
        assert view.last_message == "1 to review. Nothing is kept until you accept it."
    view = BackfillView(host)
    qtbot.addWidget(view)
    view._found({"prompts": 9, "candidates": [candidate], "files": {}, "before": False})
    assert "原因：在 3 个会话中说过, 说明了要长期有效" in view.evidence.text()
    assert "你的原话" in view.evidence.text()
