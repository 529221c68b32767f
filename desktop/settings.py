"""The panel's Settings view: every config key as a form, learning (who proposes memories, and
the caps on the client models' proposals), the side API (key in the OS keyring, or in a
user-only file where none works: settings_key; connection test; optional under automatic
learning) and the embedding model (provisioning with a
progress bar).

Writes go through the shared operations (`config_set` / `config_unset`), the path the CLI
and the service take, then the host's fallback texts are refreshed. Network and provisioning
work runs on worker threads (settings_workers); the UI thread only words the results.
"""

from __future__ import annotations

import logging
from typing import Any

from ..core import config as config_mod
from ..core.encoder.models import KNOWN
from ..core.errors import MemevoError
from ..core.learning import readiness
from ..core.privacy import side_api_key as secrets
from ..core.recall.gate import MODEL_KEYS as GATE_KEYS
from .core_texts import config_reason, stage
from .i18n import plural, tr
from .learning_texts import effective, mode_help
from .qt import (
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QTimer,
    QVBoxLayout,
    QWidget,
    Signal,
)
from .settings_key import SideKeyMixin, _say
from .settings_workers import (
    ERROR_STYLE,
    PROBE_TIMEOUT_S,
    ComboBox,
    FieldRow,
    Outcome,
    Relay,
    config_is_broken,
    is_provisioned,
    probe,
    provision_work,
    run_in_thread,
)
from .worker import OffUi

log = logging.getLogger("memevo.desktop")

SIDE_KEYS = ("sideApiBase", "sideApiModel")
LEARNING_KEYS = ("learning", "confirm", "proposalsPerSession", "proposalsPerDay")
MODEL_KEYS = ("model",)
FOLLOW_MS = 2000  # how often a shown view looks for changes made elsewhere (the tray, `memevo config`)


class SettingsView(SideKeyMixin, QWidget):
    """SettingsView(host): host is the ServiceHost (its ctx for the config operations)."""

    connection_tested = Signal(bool, str)  # ok, the message shown
    provision_finished = Signal(bool, str)  # ok, the message shown

    def __init__(self, host: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.key_worker = OffUi("memevo-keyring", self)
        self.test_timeout_s = PROBE_TIMEOUT_S  # tests shorten it
        self.broken: str | None = None
        self._provisioning: str | None = None
        self.key_present: bool | None = None  # the side API key, once the keyring answered
        # The tray's Pause and confirmation toggle and `memevo config` write the same file: a
        # shown view reads it again on its own worker (never the UI thread) and takes what
        # changed there, keeping what the user edited here and has not saved.
        self.follow_worker = OffUi("memevo-settings", self)
        self.follow_timer = QTimer(self)
        self.follow_timer.setInterval(FOLLOW_MS)
        self.follow_timer.timeout.connect(self.follow)
        self._shown: tuple[Any, ...] | None = None  # the file as the form last showed it
        self._status_counts = False  # status_label says how many changes are not saved
        self.rows = {key.name: FieldRow(key, self) for key in config_mod.SCHEMA if key.public}
        outer = QVBoxLayout(self)
        self.problem_label = QLabel()
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet(ERROR_STYLE)
        outer.addWidget(self.problem_label)
        scroll = self.scroll_area = QScrollArea()
        scroll.setWidgetResizable(True)
        body = QWidget()
        column = QVBoxLayout(body)
        general = [name for name in self.rows if name not in SIDE_KEYS + MODEL_KEYS + LEARNING_KEYS]
        column.addWidget(self._group(tr("Memory and recall"), general)[0])
        column.addWidget(self._learning_group())
        column.addWidget(self._side_group())
        column.addWidget(self._model_group())
        column.addStretch(1)
        scroll.setWidget(body)
        outer.addWidget(scroll)
        outer.addLayout(self._bottom_bar())
        self.reload()

    # -- layout ------------------------------------------------------------------------------------------
    def _group(self, title: str, names: list[str] | tuple[str, ...]) -> tuple[QGroupBox, QVBoxLayout]:
        box = QGroupBox(title)
        layout = QVBoxLayout(box)
        grid = QGridLayout()
        for name in names:
            if name in self.rows:
                self.rows[name].add_to(grid)
        grid.setColumnStretch(1, 2)  # the editors
        grid.setColumnStretch(4, 1)  # the inline messages
        layout.addLayout(grid)
        return box, layout

    def _learning_group(self) -> QGroupBox:
        box, layout = self._group(tr("Learning (who proposes new memories)"), LEARNING_KEYS)
        self.learning_note = QLabel()
        self.learning_note.setWordWrap(True)
        layout.addWidget(self.learning_note)
        self.rows["learning"].editor.currentIndexChanged.connect(lambda _=0: self.refresh_learning_note())
        return box

    def refresh_learning_note(self) -> None:
        """What the mode in the combo means, and who would propose with it now (the saved side
        API and the key as the keyring last said)."""
        chosen = str(self.rows["learning"].raw() or "auto")
        config = config_mod.load()
        text = mode_help(chosen)
        if self.key_present is not None:
            saved = readiness.state(config, self.key_present)
            state = readiness.LearningState(saved.configured, saved.legacy_blocking, chosen)
            text += "\n" + tr("With this choice: {how}.").format(how=effective(state))
        self.learning_note.setText(text)
        self.refresh_cues_row(config)

    def refresh_cues_row(self, config: config_mod.Config) -> None:
        """Recall cues are written by the side API's model: with none set up the box cannot act,
        so it is greyed and says what it waits for (its saved value stays, for when one is)."""
        row = self.rows.get("recallCues")
        if row is None:
            return
        ready = bool(config["sideApiBase"] and config["sideApiModel"]) and self.key_present is not False
        row.editor.setEnabled(ready)
        row.editor.setToolTip(
            ""
            if ready
            else tr("Needs a side API (its address, model and key, below): its model writes the cues.")
        )

    def _side_group(self) -> QGroupBox:
        box, layout = self._group(tr("Side API (the judge that proposes memories)"), SIDE_KEYS)
        self.side_note = QLabel(
            tr(
                "The side judge is a language model of your choice, reached through an OpenAI-compatible API (the side API), that reads what you say to your coding assistant and proposes memories. Optional under automatic learning: without it, your coding assistant's own model proposes them. Needed when learning is set to the side judge."
            )
        )
        self.side_note.setWordWrap(True)
        layout.insertWidget(0, self.side_note)
        self._key_widgets(layout)
        self.test_button = QPushButton(tr("Test connection"))
        self.test_button.clicked.connect(self.test_connection)
        self.key_row.addWidget(self.test_button, 0)
        layout.addLayout(self.key_row)
        self.side_message = QLabel()
        self.side_message.setWordWrap(True)
        layout.addWidget(self.side_message)
        return box

    def _model_group(self) -> QGroupBox:
        box, layout = self._group(tr("Embedding model"), MODEL_KEYS)
        self.model_combo = ComboBox()
        self.provision_button = QPushButton(tr("Provision"))
        self.provision_button.clicked.connect(self.provision)
        layout.addLayout(_row(self.model_combo, self.provision_button, stretch=0))
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        self.progress.hide()  # shown while a model is provisioned: a 0% bar beside "in use" says nothing
        layout.addWidget(self.progress)
        self.model_message = QLabel()
        self.model_message.setWordWrap(True)
        layout.addWidget(self.model_message)
        return box

    def _bottom_bar(self) -> QHBoxLayout:
        self.save_button = QPushButton(tr("Save"))
        self.save_button.clicked.connect(self.save)
        self.reload_button = QPushButton(tr("Check again"))
        self.reload_button.clicked.connect(self.reload)
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        return _row(self.save_button, self.reload_button, self.status_label, stretch=2)

    # -- the config form ------------------------------------------------------------------------------------
    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.follow_timer.start()
        self.follow()

    def hideEvent(self, event: Any) -> None:
        self.follow_timer.stop()
        super().hideEvent(event)

    def reload(self) -> None:
        """Read config.json again; a file that cannot be parsed disables every write. What the
        user changed and did not save stays in the form (Check again and switching tabs come
        here: neither may throw an edit away), and the last save's line goes."""
        self._apply(config_mod.load(), config_is_broken(), models=True)
        self.refresh_key_status()
        self._say_unsaved(clear=True)

    def follow(self) -> None:
        """Changes made elsewhere, read on the worker: the form takes them when they arrive."""
        if self.follow_worker.busy:
            return
        self.follow_worker.run(lambda: (config_mod.load(), config_is_broken()), self._followed, _ignore)

    def _followed(self, read: tuple[config_mod.Config, str | None]) -> None:
        config, broken = read
        if _shape(config, broken) != self._shown:
            self._apply(config, broken)
            self._say_unsaved()

    def _apply(self, config: config_mod.Config, broken: str | None, models: bool = False) -> None:
        """Show a read of the file; rows edited here and not saved keep the edit. models: look
        at what is provisioned again (else only when the model changed)."""
        model_before = self._shown and self._shown[0].get("model")
        self.broken = broken
        self._shown = _shape(config, broken)
        problems = [config_reason(p) for p in config.problems]
        if self.broken:
            problems.append(tr("Settings cannot be saved until config.json is fixed or deleted."))
        self.problem_label.setText("\n".join(problems))
        self.problem_label.setVisible(bool(problems))
        for row in self.rows.values():
            row.load(config, writable=self.broken is None, keep_edit=row.changed())
        self.save_button.setEnabled(self.broken is None)
        self.provision_button.setEnabled(self.broken is None and self._provisioning is None)
        if self._provisioning is None and (models or model_before != config["model"]):
            self.refresh_models(str(config["model"]))
        self.refresh_learning_note()

    def unsaved(self) -> list[FieldRow]:
        return [row for row in self.rows.values() if row.changed()]

    def row_edited(self, _row: FieldRow) -> None:
        """An edit (typing the saved value back included): the count of unsaved changes is
        said again, and a line about an earlier save or reset goes."""
        self._say_unsaved(clear=True)

    def _say_unsaved(self, clear: bool = False) -> None:
        count = len(self.unsaved())
        if count:
            self.status_label.setText(
                plural(
                    count,
                    tr("{count} change is not saved yet: Save keeps it."),
                    tr("{count} changes are not saved yet: Save keeps them."),
                )
            )
        elif clear or self._status_counts:
            self.status_label.setText("")
        self._status_counts = bool(count)

    def _say_status(self, text: str) -> None:
        self.status_label.setText(text)
        self._status_counts = False

    def save(self) -> None:
        if self.broken is not None:
            self._say_status(tr("Nothing saved: config.json is broken."))
            return
        changed = self.unsaved()
        saved = [row for row in changed if self._save_row(row)]
        # Every row shows the file as it is now (the tray may have changed a key meanwhile):
        # saved rows say so, refused ones keep the edit and the reason, the others follow the file.
        config = config_mod.load()
        self._shown = _shape(config, self.broken)
        for row in self.rows.values():
            if row in saved:
                row.load(config, writable=True)
                row.show_message(tr("Saved."))
            elif row not in changed:
                row.load(config, writable=True)
        self.refresh_models(str(config["model"]))
        self.refresh_learning_note()
        failed = len(changed) - len(saved)
        if failed:
            self._say_status(
                tr("Saved {saved}, not saved {failed}: see the messages next to the fields.").format(
                    saved=len(saved), failed=failed
                )
            )
        elif saved:
            self._say_status(plural(len(saved), tr("Saved {count} setting."), tr("Saved {count} settings.")))
        else:
            self._say_status(tr("No changes."))

    def _save_row(self, row: FieldRow) -> bool:
        if row.key.name in GATE_KEYS and row.value() is None:  # empty: back to the model's value
            try:
                self.host.handle("config_unset", {"key": row.key.name})
            except MemevoError as exc:
                row.show_message(tr("Not saved: {reason}").format(reason=exc), error=True)
                return False
            return True
        try:
            value = row.key.validate(row.value())
        except ValueError as exc:
            row.show_message(tr("Not saved: {reason}").format(reason=config_reason(str(exc))), error=True)
            return False
        error = self.write_key(row.key.name, value)
        if error:
            row.show_message(tr("Not saved: {reason}").format(reason=error), error=True)
        return error is None

    def write_key(self, name: str, value: Any) -> str | None:
        """Set one key through the shared operation; the reason when it was refused."""
        try:
            self.host.handle("config_set", {"key": name, "value": value})
        except MemevoError as exc:
            return str(exc)
        return None

    def reset(self, name: str) -> None:
        row = self.rows[name]
        try:
            self.host.handle("config_unset", {"key": name})
        except MemevoError as exc:
            row.show_message(tr("Not reset: {reason}").format(reason=exc), error=True)
            return
        config = config_mod.load()
        row.load(config, writable=True)
        row.show_message(tr("Back to the default."))
        self._say_unsaved(clear=True)  # the last save's line is about an older state
        self.refresh_models(str(config["model"]))
        self.refresh_learning_note()

    # -- the connection test (the key's widgets and actions: settings_key.SideKeyMixin) ----------------------
    def test_connection(self) -> None:
        """Uses the fields as they are (saved or not) and the typed key, else the stored one."""
        endpoint = self._endpoint_or_reason()
        if isinstance(endpoint, str):
            self._tested(False, endpoint)
            return
        base, model, key = endpoint
        self.test_button.setEnabled(False)
        _say(self.side_message, tr("Testing {base} with {model}…").format(base=base, model=model))
        relay = Relay(self)
        relay.done.connect(self._on_tested)
        timeout = self.test_timeout_s
        run_in_thread(relay, lambda: probe(base, model, key, timeout), "memevo-side-test")

    def _endpoint_or_reason(self) -> tuple[str, str, str] | str:
        values = []
        for name in SIDE_KEYS:
            row = self.rows[name]
            try:
                values.append(row.key.validate(row.value()))
            except ValueError as exc:
                return tr("Cannot test: {field} {reason}").format(field=row.label.text(), reason=exc)
        key = self.key_edit.text().strip() or secrets.get_api_key()
        if not key:
            return tr("Cannot test: no API key is set.")
        return values[0], values[1], key

    def _on_tested(self, outcome: Outcome) -> None:
        _dispose(self.sender())
        self.test_button.setEnabled(True)
        result = outcome.value
        if outcome.error or result is None:
            self._tested(False, tr("Connection failed: {reason}").format(reason=outcome.error))
        elif result.ok:
            self._tested(True, tr("Connection OK: answered in {ms} ms.").format(ms=result.latency_ms))
        else:
            self._tested(False, tr("Connection failed: {reason}").format(reason=result.error))

    def _tested(self, ok: bool, text: str) -> None:
        _say(self.side_message, text, error=not ok)
        self.connection_tested.emit(ok, text)

    # -- the embedding model --------------------------------------------------------------------------------
    def refresh_models(self, current: str) -> None:
        self.model_combo.clear()
        for model_id in [*KNOWN, *([] if current in KNOWN else [current])]:
            state = tr("provisioned") if is_provisioned(model_id) else tr("not provisioned")
            if model_id == current:
                state = tr("{state}, in use").format(state=state)
            self.model_combo.addItem(tr("{model} ({state})").format(model=model_id, state=state), model_id)
        self.model_combo.setCurrentIndex(self.model_combo.findData(current))

    def provision(self) -> None:
        model_id = str(self.model_combo.currentData())
        self.provision_button.setEnabled(False)
        self.model_combo.setEnabled(False)
        self.progress.setRange(0, 0)  # busy until provisioning reports a fraction
        self.progress.show()
        _say(self.model_message, tr("Provisioning {model}…").format(model=model_id))
        self._provisioning = model_id
        relay = Relay(self)
        relay.stage.connect(lambda text: self.model_message.setText(stage(text)))
        relay.step.connect(self._on_step)
        relay.done.connect(self._on_provisioned)
        run_in_thread(relay, provision_work(model_id, relay), "memevo-provision")

    def _on_step(self, done: float, total: float) -> None:
        if total > 0:
            self.progress.setRange(0, 100)
            self.progress.setValue(min(100, int(100 * done / total)))

    def _on_provisioned(self, outcome: Outcome) -> None:
        _dispose(self.sender())
        model_id, self._provisioning = self._provisioning, None
        self.progress.setRange(0, 100)
        self.model_combo.setEnabled(True)
        self.provision_button.setEnabled(self.broken is None)
        error = outcome.error or self.write_key("model", model_id)
        self.progress.hide()
        if error:
            self.progress.setValue(0)
            text = tr("Provisioning {model} failed: {reason}").format(model=model_id, reason=error)
        else:
            self.progress.setValue(100)
            text = tr(
                "{model} is ready ({source}) and set as the model; it is used after memevo restarts."
            ).format(model=model_id, source=outcome.value.source)
        _say(self.model_message, text, error=error is not None)
        config = config_mod.load()
        self.rows["model"].load(config, writable=self.broken is None)
        self.refresh_models(str(config["model"]))
        self.provision_finished.emit(error is None, text)


def _row(*widgets: QWidget, stretch: int) -> QHBoxLayout:
    """Widgets side by side; the one at index `stretch` takes the spare width."""
    layout = QHBoxLayout()
    for index, widget in enumerate(widgets):
        layout.addWidget(widget, 1 if index == stretch else 0)
    return layout


def _shape(config: config_mod.Config, broken: str | None) -> tuple[Any, ...]:
    """What of a read of config.json the form shows: a change elsewhere changes this."""
    return dict(config.values), frozenset(config.user_set), tuple(config.problems), broken


def _ignore(exc: Exception) -> None:
    """A read that failed while following: the next one (or Check again) says what is wrong."""
    log.debug("settings could not read config.json: %s", exc)


def _dispose(relay: Any) -> None:
    """A finished worker's relay: it sent its last signal."""
    if relay is not None:
        relay.deleteLater()
