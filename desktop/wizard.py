"""The setup wizard: the GUI face of the one setup engine (`installer.setup_engine.run`), asking what
`memevo setup` asks on a terminal (`installer.prompts`).

Pages: welcome (which clients were found) → confirmation mode → learning (who proposes
memories; the side API, optional) → Claude Code's
memory_propose permission (only when Claude Code is installed) → start at login → progress (the
engine runs on a worker thread; its progress and lines come back through queued signals) →
summary, which offers to look through the past sessions (the tray opens the panel's review:
nothing is kept without the user's yes). A failed run names its one reason and the user goes
Back and tries again.

    wizard = SetupWizard(parent=None, provision_model=None)
    wizard.finished_setup.connect(...)  # the SetupResult of every run that ended
    wizard.show()
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core import config as config_mod
from ..installer import setup_engine as engine
from ..installer.clients import installed
from .core_texts import stage
from .i18n import tr
from .messages import said
from .qt import (
    QProgressBar,
    QTimer,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
    Signal,
)
from .settings_workers import ERROR_STYLE, Relay, RelayProgress
from .wizard_done import DonePage
from .wizard_learning import SidePage
from .wizard_pages import (  # noqa: F401 - the pages are part of this module's API
    PAGE_AUTOSTART,
    PAGE_CLAUDE,
    PAGE_CONFIRM,
    PAGE_DONE,
    PAGE_NOTES,
    PAGE_PROGRESS,
    PAGE_SIDE,
    PAGE_WELCOME,
    AutostartPage,
    ClaudePage,
    ConfirmPage,
    NotesPage,
    WelcomePage,
    _help,
    _label,
    _names,
    _text_box,
)
from .worker import OffUi

log = logging.getLogger("memevo.desktop")

Provision = Callable[[Any], Any]


# -- the run, off the UI thread ------------------------------------------------------------------------
class SetupRelay(Relay):
    """The engine's progress (stage, step) and its `say` lines, carried into the UI thread (a
    line as the object it is: a Message keeps its code and parameters for desktop/messages)."""

    line = Signal(object)


@dataclass(frozen=True)
class RunOutcome:
    result: engine.SetupResult
    crashed: bool  # the engine raised; result.reason holds the exception's text
    key_status: Any  # core.secrets.KeyStatus after the run when a key was given, else None

    @property
    def stopped(self) -> bool:
        """The run did not get through: a raise, or the engine stopped before registering."""
        return self.crashed or (not self.result.ok and not self.result.clients)


def run_setup(
    choices: engine.Choices, relay: SetupRelay, provision_model: Provision | None, file_key: str | None = None
) -> RunOutcome:
    """The worker thread's job. Never raises: a failure becomes a result with its reason.
    file_key: a key the user chose to keep in the user-only file (no keyring here); the engine
    only knows the keyring, so the wizard stores it itself once the engine got through."""

    def say(line: str) -> None:
        relay.emit_safely("line", line)

    crashed = False
    try:
        result = engine.run(choices, progress=RelayProgress(relay), say=say, provision_model=provision_model)
    except Exception as exc:  # e.g. a broken config.json, an autostart file that is not ours
        log.warning("setup failed: %s", exc)
        result = engine.SetupResult(ok=False, reason=str(exc) or exc.__class__.__name__)
        crashed = True
    if file_key and not crashed:
        _keep_in_file(file_key, say)
    key_status = None
    if choices.side_key or file_key:
        from ..core.privacy import side_api_key as secrets

        key_status = secrets.status()  # asks the keyring: on this thread, never the UI's
    return RunOutcome(result, crashed, key_status)


def _keep_in_file(key: str, say: Callable[[str], None]) -> None:
    """As the engine's messages, so the log reads as one."""
    from ..core.privacy import side_api_key as secrets
    from ..installer import messages as m

    try:
        where = secrets.set_api_key(key, to_file=True)
    except Exception as exc:  # a full disk, a data dir that is not ours: said, nothing else lost
        say(m.Message(m.KEY_NOT_SAVED, why=str(exc)))
        return
    say(m.Message(m.KEY_IN_FILE, path=str(where)))


# -- small helpers -------------------------------------------------------------------------------------
class ProgressPage(QWizardPage):
    """Runs the engine; complete only when it got through (a failure keeps Next disabled)."""

    def __init__(self, owner: SetupWizard) -> None:
        super().__init__()
        self.owner = owner
        self.state = "idle"  # idle, running, failed, done
        self.setTitle(tr("Setting up"))
        layout = QVBoxLayout(self)
        self.stage_label = _label()
        layout.addWidget(self.stage_label)
        self.bar = QProgressBar()
        self.bar.setRange(0, 100)
        self.bar.setValue(0)
        layout.addWidget(self.bar)
        self.reason_label = _label(style=ERROR_STYLE, selectable=True)
        self.reason_label.hide()
        layout.addWidget(self.reason_label)
        self.hint_label = _label()
        self.hint_label.hide()
        layout.addWidget(self.hint_label)
        self.log = _text_box(lines=8)
        layout.addWidget(self.log, 1)

    def initializePage(self) -> None:
        self.start()

    def cleanupPage(self) -> None:  # Back was clicked
        if self.state != "running":
            self.state = "idle"

    def nextId(self) -> int:
        return PAGE_NOTES if self.owner.notes_found else PAGE_DONE

    def isComplete(self) -> bool:
        return self.state == "done"

    def start(self) -> None:
        if self.state == "running":  # already under way: keep showing it
            return
        self.state = "running"
        self.log.clear()
        self.reason_label.hide()
        self.hint_label.hide()
        self.bar.setRange(0, 0)  # busy until provisioning reports a fraction
        self.stage_label.setText(tr("Saving your choices and checking the embedding model…"))
        relay = SetupRelay(self)
        relay.stage.connect(lambda text: self.stage_label.setText(stage(text)))
        relay.step.connect(self._on_step)
        relay.line.connect(self._on_line)
        choices, provision = self.owner.choices(), self.owner.provision_model
        file_key = self.owner.file_key()
        self.owner.lines = []
        self.owner.worker.run(
            lambda: run_setup(choices, relay, provision, file_key),
            lambda outcome: self._finished(outcome, relay),
            lambda exc: self._finished(_crash(exc), relay),
        )
        self.completeChanged.emit()
        QTimer.singleShot(0, self.sync_buttons)  # the wizard updates its buttons after this method

    def sync_buttons(self) -> None:
        """No Back and no Cancel while the engine runs (it is not interrupted halfway), nor
        once it got through: setup is done, there is nothing to go back to or cancel — Next
        leads to the summary. After a failure Back (to try again) and Cancel are offered."""
        here = self.owner.currentPage() is self
        settled = self.state in ("running", "done") and here
        for which in (QWizard.WizardButton.BackButton, QWizard.WizardButton.CancelButton):
            button = self.owner.button(which)
            if settled:
                button.setEnabled(False)
            elif which == QWizard.WizardButton.CancelButton:
                button.setEnabled(True)  # Back is the wizard's own business again

    def _on_step(self, done: float, total: float) -> None:
        if total > 0:
            self.bar.setRange(0, 100)
            self.bar.setValue(max(0, min(100, int(100 * done / total))))

    def _on_line(self, line: str) -> None:
        """The engine's messages (its English is a terminal's words); the log says them in the
        UI language."""
        from .messages import said

        self.owner.lines.append(line)
        if engine.repeats_a_command(line, self.owner.lines[:-1]):
            return  # a client's line already gave this command: the log says it once
        self.log.appendPlainText(said(line))

    def _finished(self, outcome: RunOutcome, relay: SetupRelay) -> None:
        relay.deleteLater()
        self.owner.outcome, self.owner.result = outcome, outcome.result
        self.bar.setRange(0, 100)
        if outcome.stopped:
            self.state = "failed"
            self.stage_label.setText(tr("Setup stopped."))
            self.reason_label.setText(
                tr("Setup stopped: {reason}").format(reason=said(outcome.result.reason))
            )
            hint = tr("Click Back, then Set up, to try again.")
            if not outcome.crashed:
                hint = tr("Nothing was registered in your clients.") + " " + hint
            self.hint_label.setText(hint)
            self.reason_label.show()
            self.hint_label.show()
        else:
            self.state = "done"
            self.bar.setValue(100)
            self.stage_label.setText(
                tr("Setup finished.")
                if outcome.result.ok
                else tr("Setup finished with problems; the next page lists them.")
            )
            self.owner.side_page.key_edit.clear()  # stored (or said why not): not kept in the form
            self.owner.notes_found = notes_to_offer()
        self.completeChanged.emit()
        self.sync_buttons()
        self.owner.finished_setup.emit(outcome.result)


def notes_to_offer() -> list[dict[str, Any]]:
    """The statements of the user's own notes (global sources only: no repository here), for
    the notes page; a file that cannot be read is skipped, never an error of setup's."""
    from pathlib import Path

    from ..core.importers import notes

    try:
        return [c.as_json() for c in notes.candidates(Path.home(), None)]
    except Exception:
        log.warning("could not read the user's notes", exc_info=True)
        return []


def _crash(exc: Exception) -> RunOutcome:
    return RunOutcome(engine.SetupResult(ok=False, reason=str(exc) or exc.__class__.__name__), True, None)


class SetupWizard(QWizard):
    """SetupWizard(parent=None, provision_model=None): provision_model is passed to the engine
    (None: the real provisioning of the configured model)."""

    finished_setup = Signal(object)  # the SetupResult of every run that ended, good or not
    backfill_requested = Signal()  # the done page's offer: the tray opens the panel's review

    def __init__(self, parent: QWidget | None = None, provision_model: Provision | None = None) -> None:
        super().__init__(parent)
        self.provision_model = provision_model
        # The last run's. It shadows QDialog.result() on purpose (tests and scripts read
        # wizard.result; nothing calls the method), which mypy rightly reports: hence the ignore.
        self.result: engine.SetupResult | None = None  # type: ignore[assignment]
        self.outcome: RunOutcome | None = None
        self.notes_found: list[dict[str, Any]] = []  # the user's notes, offered after the run
        self.lines: list[str] = []  # what the engine said in the last run
        self.present: list[str] = installed()
        self.worker = OffUi("memevo-setup", self)
        config = config_mod.load()
        self.setWindowTitle(tr("Set up memevo"))
        for which, text in (  # Qt's own words stay English unless its catalogue is installed
            (QWizard.WizardButton.BackButton, tr("< &Back")),
            (QWizard.WizardButton.NextButton, tr("&Next >")),
            (QWizard.WizardButton.CancelButton, tr("Cancel")),
            (QWizard.WizardButton.FinishButton, tr("&Finish")),
        ):
            self.setButtonText(which, text)
        for option in (
            QWizard.WizardOption.NoBackButtonOnStartPage,
            QWizard.WizardOption.DisabledBackButtonOnLastPage,
            QWizard.WizardOption.NoCancelButtonOnLastPage,
        ):
            self.setOption(option, True)
        self.welcome_page = WelcomePage(self)
        self.confirm_page = ConfirmPage(config)
        self.side_page = SidePage(self, config)
        self.claude_page = ClaudePage()
        self.autostart_page = AutostartPage()
        self.progress_page = ProgressPage(self)
        self.done_page = DonePage(self)
        self.notes_page = NotesPage(self)
        for page_id, page in (
            (PAGE_WELCOME, self.welcome_page),
            (PAGE_CONFIRM, self.confirm_page),
            (PAGE_SIDE, self.side_page),
            (PAGE_CLAUDE, self.claude_page),
            (PAGE_AUTOSTART, self.autostart_page),
            (PAGE_PROGRESS, self.progress_page),
            (PAGE_DONE, self.done_page),
            (PAGE_NOTES, self.notes_page),
        ):
            self.setPage(page_id, page)
        self.setStartId(PAGE_WELCOME)
        self.resize(760, 580)

    @property
    def running(self) -> bool:
        return self.progress_page.state == "running"

    def file_key(self) -> str | None:
        """The key the user chose to keep in the user-only file, else None (see run_setup)."""
        key = self.side_page.values()[2]
        return key if key and self.side_page.key_to_file() else None

    def choices(self) -> engine.Choices:
        """What the pages say, as the engine takes it (a key for the file is not the engine's)."""
        base, model, key = self.side_page.values()
        if self.side_page.key_to_file():
            key = None
        return engine.Choices(
            learning=self.side_page.mode(),
            confirm=self.confirm_page.ask_radio.isChecked(),
            side_base=base,
            side_model=model,
            side_key=key,
            # the page is skipped with learning off: the permission rules are left as they are
            allow_resolve=self.claude_page.allow_check.isChecked()
            if "claude" in self.present and self.side_page.mode() != "off"
            else None,
            autostart=self.autostart_page.check.isChecked(),
        )

    def reject(self) -> None:
        """Cancel, Escape and the close button wait while the engine runs."""
        if self.running:
            return
        super().reject()
