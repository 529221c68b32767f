"""Importing notes from the panel (pytest-qt, offscreen, a real store): what a repository's
AGENTS.md holds is offered, the chosen notes are imported with their scope, and what was
imported is not offered again."""

from __future__ import annotations

from memevo.core.memories import live as memories
from memevo.core.service.host import ServiceHost
from test_panel import _settle, _view


def test_import_notes_from_the_panel(qtbot, host: ServiceHost, tmp_path) -> None:
    repo = tmp_path / "site"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text(
        "- Never push straight to the main branch.\n- The site is built with Hugo 0.120\n- Images live in static/img\n",
        encoding="utf-8",
    )
    view = _view(qtbot, host)
    offered: list[list[dict]] = []
    view.ask_import_source = lambda: (True, str(repo))  # type: ignore[method-assign]

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
