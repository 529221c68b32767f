"""The memories view over a big store (pytest-qt, offscreen): at 100k memories no store query and
no service op runs on the UI thread while the user browses, searches and edits (the freeze
rule); paging neither repeats nor skips a memory that moves between pages."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from memevo.core.clock import FakeClock
from memevo.core.service.host import ServiceHost
from memevo.desktop.memories_view import MemoriesView
from test_panel import _click, _select, _settle


def test_no_store_work_on_the_ui_thread_at_100k(
    qtbot, host: ServiceHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The freeze budget (100 ms) is kept by construction: every query and every write runs on
    the worker. A timed assertion would be flaky on a shared machine, so this checks the cause."""
    from memevo.cli.bench.pool import synthetic_store
    from memevo.desktop.panel import Panel

    host.store.close()
    big = synthetic_store(100_000)
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
