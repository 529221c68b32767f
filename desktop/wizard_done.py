"""The setup wizard's last page: what the run did, what is left to do by hand (a client's
command, the key), and the offer to look through the past sessions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..installer.clients import CLIENTS, DISPLAY_NAMES
from .client_texts import title
from .core_texts import problem
from .i18n import listed, tr
from .qt import QApplication, QLabel, QPushButton, QScrollArea, Qt, QVBoxLayout, QWidget, QWizardPage
from .settings_workers import ERROR_STYLE
from .wizard_pages import _label, _names, _text_box

if TYPE_CHECKING:
    from .wizard import SetupWizard


class DonePage(QWizardPage):
    def __init__(self, owner: SetupWizard) -> None:
        super().__init__()
        self.owner = owner
        self.setTitle(tr("memevo is set up"))
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        body = QWidget()
        layout = QVBoxLayout(body)
        self.clients_label = _label(selectable=True)
        self.skipped_label = _label()
        self.problems_label = _label(style=ERROR_STYLE, selectable=True)
        self.commands_label = _label()
        self.commands_edit = _text_box(lines=4, fixed=True)
        self.copy_button = QPushButton(tr("Copy the command"))
        self.copy_button.clicked.connect(self.copy_commands)
        self.key_label = _label(selectable=True)
        self.autostart_label = _label()
        self.restart_label = _label()
        bold = self.restart_label.font()
        bold.setBold(True)
        self.restart_label.setFont(bold)
        self.legacy_label = _label(selectable=True)
        self.tray_label = _label()
        # what the user already said in past sessions, reviewed in the panel (backfill_view.py)
        self.backfill_label = _label(
            tr(
                "memevo can also look through your past sessions for what you said again and again: the panel shows each candidate with its evidence, and nothing is kept until you accept it."
            )
        )
        self.backfill_button = QPushButton(tr("Look through your past sessions…"))
        self.backfill_button.clicked.connect(lambda _checked=False: owner.backfill_requested.emit())
        for widget in (
            self.clients_label,
            self.skipped_label,
            self.problems_label,
            self.commands_label,
            self.commands_edit,
            self.copy_button,
            self.key_label,
            self.autostart_label,
            self.restart_label,
            self.tray_label,
            self.legacy_label,
            self.backfill_label,
            self.backfill_button,
        ):
            layout.addWidget(widget)
        layout.setAlignment(self.copy_button, Qt.AlignmentFlag.AlignLeft)
        layout.setAlignment(self.backfill_button, Qt.AlignmentFlag.AlignLeft)
        layout.addStretch(1)
        scroll.setWidget(body)
        outer.addWidget(scroll)

    def nextId(self) -> int:
        return -1  # the last page (the notes page comes before it)

    def initializePage(self) -> None:
        outcome, choices = self.owner.outcome, self.owner.choices()
        if outcome is None:  # pragma: no cover - the progress page lets no one here without a run
            return
        result = outcome.result
        self.setTitle(tr("memevo is set up") if result.ok else tr("memevo is set up, with problems"))
        # One line per client set up, as the tray's Clients menu says it (installer/client_state).
        self.clients_label.setText(
            "\n".join(title(state) for state in result.states)
            if result.states
            else tr("No client was registered.")
        )
        skipped = [c for c in CLIENTS if c in result.skipped]
        self._show(
            self.skipped_label,
            tr("Not installed, skipped: {clients}.").format(clients=_names(skipped)) if skipped else "",
        )
        problems = [
            tr("{client}: {problem}").format(client=DISPLAY_NAMES[c.client], problem=p)
            for c in result.clients
            for p in c.problems
        ]
        self._show(self.problems_label, "\n".join([tr("Problems:"), *problems]) if problems else "")
        manual = [s for s in result.states if s.command]
        self._show(
            self.commands_label,
            tr(
                "memevo cannot register its MCP server in {clients} by itself: run this in a terminal (the hooks already work)."
            ).format(clients=listed(s.display for s in manual))
            if manual
            else "",
        )
        self.commands_edit.setPlainText("\n".join(s.command or "" for s in manual))
        self.commands_edit.setVisible(bool(manual))
        self.copy_button.setVisible(bool(manual))
        self.copy_button.setText(tr("Copy the command"))
        self._show(self.key_label, self._key_text(outcome.key_status))
        if choices.autostart:
            self._show(self.autostart_label, tr("memevo starts at login."))
        else:
            self._show(self.autostart_label, tr("memevo does not start at login; start it from the menu."))
        if len(result.restart) == 1:
            restart = tr("Restart {client} so it loads the MCP server.").format(client=result.restart[0])
        elif result.restart:
            restart = tr("Restart {clients} so they load the MCP server.").format(
                clients=listed(result.restart)
            )
        else:
            restart = ""
        self._show(self.restart_label, restart)
        self._show(
            self.tray_label,
            tr(
                "memevo now runs in the system tray: the round “M” icon. Click it for the panel (your memories, the clients' state, Settings); its menu also pauses or quits memevo."
            ),
        )
        self._show(
            self.legacy_label,
            tr(
                "The Node tool's memories were found in the data dir: run memevo import-legacy in a terminal to import them."
            )
            if result.legacy_found
            else "",
        )

    def copy_commands(self) -> None:
        QApplication.clipboard().setText(self.commands_edit.toPlainText())
        self.copy_button.setText(tr("Copied"))

    @staticmethod
    def _show(label: QLabel, text: str) -> None:
        label.setText(text)
        label.setVisible(bool(text))

    @staticmethod
    def _key_text(status: Any) -> str:
        if status is None:
            return ""
        from ..core.privacy import side_api_key as secrets

        if status.source == "environment":
            return tr(
                "The side API key comes from the environment variable {env}, which overrides the keyring."
            ).format(env=secrets.ENV)
        if status.source == "file":
            return tr(
                "The side API key is in {path}, a file only your account can read (not encrypted)."
            ).format(path=status.file)
        if status.present:
            return tr("The side API key is in the OS keyring.")
        return tr(
            "The side API key was not saved: {problem}. Set it later in Settings or with memevo secret set."
        ).format(problem=problem(status.keyring_problem or "").rstrip(". "))


# -- the wizard ----------------------------------------------------------------------------------------
