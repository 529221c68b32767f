"""The wizard's learning page: who proposes new memories (config `learning`: automatic
preselected), and the side API's fields below it, optional (used by automatic and the side
judge only)."""

from __future__ import annotations

from typing import Any

from ..core import config as config_mod
from .i18n import tr
from .learning_texts import mode_help, mode_label
from .qt import QCheckBox, QGridLayout, QLabel, QLineEdit, QRadioButton, QVBoxLayout, QWizardPage
from .settings_workers import ERROR_STYLE
from .wizard_pages import PAGE_AUTOSTART, PAGE_CLAUDE, _help, _label


def _keyring_problem() -> str | None:
    """On the wizard's worker (the keyring may wait on D-Bus): why no key can be kept, or None."""
    from ..core.privacy import side_api_key as secrets

    status = secrets.status()
    return None if status.source == "environment" or not status.keyring_problem else status.keyring_problem


class SidePage(QWizardPage):
    """Learning: who proposes new memories (config `learning`), automatic preselected; the side
    API's fields below are optional, used only by automatic and the side judge."""

    def __init__(self, owner: Any, config: config_mod.Config) -> None:
        super().__init__()
        self.owner = owner
        self.keyring_missing: bool | None = None  # until the keyring probe answers
        self.setTitle(tr("Learning: who proposes new memories"))
        layout = QVBoxLayout(self)
        layout.addWidget(
            _label(
                tr(
                    "memevo learns from what you say to your coding assistant: something worth keeping is proposed as a memory, and you confirm it as chosen on the previous page. Who proposes:"
                )
            )
        )
        self.mode_radios: dict[str, QRadioButton] = {}
        for mode in config_mod.LEARNING_MODES:
            radio = self.mode_radios[mode] = QRadioButton(mode_label(mode))
            layout.addWidget(radio)
            layout.addWidget(_help(mode_help(mode), indent=24))
        chosen = str(config["learning"])
        self.mode_radios[chosen if chosen in self.mode_radios else "auto"].setChecked(True)
        layout.addSpacing(8)
        self.side_heading = _label(
            tr(
                "<b>Side API</b> (optional; only the first two choices above use it, and Automatic does without)"
            )
        )
        layout.addWidget(self.side_heading)
        grid = QGridLayout()
        self.base_edit = QLineEdit(config["sideApiBase"] or "")
        self.base_edit.setPlaceholderText("https://api.openai.com/v1")
        self.model_edit = QLineEdit(config["sideApiModel"] or "")
        self.model_edit.setPlaceholderText(tr("e.g. gpt-4o-mini"))
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText(tr("not shown; stored in the OS keyring"))
        self.field_labels = [QLabel(tr("Base URL")), QLabel(tr("Model")), QLabel(tr("API key"))]
        for row, (label, edit) in enumerate(
            zip(self.field_labels, (self.base_edit, self.model_edit, self.key_edit), strict=True)
        ):
            label.setBuddy(edit)
            grid.addWidget(label, row, 0)
            grid.addWidget(edit, row, 1)
        layout.addLayout(grid)
        self.key_note = _help(
            tr(
                "The key goes to the OS keyring (Keychain, Credential Manager or the Secret Service), never to a file. Leave it empty to keep a key you saved before."
            )
        )
        layout.addWidget(self.key_note)
        # Shown only where no keyring works: the key in a user-only file, chosen knowingly.
        self.file_check = QCheckBox(tr("Keep the key in that file (not encrypted)"))
        self.file_check.hide()
        self.file_check.toggled.connect(self._changed)
        layout.addWidget(self.file_check)
        self.message_label = _label()
        layout.addWidget(self.message_label)
        layout.addStretch(1)
        owner.worker.run(_keyring_problem, self._show_keyring, lambda _exc: None)
        for edit in (self.base_edit, self.model_edit):
            edit.textChanged.connect(self._changed)
        for radio in self.mode_radios.values():
            radio.toggled.connect(self._changed)
        self._changed()

    def nextId(self) -> int:
        """Claude Code's permission question only when Claude Code is there and something will
        be proposed: with learning off, memory_propose is never called."""
        asks = "claude" in self.owner.present and self.mode() != "off"
        return PAGE_CLAUDE if asks else PAGE_AUTOSTART

    def mode(self) -> str:
        """The learning mode chosen: auto, client, side or off."""
        return next((m for m, radio in self.mode_radios.items() if radio.isChecked()), "auto")

    def uses_side(self) -> bool:
        return self.mode() in ("auto", "side")

    def _changed(self, *_: Any) -> None:
        used = self.uses_side()
        for widget in (self.side_heading, *self.field_labels, self.base_edit, self.model_edit, self.key_edit):
            widget.setEnabled(used)
        self.file_check.setEnabled(used)
        if self.keyring_missing:  # no keyring: the key field opens only for the file, when chosen
            self.key_edit.setEnabled(used and self.file_check.isChecked())
            # worded as Settings words it: the closed field says what opens it
            self.key_edit.setPlaceholderText(
                tr("API key (kept in that file, never shown)")
                if self.file_check.isChecked()
                else tr("API key (tick “Keep the key in that file” below to keep it there)")
            )
        problem, is_error = self.problem()
        self.message_label.setText(problem or "")
        self.message_label.setStyleSheet(ERROR_STYLE if is_error else "")
        self.completeChanged.emit()

    def problem(self) -> tuple[str | None, bool]:
        """Why Next is blocked (None: it is not), and whether that is a mistake or just empty."""
        if not self.uses_side():
            return None, False
        base, model = self.base_edit.text().strip(), self.model_edit.text().strip()
        if not base and not model:
            if self.mode() == "side":
                return tr(
                    "The side judge needs its base URL and model: fill them in, or choose another way."
                ), False
            return None, False
        if not base:
            return tr("Fill in the base URL too, or clear the model."), False
        try:
            config_mod.BY_NAME["sideApiBase"].validate(base)
        except ValueError:
            return tr("The base URL must start with http:// or https://."), True
        if not model:
            return tr("Fill in the model too, or clear the base URL."), False
        return None, False

    def isComplete(self) -> bool:
        return self.problem()[0] is None

    def _show_keyring(self, problem: str | None) -> None:
        """No OS keyring: say so before the user types a key that cannot be kept, and offer the
        remedy that also reaches a tray app started at login: the key in a file only the user's
        account can read — where it is, and that it is not encrypted."""
        from .settings_key import file_words

        self.keyring_missing = problem is not None
        if problem is None:
            return
        self.key_note.setText(
            tr(
                "This computer has no OS keyring. Automatic learning still works through your coding assistant's own model. To use a side API here, {file}"
            ).format(file=file_words())
        )
        self.file_check.show()
        self._changed()

    def key_to_file(self) -> bool:
        """The key goes to the user-only file (no keyring here, and the user chose it)."""
        return bool(self.keyring_missing) and self.file_check.isChecked()

    def validatePage(self) -> bool:  # also guards a programmatic next()
        return self.isComplete()

    def values(self) -> tuple[str | None, str | None, str | None]:
        """(base, model, key) as the engine takes them; None: leave that one as it is."""
        if not self.uses_side() or not self.isComplete() or not self.base_edit.text().strip():
            return None, None, None
        base = config_mod.BY_NAME["sideApiBase"].validate(self.base_edit.text())
        return base, self.model_edit.text().strip() or None, self.key_edit.text().strip() or None
