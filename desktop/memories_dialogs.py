"""The memories view's questions to the user — the add, edit and merge texts, the purge
confirmation, the history, where Import notes reads and which notes it imports — each a
function of the view (its parent window). The view calls them through methods of its own of
the same names, which tests replace to answer."""

from __future__ import annotations

from typing import Any

from ..core.memories.live import Memory
from .i18n import tr
from .qt import QLabel, QVBoxLayout


def run(dialog: Any) -> int:
    """Modal to the panel only. exec() alone makes a dialog application-modal: a confirmation
    dialog (a proposal, on top of every window) then could not be answered and hid this one
    under it, as a real display showed (the edit dialog lost behind an unclickable proposal)."""
    from .qt import Qt

    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    return int(dialog.exec())


def ask_text(parent: Any, title: str, label: str, text: str = "") -> str | None:
    """The edit and merge texts: the question wrapped above a text box of several lines that
    wraps its text, as wide as the add dialog (a QInputDialog showed the edit text on one line,
    ~300 px wide, with a horizontal scroll bar)."""
    dialog = text_dialog(parent, title, label, text)
    if run(dialog) != dialog.DialogCode.Accepted:
        return None
    return str(dialog.text_edit.toPlainText())


def text_dialog(parent: Any, title: str, label: str, text: str) -> Any:
    """The dialog ask_text runs (its `text_edit` is the text box)."""
    from .qt import QDialog, QDialogButtonBox, QPlainTextEdit

    dialog = QDialog(parent)
    dialog.setWindowTitle(title)
    layout = QVBoxLayout(dialog)
    question = QLabel(label)
    question.setWordWrap(True)
    layout.addWidget(question)
    edit = QPlainTextEdit()
    edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    edit.setPlainText(text)
    layout.addWidget(edit, 1)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    layout.addWidget(buttons)
    dialog.text_edit = edit  # type: ignore[attr-defined]
    dialog.resize(560, 320)
    return dialog


def ask_new_memory(parent: Any, category: str) -> tuple[str, str, str | None] | None:
    """The add dialog: (group, text, scope) or None for Cancel."""
    from .add_dialog import AddMemoryDialog
    from .qt import QDialog

    dialog = AddMemoryDialog(parent, category)
    if run(dialog) != QDialog.DialogCode.Accepted:
        return None
    return dialog.values()


def confirm(parent: Any, title: str, question: str, tooltip: str = "") -> bool:
    from .qt import QMessageBox

    buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
    box = QMessageBox(QMessageBox.Icon.Question, title, question, buttons, parent)
    box.setToolTip(tooltip)
    return bool(run(box) == QMessageBox.StandardButton.Yes)


def purge_question(chosen: list[Memory]) -> tuple[str, str]:
    """The irreversible purge's question, naming each memory by its id and an excerpt of its
    text, and its tooltip: each memory's whole text (confirm(…, tooltip))."""
    from .confirm_texts import excerpt

    names = "\n".join(tr("#{id} “{excerpt}”").format(id=m.id, excerpt=excerpt(m.text)) for m in chosen)
    question = tr("Remove the text of these memories from everywhere memevo keeps it? This cannot be undone.")
    return f"{question}\n\n{names}", "\n".join(f"#{m.id}: {m.text}" for m in chosen)


def choose_version(
    parent: Any, memory: Memory, versions: list[dict[str, Any]], cues: list[str] | None = None
) -> int | None:
    """The history dialog: earlier texts with their dates, and the recall cues of the text
    now; returns the version to restore."""
    from .qt import QDialog, QDialogButtonBox, QListWidget

    dialog = QDialog(parent)
    dialog.setWindowTitle(tr("History of #{id}").format(id=memory.id))
    layout = QVBoxLayout(dialog)
    layout.addWidget(QLabel(tr("Now: {text}").format(text=memory.text)))
    if cues:
        shown_cues = QLabel(tr("Recall cues: {cues}").format(cues=" · ".join(cues)))
        shown_cues.setWordWrap(True)
        layout.addWidget(shown_cues)
    listing = QListWidget()
    for v in versions:
        listing.addItem(
            tr("v{version} · {start} – {end} · {reason}\n{text}").format(
                version=v["version"],
                start=v["valid_from"][:16].replace("T", " "),
                end=v["valid_to"][:16].replace("T", " "),
                reason=version_reason(v["reason"]),
                text=v["text"],
            )
        )
    layout.addWidget(listing)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    restore = buttons.addButton(tr("Restore this version"), QDialogButtonBox.ButtonRole.AcceptRole)
    restore.setEnabled(bool(versions))
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    layout.addWidget(buttons)
    dialog.resize(640, 360)
    if run(dialog) != QDialog.DialogCode.Accepted or listing.currentRow() < 0:
        return None
    return int(versions[listing.currentRow()]["version"])


def ask_folder(parent: Any) -> str | None:
    """A repository whose CLAUDE.md, AGENTS.md and Cursor rules to read too (None: Cancel)."""
    from .qt import QFileDialog

    folder = QFileDialog.getExistingDirectory(parent, tr("The repository whose notes to read"))
    return folder or None


def ask_import_source(parent: Any) -> tuple[bool, bool]:
    """Where Import notes reads: (go on?, a repository's too?). Cancel: (False, False)."""
    from .qt import QMessageBox

    box = QMessageBox(parent)
    box.setWindowTitle(tr("Import notes"))
    box.setText(
        tr(
            "Import statements from your own notes (~/.claude/CLAUDE.md, Claude Code's memory)? You can also read one repository's CLAUDE.md, AGENTS.md and Cursor rules. You choose which statements to import next."
        )
    )
    mine = box.addButton(tr("Only my notes"), QMessageBox.ButtonRole.AcceptRole)
    with_repo = box.addButton(tr("Also a repository's…"), QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    run(box)
    clicked = box.clickedButton()
    if clicked is mine:
        return True, False
    return (True, True) if clicked is with_repo else (False, False)


def choose_notes(parent: Any, found: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """Each candidate with a check box (checked: import) and its group; returns the chosen."""
    from .notes_chooser import NotesChooser
    from .qt import QDialog, QDialogButtonBox

    dialog = QDialog(parent)
    dialog.setWindowTitle(tr("Import notes"))
    layout = QVBoxLayout(dialog)
    layout.addWidget(
        QLabel(tr("Checked statements are imported. Switch a selected one's group with the buttons."))
    )
    chooser = NotesChooser(dialog)
    chooser.show_candidates(found)
    layout.addWidget(chooser)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
    buttons.addButton(tr("Import checked"), QDialogButtonBox.ButtonRole.AcceptRole)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    layout.addWidget(buttons)
    dialog.resize(760, 480)
    if run(dialog) != QDialog.DialogCode.Accepted:
        return None
    return chooser.chosen()


def version_reason(reason: str) -> str:
    """Why a text was replaced (core/memories/live.py says it in English identifiers and phrases)."""
    import re

    fixed = {
        "replaced": tr("edited"),
        "replaced (learned)": tr("replaced by what was learned"),
        "merged (learned)": tr("merged with what was learned"),
    }
    if reason in fixed:
        return fixed[reason]
    if found := re.fullmatch(r"restored version (\d+)", reason):
        return tr("version {version} restored").format(version=found[1])
    if found := re.fullmatch(r"merged with (\S+)", reason):
        return tr("merged with #{id}").format(id=found[1])
    if found := re.fullmatch(r"changed by the repository's shared facts file \((.+)\)", reason):
        return tr("changed by the repository's shared facts file ({file})").format(file=found[1])
    return reason
