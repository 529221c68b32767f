"""The Settings view's side API key: where it is (the OS keyring, the environment, or the file
the user chose on a machine with no keyring), save, clear, and move a file's key into a
keyring that works now.

With no working keyring, the view offers the file explicitly — its path, and that it is not
encrypted — as gh and docker do: a tray app started at login never sees a terminal's
MEMEVO_SIDE_API_KEY, so the variable alone is no remedy there. The keyring may wait on D-Bus
or prompt: every call to core.secrets runs on the view's key worker, never the UI thread.
"""

from __future__ import annotations

import logging
from typing import Any

from ..core.privacy import side_api_key as secrets
from .core_texts import problem
from .i18n import tr
from .qt import QCheckBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout
from .settings_workers import ERROR_STYLE
from .worker import OffUi

log = logging.getLogger("memevo.desktop")


def file_words() -> str:
    """Where the file is and what it is, as every offer of it says it."""
    return tr(
        "memevo can keep the key in {path}, a file only your account can read. It is not encrypted: anyone who can use your account, or an administrator, can read it."
    ).format(path=secrets.file_path())


class SideKeyMixin:
    """The key's widgets and actions, mixed into SettingsView (which builds the group around
    them and supplies host, key_worker and refresh_learning_note)."""

    host: Any
    key_worker: OffUi
    key_present: bool | None
    key_status: QLabel
    key_edit: QLineEdit
    file_check: QCheckBox
    file_note: QLabel
    save_key_button: QPushButton
    clear_key_button: QPushButton
    move_key_button: QPushButton
    key_row: QHBoxLayout
    side_message: QLabel
    _no_keyring = False  # no keyring works here (the file is the only place for a key)

    def refresh_learning_note(self) -> None:  # SettingsView's
        raise NotImplementedError

    def _key_widgets(self, layout: QVBoxLayout) -> None:
        """The status line, the file choice (shown only when no keyring works), the key field
        and its buttons; the test button is the caller's, added to `key_row`."""
        self.key_status = QLabel()
        self.key_status.setWordWrap(True)
        layout.addWidget(self.key_status)
        self.file_note = QLabel()
        self.file_note.setWordWrap(True)
        self.file_note.hide()
        layout.addWidget(self.file_note)
        self.file_check = QCheckBox(tr("Keep the key in that file (not encrypted)"))
        self.file_check.hide()
        self.file_check.toggled.connect(lambda _on: self._placeholder())
        layout.addWidget(self.file_check)
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText(tr("API key (stored in the OS keyring, never shown)"))
        self.save_key_button = QPushButton(tr("Save key"))
        self.save_key_button.clicked.connect(self.save_key)
        self.clear_key_button = QPushButton(tr("Clear key"))
        self.clear_key_button.clicked.connect(self.clear_key)
        self.move_key_button = QPushButton(tr("Move to the keyring"))
        self.move_key_button.clicked.connect(self.move_key)
        self.move_key_button.hide()
        self.key_row = QHBoxLayout()
        self.key_row.addWidget(self.key_edit, 1)
        for button in (self.save_key_button, self.clear_key_button, self.move_key_button):
            self.key_row.addWidget(button, 0)

    def refresh_key_status(self) -> None:
        """Asking the keyring can take a while (its backend loads on first use, a locked one
        waits on D-Bus): the answer arrives from the worker thread."""
        self.key_worker.run(secrets.status, self._show_key_status, self._show_key_failure)

    def _show_key_failure(self, exc: Exception) -> None:
        self.key_status.setText(tr("The keyring cannot be used: {problem}").format(problem=problem(str(exc))))
        self.key_present = False
        self.clear_key_button.setEnabled(False)  # nothing it could reach
        self.refresh_learning_note()

    def _show_key_status(self, status: secrets.KeyStatus) -> None:
        self.key_present = bool(status.present)
        self.refresh_learning_note()
        if status.source == "environment":
            text = tr("Key: set, from the environment variable {env}, which overrides the keyring.").format(
                env=secrets.ENV
            )
        elif status.source == "file":
            text = tr("Key: set, in {path}, a file only your account can read (not encrypted).").format(
                path=status.file
            )
        elif status.present:
            text = tr("Key: set, in the OS keyring.")
        else:
            text = tr("Key: not set.")
        if status.keyring_problem:
            text += " " + tr("The keyring cannot be used: {problem}").format(
                problem=problem(status.keyring_problem)
            )
        self.key_status.setText(text)
        # Clear with no key anywhere did nothing but say so (a real display showed it enabled
        # beside "Key: not set"): it waits for a key to remove.
        self.clear_key_button.setEnabled(bool(status.present) or status.source == "file")
        # The file is offered where no keyring works, or where the key is already in it.
        offered = status.source == "file" or (bool(status.keyring_problem) and status.source != "environment")
        self.file_note.setText(file_words())
        self.file_note.setVisible(offered and status.source != "file")
        self.file_check.setVisible(offered)
        if offered and status.source == "file":
            self.file_check.setChecked(True)  # a new key replaces the file's, where it is
        self._no_keyring = bool(status.keyring_problem) and status.source != "environment"
        self._placeholder()
        # A keyring that works now: the file's key stays where it is until the user moves it.
        self.move_key_button.setVisible(status.source == "file" and not status.keyring_problem)

    def _placeholder(self) -> None:
        """With no keyring, a key has nowhere to go until the file is ticked: the field and
        Save wait for it (as the wizard's do) instead of promising the keyring, which would
        only fail on Save."""
        nowhere = self._no_keyring and not self._to_file()
        self.key_edit.setEnabled(not nowhere)
        self.save_key_button.setEnabled(not nowhere)
        if nowhere:
            text = tr("API key (tick the file above to keep it there)")
        elif self._to_file():
            text = tr("API key (kept in that file, never shown)")
        else:
            text = tr("API key (stored in the OS keyring, never shown)")
        self.key_edit.setPlaceholderText(text)

    def _to_file(self) -> bool:
        return not self.file_check.isHidden() and self.file_check.isChecked()

    def save_key(self) -> None:
        """The keyring can prompt or wait on D-Bus: it is asked on the worker thread."""
        key = self.key_edit.text()
        if not key.strip():
            _say(self.side_message, tr("Key not saved: the field is empty."), error=True)
            return
        to_file = self._to_file()

        def store() -> None:  # on the worker: the keyring or the file, then the service notices
            secrets.set_api_key(key, to_file=to_file)
            self._notice_key()

        def saved(_none: Any) -> None:
            self.key_edit.clear()
            if to_file:
                _say(
                    self.side_message,
                    tr("Key saved in {path} (only your account can read it; not encrypted).").format(
                        path=secrets.file_path()
                    ),
                )
            else:
                _say(self.side_message, tr("Key saved in the OS keyring."))
            self.refresh_key_status()

        def refused(exc: Exception) -> None:  # no keyring, a locked one, dbus down: said, never raised
            _say(
                self.side_message, tr("Key not saved: {reason}").format(reason=problem(str(exc))), error=True
            )

        self.key_worker.run(store, saved, refused)

    def _notice_key(self) -> None:
        """The key is stored either way: a failure to tell the service is logged, not shown as
        a failure to store it (the service checks the keyring again within 30 s)."""
        try:
            self.host.handle("secret_changed", {})
        except Exception:
            log.warning("the service could not take the new key at once", exc_info=True)

    def clear_key(self) -> None:
        """The key goes from everywhere memevo keeps it: the keyring entry and the file."""

        def clear() -> tuple[bool, bool]:
            in_file = secrets.file_api_key() is not None
            removed = secrets.clear_api_key()
            self._notice_key()
            return removed, in_file

        def cleared(outcome: tuple[bool, bool]) -> None:
            removed, in_file = outcome
            if in_file:
                message = tr("Key removed: its file {path} is deleted.").format(path=secrets.file_path())
            elif removed:
                message = tr("Key removed from the keyring.")
            else:
                message = tr("There was no key in the keyring.")
            _say(self.side_message, message)
            self.refresh_key_status()

        def refused(exc: Exception) -> None:
            _say(
                self.side_message,
                tr("The keyring cannot be used: {problem}").format(problem=problem(str(exc))),
                error=True,
            )

        self.key_worker.run(clear, cleared, refused)

    def move_key(self) -> None:
        """The file's key into the keyring that works now; the file goes once the keyring gave
        the key back (core.secrets.move_to_keyring)."""

        def move() -> None:
            secrets.move_to_keyring()
            self._notice_key()

        def moved(_none: Any) -> None:
            self.file_check.setChecked(False)
            _say(self.side_message, tr("Key moved to the OS keyring; its file is deleted."))
            self.refresh_key_status()

        def refused(exc: Exception) -> None:
            _say(
                self.side_message, tr("Key not moved: {reason}").format(reason=problem(str(exc))), error=True
            )

        self.key_worker.run(move, moved, refused)


def _say(label: QLabel, text: str, error: bool = False) -> None:
    label.setText(text)
    label.setStyleSheet(ERROR_STYLE if error else "")
