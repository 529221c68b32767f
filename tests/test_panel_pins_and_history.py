"""The panel's pin button and history dialog (pytest-qt, offscreen, a real store): the pin toggles
and its undo pins again; an older version is restored and the restore undone."""

from __future__ import annotations

from memevo.core.clock import FakeClock
from memevo.core.memories import history as memory_history
from memevo.core.memories import live as memories
from memevo.core.service.host import ServiceHost
from test_panel import _select, _settle, _view


def test_pin_button_toggles_and_undoes(qtbot, host: ServiceHost, clock: FakeClock) -> None:
    m = memories.create(host.store, "rule", "always run the linter before pushing", clock)
    view = _view(qtbot, host)
    _select(view, [0])
    view.buttons["pin"].click()
    _settle(qtbot, view)
    assert memories.get(host.store, m.id).pinned
    assert "#" + m.id in view.last_message
    state = view.model.index(0, 5).data()
    assert state  # "Pinned" in the state column
    _select(view, [0])
    view.buttons["pin"].click()  # all selected are pinned: the toggle unpins
    _settle(qtbot, view)
    assert not memories.get(host.store, m.id).pinned
    view.buttons["undo"].click()  # undo the unpin: pinned again
    _settle(qtbot, view)
    assert memories.get(host.store, m.id).pinned


def test_history_dialog_restores_a_version(qtbot, host: ServiceHost, clock: FakeClock) -> None:
    m = memories.create(host.store, "project", "the build uses gradle 7", clock)
    host.handle("replace", {"id": m.id, "text": "the build uses gradle 8"})
    view = _view(qtbot, host)
    offered: list[list[dict]] = []
    view.choose_version = lambda memory, versions, cues=None: (
        offered.append(versions) or versions[0]["version"]
    )  # type: ignore[method-assign]
    _select(view, [0])
    view.buttons["history"].click()
    qtbot.waitUntil(lambda: memories.get(host.store, m.id).text == "the build uses gradle 7", timeout=30_000)
    _settle(qtbot, view)
    assert [v["text"] for v in offered[0]] == ["the build uses gradle 7"]
    assert [v.text for v in memory_history.history(host.store, m.id)[1]] == [
        "the build uses gradle 8",
        "the build uses gradle 7",
    ]
    view.buttons["undo"].click()  # back to the text it had before the restore
    qtbot.waitUntil(lambda: memories.get(host.store, m.id).text == "the build uses gradle 8", timeout=30_000)
