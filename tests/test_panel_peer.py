"""The panel's parts of issue 17 (pytest-qt, offscreen, a real store): pin toggle, history, scope."""

from __future__ import annotations

from memevo.core import memories
from memevo.core.clock import FakeClock
from memevo.core.service.host import ServiceHost
from memevo.desktop.panel import MemoriesView
from test_panel import _select


def _settle(qtbot, view: MemoriesView) -> None:
    qtbot.waitUntil(lambda: not view.worker.busy, timeout=30_000)


def _view(qtbot, host: ServiceHost) -> MemoriesView:
    view = MemoriesView(host)
    qtbot.addWidget(view)
    _settle(qtbot, view)
    return view


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
    assert [v.text for v in memories.history(host.store, m.id)[1]] == [
        "the build uses gradle 8",
        "the build uses gradle 7",
    ]
    view.buttons["undo"].click()  # back to the text it had before the restore
    qtbot.waitUntil(lambda: memories.get(host.store, m.id).text == "the build uses gradle 8", timeout=30_000)


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


def test_import_notes_from_the_panel(qtbot, host: ServiceHost, tmp_path) -> None:
    repo = tmp_path / "site"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text(
        "- Never push straight to the main branch.\n- The site is built with Hugo 0.120\n- Images live in static/img\n",
        encoding="utf-8",
    )
    view = _view(qtbot, host)
    offered: list[list[dict]] = []
    view.ask_folder = lambda: str(repo)  # type: ignore[method-assign]

    def choose(found: list[dict]) -> list[dict]:
        offered.append(found)
        return [c for c in found if "Images" not in c["text"]]

    view.choose_notes = choose  # type: ignore[method-assign]
    view.buttons["import"].click()
    qtbot.waitUntil(lambda: "Imported" in view.last_message or "导入" in view.last_message, timeout=30_000)
    assert {c["text"]: c["category"] for c in offered[0]} == {
        "Never push straight to the main branch.": "rule",
        "The site is built with Hugo 0.120": "project",
        "Images live in static/img": "project",
    }
    assert [m.text for m in memories.ranked(host.store, "rule")] == [
        "Never push straight to the main branch."
    ]
    assert [(m.text, m.scope) for m in memories.ranked(host.store, "project")] == [
        ("The site is built with Hugo 0.120", str(repo))
    ]
    _settle(qtbot, view)
    view.buttons["import"].click()  # what was imported is not offered again
    qtbot.waitUntil(lambda: len(offered) == 2, timeout=30_000)
    _settle(qtbot, view)
    assert [c["text"] for c in offered[1]] == ["Images live in static/img"]
