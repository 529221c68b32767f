"""Issue 31, items 3 and 4 (pytest-qt, offscreen, a real store): the Add dialog chooses the
memory's group and scope itself (the group filter only suggests one), and Cancel in Import
notes — in its first question or in the folder chooser — imports nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from memevo.core.memories import live as memories
from memevo.core.service.host import ServiceHost
from memevo.desktop.add_dialog import AddMemoryDialog
from memevo.desktop.i18n import tr
from memevo.desktop.qt import QApplication, QDialogButtonBox, QTimer
from test_panel import _settle, _view


def _answer(act: Callable[[Any], None]) -> list[Any]:
    """Act on the next modal dialog once it is open (as a user would), recording it."""
    seen: list[Any] = []

    def look() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(10, look)
            return
        seen.append(dialog)
        act(dialog)

    QTimer.singleShot(0, look)
    return seen


def _add_button(dialog: AddMemoryDialog) -> Any:
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)


def test_the_dialog_asks_group_and_scope_and_enables_add_only_when_it_can(qtbot, tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    dialog = AddMemoryDialog(None, "project")
    qtbot.addWidget(dialog)
    assert (
        dialog.project_radio.isChecked() and dialog.global_radio.isChecked()
    )  # the filter's group: a default
    assert not _add_button(dialog).isEnabled() and dialog.hint.text() == tr(
        "At least {min} characters."
    ).format(min=6)
    dialog.text_edit.setPlainText("支付走 Stripe")
    assert _add_button(dialog).isEnabled() and dialog.hint.text() == ""
    dialog.repo_radio.setChecked(True)  # no folder yet: cannot add
    assert not _add_button(dialog).isEnabled()
    assert dialog.hint.text() == tr("Choose the repository's folder, or pick Everywhere.")
    dialog.ask_folder = lambda: None  # type: ignore[method-assign]  # Cancel in the chooser
    dialog.choose_button.click()
    assert dialog.repo is None and not _add_button(dialog).isEnabled()
    dialog.ask_folder = lambda: str(repo / "src")  # type: ignore[method-assign]
    dialog.choose_button.click()
    assert dialog.repo == str(repo) and dialog.repo_label.text() == str(repo)  # the repository's root
    assert _add_button(dialog).isEnabled()
    dialog.rule_radio.setChecked(True)
    assert dialog.values() == ("rule", "支付走 Stripe", str(repo))
    dialog.global_radio.setChecked(True)
    assert dialog.values() == ("rule", "支付走 Stripe", None)


def test_adding_from_the_panel_writes_the_chosen_group_and_scope(
    qtbot, host: ServiceHost, tmp_path: Path
) -> None:
    repo = tmp_path / "shop"
    (repo / ".git").mkdir(parents=True)
    view = _view(qtbot, host)
    view.group.setCurrentIndex(2)  # the filter shows project facts
    _settle(qtbot, view)

    def fill(dialog: AddMemoryDialog) -> None:
        assert dialog.windowTitle() == tr("Add a memory") and dialog.project_radio.isChecked()
        dialog.text_edit.setPlainText("这个仓库的提交信息用英文写")
        dialog.rule_radio.setChecked(True)  # a rule, though the filter shows project facts
        dialog.ask_folder = lambda: str(repo)  # type: ignore[method-assign]
        dialog.choose_button.click()
        _add_button(dialog).click()

    seen = _answer(fill)
    view.buttons["add"].click()
    _settle(qtbot, view)
    assert seen and isinstance(seen[0], AddMemoryDialog)
    [memory] = memories.ranked(host.store, "rule")
    assert (memory.text, memory.scope) == ("这个仓库的提交信息用英文写", str(repo))
    assert memory.id in view.last_message and "shop" in view.last_message
    _settle(qtbot, view)
    seen = _answer(lambda dialog: dialog.reject())  # Cancel: nothing written
    view.buttons["add"].click()
    _settle(qtbot, view)
    assert seen and len(memories.ranked(host.store, "rule")) == 1


def test_cancel_in_import_notes_imports_nothing(qtbot, host: ServiceHost, home: Path) -> None:
    (home / ".claude" / "CLAUDE.md").write_text("- 回答问题时一律使用中文\n", encoding="utf-8")
    view = _view(qtbot, host)
    offered: list[Any] = []
    view.choose_notes = lambda found: offered.append(found) or []  # type: ignore[method-assign]

    def cancel(box: Any) -> None:
        assert tr("Only my notes") in [b.text() for b in box.buttons()]
        box.reject()

    seen = _answer(cancel)
    view.buttons["import"].click()
    _settle(qtbot, view)
    assert seen and offered == [] and view.last_message == tr("Nothing imported.")
    # "Also a repository's…", then Cancel in the folder chooser: nothing either
    view.ask_folder = lambda: None  # type: ignore[method-assign]

    def with_repo(box: Any) -> None:
        next(b for b in box.buttons() if b.text() == tr("Also a repository's…")).click()

    seen = _answer(with_repo)
    view.buttons["import"].click()
    _settle(qtbot, view)
    assert seen and offered == [] and view.last_message == tr("Nothing imported.")
    # "Only my notes": the user's own statements are offered
    seen = _answer(lambda box: next(b for b in box.buttons() if b.text() == tr("Only my notes")).click())
    view.buttons["import"].click()
    qtbot.waitUntil(lambda: bool(offered), timeout=30_000)
    _settle(qtbot, view)
    assert [c["text"] for c in offered[0]] == ["回答问题时一律使用中文"]
    assert memories.ranked(host.store, "rule") == []  # chose none


def test_the_panels_dialogs_leave_a_proposal_answerable(qtbot, host: ServiceHost) -> None:
    """On a real display, a proposal's confirmation dialog (on top of every window) covered the
    edit dialog and could not be clicked: exec() had made the edit dialog application-modal.
    Each of the view's dialogs is modal to the panel only; the proposal's window is not blocked."""
    from memevo.desktop import memories_dialogs as dialogs
    from memevo.desktop.qt import Qt, QWidget

    memory = memories.create(host.store, "rule", "回答问题时一律使用中文", host.ctx.clock)
    panel = QWidget()
    qtbot.addWidget(panel)
    panel.show()
    seen: dict[str, Any] = {}

    def read_then_cancel(name: str) -> None:
        def look() -> None:
            dialog = QApplication.activeModalWidget()
            if dialog is None:
                QTimer.singleShot(10, look)
                return
            seen[name] = dialog.windowModality()
            dialog.reject()

        QTimer.singleShot(0, look)

    asks: list[tuple[str, Callable[[], Any]]] = [
        ("edit", lambda: dialogs.ask_text(panel, "Edit", "New text:", memory.text)),
        ("add", lambda: dialogs.ask_new_memory(panel, "rule")),
        ("purge", lambda: dialogs.confirm(panel, "Purge", "Remove it?")),
        ("history", lambda: dialogs.choose_version(panel, memory, [])),
        ("import source", lambda: dialogs.ask_import_source(panel)),
        ("import notes", lambda: dialogs.choose_notes(panel, [])),
    ]
    for name, ask in asks:
        read_then_cancel(name)
        assert ask() in (None, False, (False, False)), name  # Cancel: nothing chosen
    assert seen == {name: Qt.WindowModality.WindowModal for name, _ in asks}
