"""The setup wizard's notes page: what the user already wrote in ~/.claude/CLAUDE.md is offered
after the run, imported through the real operation (no service: on the store directly), and
never offered again; with no notes the page is not shown at all."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from memevo.core.memories import live as memories
from memevo.core.memories import text as memory_text
from memevo.core.store import database as store
from memevo.desktop.qt import Qt, QWizard
from memevo.desktop.wizard import PAGE_DONE, PAGE_NOTES, SetupWizard
from test_wizard import home_without_claude_cli, make_wizard, set_up, walk  # noqa: F401 - fixtures

NOTES = """# My rules

- 回答问题时一律使用中文，代码注释也用中文
- Never commit generated files under dist/ to the repository

```bash
npm run build
```
"""


def _live_texts() -> list[str]:
    opened = store.open_existing(read_only=True)
    assert opened is not None
    try:
        return sorted(m.text for c in memory_text.CATEGORIES for m in memories.ranked(opened, c, limit=None))
    finally:
        opened.close()


def test_notes_are_offered_after_the_run_and_imported_once(
    qtbot,
    make_wizard: Callable[..., SetupWizard],  # noqa: F811
    home: Path,
    monkeypatch,
) -> None:
    monkeypatch.setenv("MEMEVO_NO_SERVICE", "1")  # the CLI's way without a service: the store itself
    (home / ".claude" / "CLAUDE.md").write_text(NOTES, encoding="utf-8")
    wizard = make_wizard()
    walk(wizard)
    result = set_up(qtbot, wizard)
    assert result.ok, result.reason
    wizard.next()
    assert wizard.currentId() == PAGE_NOTES
    page = wizard.notes_page
    qtbot.waitUntil(lambda: page.import_button.isEnabled(), timeout=30_000)
    texts = [c["text"] for c in page.chooser.items]
    assert texts == [
        "回答问题时一律使用中文，代码注释也用中文",
        "Never commit generated files under dist/ to the repository",
    ]  # the heading and the code block are left out
    page.chooser.listing.item(1).setCheckState(Qt.CheckState.Unchecked)
    page.chooser.listing.setCurrentRow(0)
    page.chooser.switch("project")  # the user's own choice of group is what is written
    page.import_checked()
    qtbot.waitUntil(lambda: page.imported is not None, timeout=30_000)
    assert page.imported == 1 and "1" in page.status_label.text()
    assert _live_texts() == ["回答问题时一律使用中文，代码注释也用中文"]
    opened = store.open_existing(read_only=True)
    assert opened is not None
    try:
        [fact] = memories.ranked(opened, "project", limit=None)
        assert fact.scope is None  # a global source: the fact belongs to no repository
    finally:
        opened.close()
    assert (home / ".claude" / "CLAUDE.md").read_text(encoding="utf-8") == NOTES  # never changed
    wizard.next()
    assert wizard.currentId() == PAGE_DONE
    assert wizard.button(QWizard.WizardButton.FinishButton).isVisible()

    again = make_wizard()  # a second setup offers only what is new
    walk(again)
    assert set_up(qtbot, again).ok
    again.next()
    assert again.currentId() == PAGE_NOTES
    qtbot.waitUntil(lambda: "Never commit" in json.dumps(again.notes_page.chooser.items), timeout=30_000)
    assert [c["text"] for c in again.notes_page.chooser.items] == [
        "Never commit generated files under dist/ to the repository"
    ]


def test_without_notes_the_page_is_skipped(
    qtbot,
    make_wizard: Callable[..., SetupWizard],  # noqa: F811
    home: Path,
) -> None:
    wizard = make_wizard()
    walk(wizard)
    assert set_up(qtbot, wizard).ok
    assert wizard.notes_found == []
    wizard.next()
    assert wizard.currentId() == PAGE_DONE
