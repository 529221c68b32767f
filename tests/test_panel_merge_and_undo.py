"""The memories view's merge and undo (pytest-qt, offscreen, a real store): two memories merged
into one and back, an undo refused when the memory changed since, one change at a time."""

from __future__ import annotations

import pytest
from deadlines import HANG_MS
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.service.host import ServiceHost
from memevo.desktop.memories_view import MemoriesView
from test_panel import _click, _select, _settle, select_rows


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
    assert not view.buttons["merge"].isEnabled()  # one selected: Merge cannot act
    assert view.buttons["edit"].isEnabled() and view.buttons["delete"].isEnabled()
    view.table.clearSelection()
    assert not any(view.buttons[k].isEnabled() for k in ("edit", "merge", "delete", "move", "pin", "history"))
    assert view.buttons["add"].isEnabled() and view.buttons["import"].isEnabled()
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
    assert view.buttons["undo"].isEnabled() and len(view.memory_actions.undo_stack) == 1


def test_undo_names_what_it_undoes_and_is_never_stale(
    qtbot, host: ServiceHost, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31, item 10: after a restore from the trash, Undo failed and stayed enabled, and
    the next click silently reverted an older edit; it never said what it would undo."""
    from memevo.desktop.i18n import tr
    from memevo.desktop.panel import Panel

    memory = memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    panel = Panel(host)
    qtbot.addWidget(panel)
    view = panel.memories
    _settle(qtbot, view)
    undo = view.buttons["undo"]
    assert undo.text() == tr("Undo") and not undo.isEnabled()
    monkeypatch.setattr(view, "ask_text", lambda *args: "回答问题时一律使用简体中文")
    _select(view, [0])
    _click(qtbot, view, "edit")
    assert undo.text() == tr("Undo: {what}").format(what=tr("edit #{id}").format(id=memory.id))
    _select(view, [0])
    _click(qtbot, view, "delete")
    deleted = tr("delete {names}").format(names=f"#{memory.id}")
    assert undo.isEnabled() and undo.text() == tr("Undo: {what}").format(what=deleted)
    # restored from the trash tab: the delete's undo is stale, and the edit's before it too
    panel.show_view("trash")
    _settle(qtbot, panel.trash)
    select_rows(panel.trash.list, [0])
    panel.trash.restore()
    _settle(qtbot, panel.trash)
    assert panel.trash.model.items == []  # restored
    panel.show_view("memories")
    _settle(qtbot, view)
    # the view notices the change by itself (at once, or once a busy worker is done)
    qtbot.waitUntil(lambda: not undo.isEnabled(), timeout=HANG_MS)
    assert not undo.isEnabled() and undo.text() == tr("Undo") and view.memory_actions.undo_stack == []
    assert view.last_message == tr("Undo of “{what}” is no longer possible: {why}.").format(
        what=deleted, why=tr("#{id} is no longer in the trash").format(id=memory.id)
    )
    view.act("undo")  # even if called: nothing older is reverted
    _settle(qtbot, view)
    assert memories.get(host.store, memory.id).text == "回答问题时一律使用简体中文"
