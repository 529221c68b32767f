"""Finding memories in the panel's view (pytest-qt, offscreen, a real store): semantic search
through the service, and what it says before the model has loaded; the scope column and its
filter."""

from __future__ import annotations

from typing import Any

from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.service.host import ServiceHost
from memevo.desktop.memories_view import MemoriesView
from test_panel import _settle, _view


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


def test_scope_column_and_filter(qtbot, host: ServiceHost, clock: FakeClock, tmp_path) -> None:
    repo = str(tmp_path / "shop")
    memories.create(host.store, "project", "the shop deploys from the main branch", clock, repo)
    memories.create(host.store, "project", "all services log in JSON lines", clock)
    view = _view(qtbot, host)
    shown = {
        view.model.index(r, 0).data(): view.model.index(r, 7).data() for r in range(view.model.rowCount())
    }
    assert shown["the shop deploys from the main branch"] == "shop"
    from PySide6.QtCore import Qt

    scoped_row = next(r for r in range(2) if view.model.memory_at(r).scope == repo)
    assert view.model.index(scoped_row, 7).data(Qt.ItemDataRole.ToolTipRole) == repo
    view.scope.setCurrentIndex(1)  # global only
    _settle(qtbot, view)
    assert [m.text for m in view.model.rows] == ["all services log in JSON lines"]
    view.scope.setCurrentIndex(2)  # one repository or another
    _settle(qtbot, view)
    assert [m.scope for m in view.model.rows] == [repo]
