"""The panel's "Add…" dialog: the text, its group (a rule or a project fact) and where it
applies (everywhere, or only in one repository) — chosen here, never decided silently by the
filter above the table. The group starts from that filter only as a default.

    dialog = AddMemoryDialog(parent, category="rule")
    if dialog.exec() == QDialog.DialogCode.Accepted:
        category, text, scope = dialog.values()  # scope: None (global) or a repository's path
"""

from __future__ import annotations

from typing import Any

from ..core.memories.text import MAX_TEXT, MIN_TEXT, text_width
from .i18n import tr
from .qt import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)


class AddMemoryDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, category: str = "rule") -> None:
        from .qt import QButtonGroup

        super().__init__(parent)
        self.setWindowTitle(tr("Add a memory"))
        self.repo: str | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(
            QLabel(
                tr(
                    "Text ({min}–{max} characters; a Chinese character counts as two toward the minimum):"
                ).format(min=MIN_TEXT, max=MAX_TEXT)
            )
        )
        self.text_edit = QPlainTextEdit()
        self.text_edit.textChanged.connect(self._sync)
        layout.addWidget(self.text_edit)
        layout.addWidget(QLabel(tr("Group:")))
        self.rule_radio = QRadioButton(tr("Rule or preference: how you want things done"))
        self.project_radio = QRadioButton(tr("Project fact: how a codebase is"))
        groups = QButtonGroup(self)
        for radio in (self.rule_radio, self.project_radio):
            groups.addButton(radio)
            layout.addWidget(radio)
        (self.project_radio if category == "project" else self.rule_radio).setChecked(True)
        layout.addWidget(QLabel(tr("Where it applies:")))
        self.global_radio = QRadioButton(tr("Everywhere"))
        self.repo_radio = QRadioButton(tr("Only in one repository:"))
        scopes = QButtonGroup(self)
        scopes.addButton(self.global_radio)
        scopes.addButton(self.repo_radio)
        self.global_radio.setChecked(True)
        layout.addWidget(self.global_radio)
        row = QHBoxLayout()
        row.addWidget(self.repo_radio)
        self.repo_label = QLabel(tr("no folder chosen"))
        row.addWidget(self.repo_label, 1)
        self.choose_button = QPushButton(tr("Choose folder…"))
        self.choose_button.clicked.connect(self.choose_repo)
        row.addWidget(self.choose_button)
        layout.addLayout(row)
        self.repo_radio.toggled.connect(self._sync)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        layout.addWidget(self.hint)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(tr("Add"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.resize(560, 380)
        self._sync()

    def ask_folder(self) -> str | None:
        """The folder chooser (tests answer it instead)."""
        from .qt import QFileDialog

        return QFileDialog.getExistingDirectory(self, tr("The repository this memory belongs to")) or None

    def choose_repo(self) -> None:
        from ..core.memories.scopes import repo_of

        folder = self.ask_folder()
        if folder is None:  # Cancel: nothing changes
            return
        self.repo = repo_of(folder)
        self.repo_label.setText(self.repo or tr("no folder chosen"))
        self.repo_label.setToolTip(self.repo or "")
        if self.repo:
            self.repo_radio.setChecked(True)
        self._sync()

    def values(self) -> tuple[str, str, str | None]:
        category = "project" if self.project_radio.isChecked() else "rule"
        scope = self.repo if self.repo_radio.isChecked() else None
        return category, self.text_edit.toPlainText().strip(), scope

    def _sync(self, *_args: Any) -> None:
        """Add is enabled only for what the store accepts; the hint says what is missing."""
        text = self.text_edit.toPlainText().strip()
        hint = ""
        if text_width(text) < MIN_TEXT:
            hint = tr("At least {min} characters.").format(min=MIN_TEXT)
        elif len(text) > MAX_TEXT:
            hint = tr("At most {max} characters ({count} now).").format(max=MAX_TEXT, count=len(text))
        elif self.repo_radio.isChecked() and not self.repo:
            hint = tr("Choose the repository's folder, or pick Everywhere.")
        self.hint.setText(hint)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not hint)
