"""The panel's merge, undo, semantic search and confidence bar, and the UI-freeze rule at 100k:
no store query and no service op runs on the UI thread while the user browses, searches and edits."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from memevo.core import memories
from memevo.core.clock import FakeClock
from memevo.core.service.host import ServiceHost
from memevo.desktop.memories_view import MemoriesView
from test_panel import _click, _select, _settle


def test_merge_two_and_undo(
    qtbot, host: ServiceHost, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    second = memories.create(host.store, "rule", "代码注释也用中文写", clock)
    clock.advance(days=1)
    memories.reinforce(host.store, second.id, clock)  # second has the higher confidence: it stays
    view = MemoriesView(host)
    qtbot.addWidget(view)
    _settle(qtbot, view)
    _select(view, [0])
    _click(qtbot, view, "merge")
    assert "两条" in view.last_message and memories.trash_list(host.store) == []  # one selected: refused
    monkeypatch.setattr(view, "ask_text", lambda *args: "回答和代码注释都用中文")
    _select(view, [0, 1])
    _click(qtbot, view, "merge")
    kept = memories.get(host.store, second.id)
    assert kept.text == "回答和代码注释都用中文" and kept.confidence == 60
    assert [t.memory.id for t in memories.trash_list(host.store)] == [first.id]
    assert view.model.total == 1
    _click(qtbot, view, "undo")
    assert memories.get(host.store, second.id).text == "代码注释也用中文写"
    assert memories.get(host.store, first.id).text == "回答问题时一律使用中文"
    assert view.model.total == 2


def test_semantic_search_through_the_service(
    qtbot, host: ServiceHost, clock: FakeClock, encoder: Any
) -> None:
    from memevo.core.recall.engine import RecallEngine

    memories.create(host.store, "rule", "改完代码不要自动 commit", clock)
    fact = memories.create(host.store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", clock)
    memories.create(host.store, "project", "测试环境的数据库每周一早上重置", clock)
    view = MemoriesView(host)
    qtbot.addWidget(view)
    view.semantic.setChecked(True)
    view.search.setText("支付页面的灰度开关叫什么")
    view.apply_filters()
    _settle(qtbot, view)
    assert view.model.error and view.model.total == 0  # the model has not loaded yet: said, not crashed
    host.engine = RecallEngine(host.store, encoder, clock)
    view.apply_filters()
    _settle(qtbot, view)
    assert view.model.total == 3 and view.model.memory_at(0).id == fact.id
    scores = [float(view.model.data(view.model.index(r, 6))) for r in range(3)]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[1]
    before = memories.get(host.store, fact.id)
    assert before.last_seen_ms == fact.last_seen_ms  # searching is not recalling: no award
    view.group.setCurrentIndex(1)  # rules only
    _settle(qtbot, view)
    assert [m.category for m in view.model.rows] == ["rule"]


def test_confidence_bar_paints_by_strength(qtbot, host: ServiceHost, clock: FakeClock) -> None:
    from memevo.desktop.qt import QColor
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QStyleOptionViewItem

    memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    with host.store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 90")
    view = MemoriesView(host)
    qtbot.addWidget(view)
    _settle(qtbot, view)
    image = QImage(100, 20, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    option = QStyleOptionViewItem()
    option.rect = image.rect()
    view.table.itemDelegateForColumn(2).paint(painter, option, view.model.index(0, 2))
    painter.end()
    assert image.pixelColor(10, 10).name() == "#66bb6a"  # filled part: strong, green
    assert image.pixelColor(95, 10).name() == "#eeeeee"  # beyond 0.9: the empty track


def test_no_store_work_on_the_ui_thread_at_100k(
    qtbot, host: ServiceHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The freeze budget (100 ms) is kept by construction: every query and every write runs on
    the worker. A timed assertion would be flaky on a shared machine, so this checks the cause."""
    from memevo.app import bench
    from memevo.desktop.panel import Panel

    host.store.close()
    big = bench.synthetic_store(100_000)
    host.store = big
    host.ctx.access.store = big  # type: ignore[attr-defined]
    ui_thread = threading.current_thread()
    on_ui: list[str] = []
    real_query, real_handle = big.query, host.handle

    def watched_query(sql: str, *args: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is ui_thread and "FROM memories" in sql:
            on_ui.append(sql[:60])
        return real_query(sql, *args, **kwargs)

    def watched_handle(op: str, params: dict[str, Any]) -> Any:
        if threading.current_thread() is ui_thread and op != "trash":
            on_ui.append(op)
        return real_handle(op, params)

    wanted = big.query("SELECT text FROM memories WHERE id = 'b0042420'")[0][0]  # memory-like, unique
    monkeypatch.setattr(big, "query", watched_query)
    monkeypatch.setattr(host, "handle", watched_handle)
    panel = Panel(host)
    qtbot.addWidget(panel)
    view = panel.memories
    _settle(qtbot, view)
    view.model.fetchMore()
    _settle(qtbot, view)
    view.table.scrollToBottom()
    _settle(qtbot, view)
    view.search.setText(wanted)
    view.apply_filters()
    _settle(qtbot, view)
    assert view.model.total == 1
    _select(view, [0])
    _click(qtbot, view, "reinforce")
    _select(view, [0])
    _click(qtbot, view, "delete")
    _click(qtbot, view, "undo")
    assert view.model.total == 1
    assert on_ui == []


def test_undo_refuses_when_the_memory_changed_since(
    qtbot, host: ServiceHost, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    view = MemoriesView(host)
    qtbot.addWidget(view)
    _settle(qtbot, view)
    monkeypatch.setattr(view, "ask_text", lambda *args: "回答问题时一律使用简体中文")
    _select(view, [0])
    _click(qtbot, view, "edit")
    memories.replace_text(host.store, memory.id, "回答和注释都用简体中文")  # the side judge, meanwhile
    _click(qtbot, view, "undo")
    assert "#" + memory.id in view.last_message and "撤销" in view.last_message
    assert memories.get(host.store, memory.id).text == "回答和注释都用简体中文"  # not overwritten


def test_one_change_at_a_time(qtbot, host: ServiceHost, clock: FakeClock) -> None:
    memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    view = MemoriesView(host)
    qtbot.addWidget(view)
    _settle(qtbot, view)
    _select(view, [0])
    view.act("delete")
    assert not view.buttons["undo"].isEnabled() and not view.buttons["delete"].isEnabled()
    view.act("undo")  # clicked before the delete finished: refused, nothing popped
    assert "还在处理" in view.last_message
    _settle(qtbot, view)
    assert view.buttons["undo"].isEnabled() and len(view.undo_stack) == 1


def test_semantic_search_before_the_model_says_why(qtbot, host: ServiceHost, clock: FakeClock) -> None:
    memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    view = MemoriesView(host)
    qtbot.addWidget(view)
    _settle(qtbot, view)
    view.semantic.setChecked(True)
    view.search.setText("用什么语言回答")
    view.apply_filters()
    _settle(qtbot, view)
    assert "搜索失败" in view.last_message and "model" in view.last_message


def test_paging_neither_repeats_nor_skips_when_a_memory_moves(
    qtbot, host: ServiceHost, clock: FakeClock
) -> None:
    from memevo.desktop.memtable import PAGE

    with host.store.transaction() as con:
        con.execute(
            "INSERT INTO memories (id, category, text, confidence, created_ms, last_seen_ms, deprecated) "
            "SELECT printf('m%05d', i), 'rule', printf('generated rule number %05d', i), 50 + (i % 40), 0, i, FALSE "
            "FROM range(1200) t(i)"
        )
    view = MemoriesView(host)
    qtbot.addWidget(view)
    _settle(qtbot, view)
    moving = view.model.memory_at(PAGE - 1)  # the last row of page 1 decays below page 2
    with host.store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 41 WHERE id = ?", [moving.id])
    while view.model.canFetchMore():
        view.model.fetchMore()
        _settle(qtbot, view)
    ids = [m.id for m in view.model.rows]
    assert len(ids) == len(set(ids)) == 1200
