"""Issue 46 in the panel: "From past sessions" reviews what the user said again and again in a
history tests/history.py writes, as `memevo backfill --review` does (cli/backfill_commands.py):
nothing is written before an accept, a skipped candidate never comes back, a review left midway
proposes the rest again, a whole review makes the next scan read only what is new; and the
wizard's offer opens it (pytest-qt, offscreen, the real model in process)."""

from __future__ import annotations

import html
import json
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
from PySide6.QtCore import QItemSelectionModel, Qt
from test_backfill import side_api_answering

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
            "reasons": [
                {"code": backfill.WHY_SESSIONS, "count": "3"},
                {"code": backfill.WHY_DURABLE},
            ],
        },
    }
    with english(qapp):
        view = BackfillView(host)
        qtbot.addWidget(view)
        view._found({"prompts": 9, "candidates": [candidate], "files": {}, "before": False})
        shown = view.evidence.text()
        assert "Project fact in github.com/ann/shop" in shown
        assert "said in 3 sessions, 2026-10-01..2026-10-20" in shown
        assert "Why: said in 3 sessions, says it is to last" in shown
        assert "Your words:" in shown and "“pnpm please, not npm”" in shown
        assert view.last_message == "1 to review. Nothing is kept until you accept it."
    view = BackfillView(host)
    qtbot.addWidget(view)
    view._found({"prompts": 9, "candidates": [candidate], "files": {}, "before": False})
    assert "原因：在 3 个会话中说过、说明了要长期有效" in view.evidence.text()
    assert "你的原话" in view.evidence.text()


# -- a long scan: its progress, and Cancel ------------------------------------------------------------
def _slowly(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, seconds: float) -> list[float]:
    """`module.name`, each call `seconds` slower; the times of the calls, to see when work stopped."""
    import time

    calls: list[float] = []
    real = getattr(module, name)

    def slow(*args: Any, **kwargs: Any) -> Any:
        calls.append(time.monotonic())
        time.sleep(seconds)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, slow)
    return calls


def test_a_scan_shows_its_progress_and_cancel_stops_it_between_files(
    qtbot: Any, host: ServiceHost, user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from memevo.core.importers import transcripts

    read = _slowly(monkeypatch, transcripts, "prompts_of", 0.1)  # 36 files: more than three seconds
    asked: list[str] = []
    monkeypatch.setattr(host, "handle", lambda op, params: asked.append(op) or {"candidates": []})
    view = BackfillView(host)
    qtbot.addWidget(view)
    assert not view.cancel_button.isEnabled() and view.progress.isHidden()
    view.scan()
    assert view.cancel_button.isEnabled() and not view.scan_button.isEnabled()
    qtbot.waitUntil(lambda: view.progress.maximum() == 36 and view.progress.value() >= 10, timeout=10_000)
    assert not view.progress.isHidden()
    qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
    clicked = time.monotonic()
    _settle(qtbot, view)
    assert len([t for t in read if t > clicked]) <= 1 and len(read) < 36  # at most the file under way
    # the scan was never handed to the service (only the folders it knows were asked for, first)
    assert asked in ([], ["repo_folders"]) and view.items == [] and view.files is None
    assert view.last_message == "已取消：没有保存或记录任何内容。"
    assert not backfill.state_path().exists()  # a cancelled scan writes nothing
    assert view.scan_button.isEnabled() and not view.cancel_button.isEnabled() and view.progress.isHidden()


def test_cancel_reaches_the_services_work_on_the_worker(
    qtbot: Any, model_host: ServiceHost, user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    assert model_host.engine is not None
    monkeypatch.setattr(backfill, "ENCODE_CHUNK", 8)
    encoded = _slowly(monkeypatch, model_host.engine.encoder, "encode", 0.1)
    host = model_host
    view = BackfillView(host)
    qtbot.addWidget(view)
    view.scan()
    qtbot.waitUntil(lambda: len(encoded) >= 3, timeout=SCAN_MS)
    qtbot.waitUntil(lambda: "个会话" in view.last_message and view.progress.value() > 0, timeout=10_000)
    view.cancel()
    clicked = time.monotonic()
    _settle(qtbot, view)
    assert len([t for t in encoded if t > clicked]) <= 1  # the chunk under way, then it stopped
    assert view.items == [] and view.last_message == "已取消：没有保存或记录任何内容。"
    assert _texts(host) == {} and not backfill.state_path().exists()


# -- the side model's wording -------------------------------------------------------------------------
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def _candidate(text: str) -> dict[str, Any]:
    return {
        "text": text,
        "category": "rule",
        "scope": "global",
        "sha": backfill.key_of(text),
        "source": "backfill: said in 2 session(s)",
        "evidence": {
            "sessions": 2,
            "first_day": "2026-10-01",
            "last_day": "2026-10-02",
            "repositories": ["github.com/ann/shop"],
            "clients": ["claude"],
            "words": [text, f"{text}, as I said"],
            "why": ["said in 2 sessions"],
        },
    }


def _reworded(body: dict[str, Any]) -> tuple[str, Any]:
    asked = json.loads(body["messages"][1]["content"])
    return (
        "json",
        {"items": [{"id": i["id"], "text": f"Better: {i['text']}", "group": "project"} for i in asked]},
    )


@pytest.fixture
def side_api(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    with side_api_answering(_reworded, monkeypatch) as server:
        yield server


def _reviewing(qtbot: Any, host: ServiceHost, count: int) -> BackfillView:
    view = BackfillView(host)
    qtbot.addWidget(view)
    found = [_candidate(f"Always run the linter on package {n} before pushing") for n in range(count)]
    found[0] = _candidate(f"Deploy with the token {SECRET} from now on")
    view._found({"prompts": 9, "candidates": found, "files": {}, "before": False})
    return view


def test_improve_shows_the_calls_first_and_the_review_keeps_the_users_choice(
    qtbot: Any, qapp: Any, host: ServiceHost, side_api: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memevo.core.importers import improve

    monkeypatch.setattr(improve, "MAX_CALLS", 1)
    view = _reviewing(qtbot, host, 15)
    found = [dict(c) for c in view.items]
    asked: list[tuple[str, int]] = []
    view.confirm_calls = lambda question: asked.append((question, len(side_api.requests))) or False  # type: ignore[method-assign]
    with english(qapp):
        qtbot.mouseClick(view.improve_button, Qt.MouseButton.LeftButton)
        _settle(qtbot, view)
        assert view.last_message == "Not improved; the candidates stand as found."
    ((question, sent_before),) = asked
    assert "10 of 15 candidates" in question and "This makes 1 call to " + side_api.base in question
    assert sent_before == 0 and side_api.requests == []  # the count came first; no means nothing sent
    assert view.items == found
    view.confirm_calls = lambda question: True  # type: ignore[method-assign]
    view.improve_button.click()
    _settle(qtbot, view)
    assert len(side_api.requests) == 1  # the cap
    from memevo.core.learning import jobs

    today = host.clock.local_day(host.clock.now_ms())
    assert jobs.calls_today(host.store, today) == 1  # counted in the day's side API calls (Status)
    sent = json.dumps(side_api.requests, ensure_ascii=False)
    assert SECRET not in sent and "[已隐去]" in sent
    assert view.items[0] == found[0]  # its answer named the hidden secret's marker: not taken
    assert all(
        (c["text"], c["category"], c["original"]["text"]) == (f"Better: {f['text']}", "project", f["text"])
        for c, f in zip(view.items[1:10], found[1:10], strict=True)
    )
    assert view.items[10:] == found[10:]  # past the cap: as found
    assert view.last_message == "旁路模型改进了其中 9 条。"
    # the second candidate: both wordings shown; o goes back to the words found, then accept
    view.list.selectionModel().setCurrentIndex(
        view.list.model().index(1, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
    )
    assert "Better: " in view.list.currentItem().text() and found[1]["text"] in view.evidence.text()
    assert view.buttons["other"].isEnabled()
    view.list.setFocus()
    qtbot.keyClick(view.list, "o")
    assert view.items[1]["text"] == found[1]["text"] and view.items[1]["category"] == "rule"
    qtbot.keyClick(view.list, "o")
    view.buttons["accept"].click()
    _settle(qtbot, view)
    assert _texts(host) == {f"Better: {found[1]['text']}": ("project", "github.com/ann/shop")}
    assert found[1]["sha"] in backfill.load_state()["skipped"]  # the words found do not come back beside it
    assert view.improve_button.isEnabled()  # the ones past the cap can still be improved


def test_without_a_side_api_improve_says_how_to_set_one_up(
    qtbot: Any, qapp: Any, host: ServiceHost, side_api: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMEVO_SIDE_API_KEY")
    view = _reviewing(qtbot, host, 3)
    found = [dict(c) for c in view.items]
    view.confirm_calls = lambda question: pytest.fail("nothing to confirm without a side API")  # type: ignore[method-assign]
    view.improve_button.click()
    _settle(qtbot, view)
    assert "还没有设置旁路接口" in view.last_message and "“设置”" in view.last_message
    with english(qapp):
        view.improve_button.click()
        _settle(qtbot, view)
        assert view.last_message.startswith("No side API is set up") and "Settings" in view.last_message
    assert side_api.requests == [] and view.items == found and _texts(host) == {}


def test_cancel_stops_the_side_models_pass_between_calls_and_keeps_what_came_back(
    qtbot: Any, host: ServiceHost, side_api: Any
) -> None:
    import time

    def slow(body: dict[str, Any]) -> tuple[str, Any]:
        time.sleep(1.0)  # the user clicks Cancel meanwhile
        return _reworded(body)

    side_api.script = slow
    view = _reviewing(qtbot, host, 25)
    view.confirm_calls = lambda question: "3" in question  # type: ignore[method-assign]
    view.improve_button.click()
    qtbot.waitUntil(lambda: len(side_api.requests) == 1, timeout=10_000)
    assert view.cancel_button.isEnabled() and not view.progress.isHidden()
    qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
    _settle(qtbot, view)
    assert len(side_api.requests) == 1  # the call under way came back; no other was made
    assert view.last_message == "已取消。旁路模型改进了其中 9 条。"
    assert sum("original" in c for c in view.items) == 9 and _texts(host) == {}
    assert view.improve_button.isEnabled()  # the rest can still be asked for


def test_a_row_in_chinese_is_whole_in_an_english_ui(qtbot: Any, qapp: Any, host: ServiceHost) -> None:
    """An English UI's font has no Chinese: a Chinese row was drawn in a taller fallback font,
    its evidence line no longer fitted and its text was cut with "…" (a real display)."""
    from PySide6.QtCore import QRect

    candidate = {
        "text": "这个项目以后都用 pnpm，不要用 npm。",
        "category": "rule",
        "scope": "global",
        "sha": "y",
        "source": "backfill",
        "evidence": {
            "sessions": 3,
            "first_day": "2026-10-28",
            "last_day": "2026-12-07",
            "repositories": ["github.com/ann/blog"],
            "clients": ["claude"],
            "words": ["这个项目以后都用 pnpm，不要用 npm。"],
            "why": ["said in 3 sessions"],
        },
    }
    with english(qapp):
        view = BackfillView(host)
        qtbot.addWidget(view)
        view.resize(900, 500)
        view.show()
        view._found({"prompts": 3, "candidates": [candidate], "files": {}, "before": False})
        qtbot.wait(50)
        item = view.list.item(0)
        text = item.text()
        assert "\n" in text and "said in 3 sessions" in text  # two lines: the text, then its evidence
        metrics = view.list.fontMetrics()
        wrap = int(Qt.TextFlag.TextWordWrap)
        needed = metrics.boundingRect(QRect(0, 0, view.list.viewport().width() - 12, 10_000), wrap, text)
        padding = 2  # the style draws a row's text one pixel in from its top and bottom
        assert view.list.visualItemRect(item).height() >= needed.height() + padding


def test_why_is_said_from_core_s_codes_not_its_english(qtbot: Any, host: ServiceHost) -> None:
    """The reasons come as data beside the terminal's English: the panel words each code, says
    a reason it does not know as it came, and a candidate without codes in its English."""
    from memevo.desktop.backfill_texts import reasons_text

    made = backfill.Candidate(
        "以后都用 pnpm", "rule", None, 2, "2026-10-01", "2026-10-02", [], ["以后都用 pnpm"], [], ["claude"]
    )
    made.why = [
        backfill.Message(backfill.WHY_SESSIONS, count=2),
        backfill.Message(backfill.WHY_CORRECTION),
    ]
    evidence = made.as_json()["evidence"]
    assert evidence["why"] == ["said in 2 sessions", "a correction of the assistant"]  # the terminal's
    assert evidence["reasons"] == [
        {"code": backfill.WHY_SESSIONS, "count": "2"},
        {"code": backfill.WHY_CORRECTION},
    ]
    assert reasons_text(evidence) == "在 2 个会话中说过、纠正过助手"
    assert reasons_text({"reasons": [{"code": "backfill.from-the-future", "text": "?"}]}) == "?"
    assert reasons_text({"why": ["said in 2 sessions"]}) == "said in 2 sessions"
    # why a wording pass stopped comes as a code too: the panel's words point to Settings
    from memevo.core.importers import improve
    from memevo.desktop.core_texts import backfill_reason

    assert (
        backfill_reason(improve.DAILY_LIMIT) == "今天的旁路接口调用次数已到上限（sideDailyLimit，见“设置”）"
    )
