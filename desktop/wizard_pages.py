"""The wizard's question pages (welcome, confirmation, Claude Code, start at login; the learning
page is in wizard_learning)
and the small layout helpers every page uses."""

from __future__ import annotations

from typing import Any

from ..core import config as config_mod
from ..installer.clients import CLIENTS, DISPLAY_NAMES, files, installed, tilde
from .i18n import listed, tr
from .learning_texts import confirm_label
from .qt import (
    QCheckBox,
    QFont,
    QLabel,
    QPlainTextEdit,
    QRadioButton,
    Qt,
    QTextOption,
    QVBoxLayout,
    QWizard,
    QWizardPage,
)
from .settings_workers import ERROR_STYLE, config_is_broken

PAGE_WELCOME, PAGE_CONFIRM, PAGE_SIDE, PAGE_CLAUDE, PAGE_AUTOSTART, PAGE_PROGRESS, PAGE_DONE = range(7)
PAGE_NOTES = 7  # after the run, only when the user's own notes hold something to import


def _label(text: str = "", style: str = "", selectable: bool = False) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    if style:
        label.setStyleSheet(style)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _help(text: str, indent: int = 0) -> QLabel:
    label = _label(text)
    label.setContentsMargins(indent, 0, 0, 0)
    return label


def _text_box(lines: int, fixed: bool = False) -> QPlainTextEdit:
    """Read-only monospace text; long tokens (paths, commands) wrap anywhere, never clipped."""
    box = QPlainTextEdit()
    box.setReadOnly(True)
    box.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    font = QFont("monospace")
    font.setStyleHint(QFont.StyleHint.TypeWriter)
    box.setFont(font)
    height = box.fontMetrics().lineSpacing() * lines + 16
    box.setMinimumHeight(height)
    if fixed:
        box.setMaximumHeight(height)
    return box


def _names(clients: list[str]) -> str:
    return listed(DISPLAY_NAMES[c] for c in clients)


# -- the pages -----------------------------------------------------------------------------------------
class WelcomePage(QWizardPage):
    def __init__(self, owner: Any) -> None:
        super().__init__()
        self.owner = owner
        self.setTitle(tr("Welcome to memevo"))
        layout = QVBoxLayout(self)
        layout.addWidget(
            _label(
                tr(
                    "memevo gives your AI coding clients a long-term memory: rules and project facts you state once are handed back at the right moment. After four short questions this wizard:"
                )
            )
        )
        for step in (
            tr("saves your choices in memevo's settings;"),
            tr("checks the local embedding model (the first time, it is downloaded: about 240 MB);"),
            tr(
                "registers memevo's hooks, MCP server and skill in every client found below (their other entries are kept, and each changed file is backed up first);"
            ),
            tr("starts memevo at login, if you want."),
        ):
            layout.addWidget(_label("• " + step))
        layout.addSpacing(8)
        self.found_label = _label()
        layout.addWidget(self.found_label)
        self.client_labels: dict[str, QLabel] = {}
        for client in CLIENTS:
            self.client_labels[client] = label = _label()
            label.setContentsMargins(16, 0, 0, 0)
            layout.addWidget(label)
        self.problem_label = _label(style=ERROR_STYLE)
        layout.addWidget(self.problem_label)
        layout.addStretch(1)
        self.refresh()

    def initializePage(self) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Look again: a client installed meanwhile is found, and the Claude page follows."""
        present = self.owner.present = installed()
        if present:
            self.found_label.setText(
                tr("Found {count} of the four supported clients:").format(count=len(present))
            )
        else:
            self.found_label.setText(
                tr(
                    "No supported client was found. memevo still sets up the model and your choices; run the setup again after installing a client."
                )
            )
        for client, label in self.client_labels.items():
            folder = tilde(files(client).config_dir)
            if client in present:
                label.setText(tr("✓ {client} ({folder})").format(client=DISPLAY_NAMES[client], folder=folder))
            else:
                label.setText(
                    tr("✗ {client}: not found, skipped ({folder} is missing)").format(
                        client=DISPLAY_NAMES[client], folder=folder
                    )
                )
        broken = config_is_broken()
        self.problem_label.setText(
            tr(
                "memevo's settings file cannot be read, so your choices cannot be saved until it is fixed or deleted: {problem}"
            ).format(problem=broken)
            if broken
            else ""
        )
        self.problem_label.setVisible(bool(broken))


class ConfirmPage(QWizardPage):
    def __init__(self, config: config_mod.Config) -> None:
        super().__init__()
        self.setTitle(tr("Before a learned memory is written"))
        layout = QVBoxLayout(self)
        layout.addWidget(
            _label(
                tr(
                    "When a memory is proposed from what you said (by your coding assistant's model, or by a side model you may set up on the next page), memevo can:"
                )
            )
        )
        layout.addSpacing(4)
        self.ask_radio = QRadioButton(tr("{name} (recommended)").format(name=confirm_label()))
        self.direct_radio = QRadioButton(tr("Write it directly"))
        layout.addWidget(self.ask_radio)
        layout.addWidget(
            _help(
                tr(
                    "A small window shows the proposed text; you save it, edit it or skip it. It never takes the keyboard focus from your editor."
                ),
                indent=24,
            )
        )
        layout.addSpacing(8)
        layout.addWidget(self.direct_radio)
        layout.addWidget(
            _help(
                tr(
                    "The memory is written at once and a notification says what was written; you can edit or delete it in the panel."
                ),
                indent=24,
            )
        )
        layout.addSpacing(12)
        layout.addWidget(_help(tr("You can change this later in the tray menu or in Settings.")))
        layout.addStretch(1)
        asks = not ("confirm" in config.user_set and config["confirm"] is False)
        (self.ask_radio if asks else self.direct_radio).setChecked(True)


class ClaudePage(QWizardPage):
    def __init__(self) -> None:
        super().__init__()
        self.setTitle(tr("Claude Code"))
        layout = QVBoxLayout(self)
        self.allow_check = QCheckBox(tr("Let memory_propose run without asking each time"))
        from ..installer.clients.claude import has_permission

        # a second run starts from what the first left: clicking through never removes the rules
        self.allow_check.setChecked(has_permission())
        layout.addWidget(self.allow_check)
        layout.addWidget(
            _help(
                tr(
                    "Claude Code calls memevo's memory_propose tool when its own model proposes a memory; ticked, a permission rule in ~/.claude/settings.json stops it from asking you to allow each call. You still confirm every memory yourself: memory_resolve is never allowed this way, and either choice removes the rule earlier versions added for it."
                ),
                indent=24,
            )
        )
        layout.addStretch(1)


class AutostartPage(QWizardPage):
    def __init__(self) -> None:
        super().__init__()
        from ..installer import autostart

        self.setTitle(tr("Start at login"))
        layout = QVBoxLayout(self)
        self.check = QCheckBox(tr("Start memevo at login"))
        # ticked the first time; a second run starts from the user's choice (the entry is there or not)
        from ..installer import state

        self.check.setChecked(not state.path().exists() or bool(autostart.status()["ours"]))
        layout.addWidget(self.check)
        layout.addWidget(
            _help(
                tr(
                    "memevo lives in the system tray. Started at login, it is ready before your first prompt; otherwise the first hook starts it, and that prompt goes without recall."
                ),
                indent=24,
            )
        )
        self.path_label = _help(
            tr("Login entry: {path}").format(path=tilde(autostart.entry_path())), indent=24
        )
        layout.addWidget(self.path_label)
        layout.addSpacing(12)
        layout.addWidget(_label(tr("Click Set up to save your choices and register memevo.")))
        layout.addStretch(1)
        self.setButtonText(QWizard.WizardButton.NextButton, tr("Set up"))


class NotesPage(QWizardPage):
    """Import what the user already wrote (`memevo import-notes`): the statements found in
    ~/.claude/CLAUDE.md and Claude Code's auto memory, each checked; imported through the
    same operation, nothing twice, the files never changed. Shown only when there are some."""

    def __init__(self, owner: Any) -> None:
        super().__init__()
        from ..core.service.client import call_or_local
        from .notes_chooser import NotesChooser
        from .qt import QPushButton

        self.owner = owner
        self.call = call_or_local
        self.setTitle(tr("Import what you already wrote"))
        layout = QVBoxLayout(self)
        layout.addWidget(
            _label(
                tr(
                    "These statements are in your own notes (CLAUDE.md, Claude Code's memory). Checked ones become memories; switch a selected one's group with the buttons. Nothing is imported twice and your files are not changed."
                )
            )
        )
        self.chooser = NotesChooser(self)
        layout.addWidget(self.chooser)
        self.import_button = QPushButton(tr("Import checked"))
        self.import_button.clicked.connect(self.import_checked)
        layout.addWidget(self.import_button)
        self.status_label = _label(selectable=True)
        layout.addWidget(self.status_label)
        layout.addWidget(
            _help(
                tr(
                    "A repository's notes (CLAUDE.md, AGENTS.md, Cursor rules) are imported from the panel's Import button or `memevo import-notes` in that repository."
                )
            )
        )
        self.imported: int | None = None

    def nextId(self) -> int:
        return PAGE_DONE

    def initializePage(self) -> None:
        found: list[dict[str, Any]] = list(self.owner.notes_found)
        self.chooser.show_candidates([])
        self.import_button.setEnabled(False)
        self.status_label.setText(tr("Checking what is already imported…"))

        def new_only() -> list[dict[str, Any]]:
            known = set(
                self.call(
                    "notes_known", {"shas": [c["sha"] for c in found], "texts": [c["text"] for c in found]}
                )["known"]
            )
            return [c for c in found if c["sha"] not in known]

        def shown(fresh: list[dict[str, Any]]) -> None:
            self.chooser.show_candidates(fresh)
            self.import_button.setEnabled(bool(fresh))
            self.status_label.setText(
                tr("{count} statements found.").format(count=len(fresh))
                if fresh
                else tr("Everything in your notes is imported already.")
            )

        self.owner.worker.run(new_only, shown, self._failed)

    def import_checked(self) -> None:
        chosen = self.chooser.chosen()
        if not chosen:
            self.status_label.setText(tr("Nothing is checked."))
            return
        self.import_button.setEnabled(False)
        self.status_label.setText(tr("Importing…"))

        def done(result: dict[str, Any]) -> None:
            self.imported = len(result.get("imported", []))
            self.chooser.show_candidates([])
            self.status_label.setText(tr("Imported {count} statements.").format(count=self.imported))

        self.owner.worker.run(lambda: self.call("import_notes", {"items": chosen}), done, self._failed)

    def _failed(self, exc: Exception) -> None:
        self.import_button.setEnabled(bool(self.chooser.items))
        self.status_label.setText(tr("Not done: {error}").format(error=exc))
