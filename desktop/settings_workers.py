"""The settings view's helpers: one form row per config key, and the work it runs off the UI
thread (the side API connection test, model provisioning).

A worker is a plain Python thread; it reports through a `Relay` (a QObject living in the UI
thread), so Qt queues every signal into the UI thread's event loop. Workers never call `tr`:
their results are data, and the view words them.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from ..core import config as config_mod
from ..core.encoder.models import entry_for
from ..core.learning import judge
from ..core.process import aioloop
from ..core.recall.gate import MODEL_KEYS, model_defaults
from .i18n import tr
from .learning_texts import confirm_label, mode_label
from .qt import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QObject,
    QPushButton,
    QSpinBox,
    Qt,
    Signal,
)

PROBE_TIMEOUT_S = 10.0
PROBE_SYSTEM = "Connection test. Answer with the single word OK."


# -- the schema, as the form needs it ----------------------------------------------------------
def _accepts(validate: Callable[[Any], Any], value: Any) -> bool:
    try:
        validate(value)
    except ValueError:
        return False
    return True


def choices_of(key: config_mod.Key) -> tuple[str, ...] | None:
    """The values a key takes from a fixed list (a combo box), or None."""
    return config_mod.LEARNING_MODES if key.name == "learning" else None


def kind_of(key: config_mod.Key) -> str:
    """'choice', 'bool', 'int', 'number' or 'text', read from what the key's validator accepts,
    so a new key in the schema gets the right widget without a change here."""
    if choices_of(key) is not None:
        return "choice"
    if _accepts(key.validate, True):
        return "bool"
    if _accepts(key.validate, 0.5):
        return "number"
    if _accepts(key.validate, 1):
        return "int"
    return "text"


def parse_text(kind: str, text: str) -> Any:
    """A line edit's text as the value to validate: numbers are read as JSON, like the CLI."""
    return config_mod.parse_cli_value(text.strip()) if kind == "number" else text


def off_word() -> str:
    """How a recall condition switched off (-1 in the file) is shown in its field."""
    return tr("off")


def takes_off(key: config_mod.Key) -> bool:
    """-1 switches this key's condition off (shown as "off", not as a bare -1)."""
    return kind_of(key) == "number" and _accepts(key.validate, -1)


# -- editors a passing wheel leaves alone ------------------------------------------------------------
# Scrolling the page over a spin box or a combo box changed the setting under the pointer (a
# real display: 12000 became 11993). They take the focus only from a click or Tab, and an
# unfocused one hands the wheel on to the page, which scrolls.
def _wheel_when_focused(editor: Any) -> None:
    editor.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


def _pass_the_wheel_on(editor: Any, event: Any, own: Any) -> None:
    if editor.hasFocus():
        own(editor, event)
    else:
        event.ignore()


class SpinBox(QSpinBox):
    def __init__(self) -> None:
        super().__init__()
        _wheel_when_focused(self)

    def wheelEvent(self, event: Any) -> None:
        _pass_the_wheel_on(self, event, QSpinBox.wheelEvent)


class ComboBox(QComboBox):
    def __init__(self) -> None:
        super().__init__()
        _wheel_when_focused(self)

    def wheelEvent(self, event: Any) -> None:
        _pass_the_wheel_on(self, event, QComboBox.wheelEvent)


def config_is_broken() -> str | None:
    """The reason config.json cannot be written over (config refuses to), or None."""
    from ..core import paths

    try:
        config_mod.read_raw(paths.config_path())
    except ValueError as exc:
        return str(exc)
    return None


# -- one row of the form --------------------------------------------------------------------------
ERROR_STYLE = "color: #b00020;"


def key_texts() -> dict[str, tuple[str, str]]:
    """Each key's label and explanation, translatable (the schema's help is for the CLI)."""
    return {
        "enabled": (
            tr("Memory on"),
            tr("Off: hooks inject nothing and learning stops (the CLI still works)."),
        ),
        "recallTopK": (tr("Memories per prompt"), tr("At most this many rules and this many project facts.")),
        "recallMinScore": (
            tr("Minimum match for rules"),
            tr(
                "How closely a rule must match your prompt to be recalled, 0 to 1. Empty: the model's value. off (or -1): no minimum."
            ),
        ),
        "recallMinScoreProject": (
            tr("Minimum match for project facts"),
            tr(
                "How closely a project fact must match your prompt to be recalled, 0 to 1. Empty: the model's value. off (or -1): no minimum."
            ),
        ),
        "recallMinMargin": (
            tr("Only a clear best match"),
            tr(
                "A memory is recalled only when it matches your prompt better than the next-best memory by at least this much, 0 to 1. off (or -1): the next-best memory does not matter."
            ),
        ),
        "recallLexicalWeight": (
            tr("Weight of exact words"),
            tr(
                "How much using the same words as your prompt counts beside meaning the same, 0 to 2. Empty: the model's value. 0: meaning only."
            ),
        ),
        "actionRecall": (
            tr("Rules before each action"),
            tr("Before a command or an edit runs (Claude Code, Cursor), recall the rules about it."),
        ),
        "recallCues": (
            tr("Recall cues (with a side API)"),
            tr(
                "With a side API set up, its model writes once per memory the situations it matters in, and recall uses them; without one, this does nothing. At most half the daily calls."
            ),
        ),
        "sessionStartChars": (
            tr("Session start budget (characters)"),
            tr("The rules injected at session start fit in this many characters, 400 to 10000."),
        ),
        "recallChars": (
            tr("Recall budget (characters)"),
            tr("The memories recalled for a prompt fit in this many characters, 200 to 10000."),
        ),
        "showRecall": (tr("Show what was recalled"), tr("Claude Code: also show you what was recalled.")),
        "learning": (
            tr("Who proposes memories"),
            tr(
                "Automatic: the side judge when its API is set up, else your coding assistant's own model. Off: nothing is learned."
            ),
        ),
        "confirm": (
            confirm_label(),
            tr("Ask before writing what the side judge or your coding assistant's model proposes."),
        ),
        "proposalsPerSession": (
            tr("Proposals per session"),
            tr("At most this many proposals from your coding assistant's model per session, 1 to 100."),
        ),
        "proposalsPerDay": (
            tr("Proposals per day"),
            tr(
                "At most this many proposals from the coding assistants' models per day, all together, 1 to 1000."
            ),
        ),
        "sideWaitMs": (tr("Side judge wait (ms)"), tr("How long the end of a turn waits, 0 to 60000 ms.")),
        "decayDays": (tr("Idle days before decay"), tr("Idle days before a memory loses 0.05.")),
        "syncMinutes": (
            tr("Sync every (minutes)"),
            tr("How often the tray runs memevo sync once a sync remote is set, 0 to 1440; 0: only by hand."),
        ),
        "model": (tr("Embedding model"), tr("A sentence-transformers model id, or a folder.")),
        "sideApiBase": (tr("Base URL"), tr("An OpenAI-compatible endpoint, e.g. https://api.openai.com/v1")),
        "sideApiModel": (tr("Model"), tr("The model name the side judge asks for.")),
        "sideDailyLimit": (
            tr("Side API calls per day"),
            tr("At most this many calls per day (a cost guard)."),
        ),
        "sideContext": (
            tr("Send the previous answer"),
            tr("Also send the previous assistant message, redacted."),
        ),
    }


def choice_label(name: str, value: str) -> str:
    """A choice as the combo box shows it."""
    return mode_label(value) if name == "learning" else value


def default_text(key: config_mod.Key, config: config_mod.Config) -> str:
    model = model_value(key, config)
    if model is not None:  # what recall really uses (as `memevo config`)
        return tr("default: {value} (the model's value)").format(value=model)
    if key.default is None:
        return tr("default: none")
    if isinstance(key.default, bool):
        return tr("default: on") if key.default else tr("default: off")
    if choices_of(key) is not None:
        return tr("default: {value}").format(value=choice_label(key.name, str(key.default)))
    if key.default == -1 and takes_off(key):  # a bare "-1" read as a value on screen
        return tr("default: off")
    return tr("default: {value}").format(value=key.default)


def model_value(key: config_mod.Key, config: config_mod.Config) -> str | None:
    """What recall uses for a key left empty (the model's calibrated value), or None."""
    if key.name not in MODEL_KEYS or key.default is not None:
        return None
    return f"{model_defaults(config.values, entry_for(str(config['model'])))[key.name]:g}"


class FieldRow:
    """One config key: its editor, its default, a reset button and an inline message.

    Whether it is changed is the editor's value against the saved one (typing the saved value
    back is no change); Reset is offered wherever the editor or the file differs from the
    default. Each edit tells the view (`row_edited`), which counts what is not saved."""

    def __init__(self, key: config_mod.Key, view: Any) -> None:
        self.key, self.kind = key, kind_of(key)
        self.view = view
        label, help_text = key_texts().get(key.name, (key.name, key.help))
        self.label = QLabel(label)
        self.editor: Any = {"bool": QCheckBox, "int": SpinBox, "choice": ComboBox}.get(self.kind, QLineEdit)()
        if self.kind == "int":
            self.editor.setRange(0, 2_147_483_647)  # the schema's validator has the last word
        if self.kind == "choice":
            for choice in choices_of(key) or ():
                self.editor.addItem(choice_label(key.name, choice), choice)
        for widget in (self.label, self.editor):
            widget.setToolTip(f"{help_text}\n({key.name})")
        self.default_label = QLabel()
        self.reset_button = QPushButton(tr("Reset to default"))
        self.reset_button.clicked.connect(lambda _=False: view.reset(self.key.name))
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.loaded: Any = None
        self.writable = False
        self.saved_differs = False  # the file sets this key to something not the default
        self._loading = False
        signal = {
            "bool": "toggled",
            "int": "valueChanged",
            "choice": "currentIndexChanged",
        }.get(self.kind, "textChanged")
        getattr(self.editor, signal).connect(lambda *_: self._edited())

    def add_to(self, grid: QGridLayout) -> None:
        row = grid.rowCount()
        for column, widget in enumerate(
            (self.label, self.editor, self.default_label, self.reset_button, self.message)
        ):
            grid.addWidget(widget, row, column)

    def raw(self) -> Any:
        if self.kind == "choice":
            return self.editor.currentData()
        if self.kind == "bool":
            return self.editor.isChecked()
        if self.kind == "int":
            return self.editor.value()
        return self.editor.text()

    def value(self) -> Any:
        return self._meaning(self.raw())

    def _meaning(self, raw: Any) -> Any:
        """What an editor's content means: "off" is -1 where -1 switches a condition off, an
        empty number field is None (unset), "0.50" is 0.5."""
        if not isinstance(raw, str):
            return raw
        text = raw.strip()
        if self.kind == "number":
            if not text:
                return None
            if takes_off(self.key) and text.lower() in {off_word().lower(), "off"}:
                return -1
        return parse_text(self.kind, raw)

    def _raw_of(self, value: Any) -> Any:
        """What the editor shows for a value of the file."""
        if self.kind == "choice":
            return value
        if self.kind == "bool":
            return bool(value)
        if self.kind == "int":
            return int(value or 0)
        if value is None:
            return ""
        if value == -1 and takes_off(self.key):
            return off_word()
        return str(value)

    def load(self, config: config_mod.Config, writable: bool, keep_edit: bool = False) -> None:
        """Show the file's value; keep_edit: the user's unsaved value stays in the editor (the
        file's is what Save compares against), and the row says it is not saved yet."""
        edited = self.raw()
        self._loading = True
        try:
            self.set_raw(config.values[self.key.name])
            self.loaded = self.raw()
            if keep_edit:
                self.set_raw_text(edited)
        finally:
            self._loading = False
        self.writable = writable
        self.saved_differs = (
            self.key.name in config.user_set and config.values[self.key.name] != self.key.default
        )
        self.default_label.setText(default_text(self.key, config))
        model = model_value(self.key, config)
        if model is not None:  # an empty field is not "nothing": recall uses the model's value
            self.editor.setPlaceholderText(tr("the model's value ({value})").format(value=model))
        self.show_message(tr("Changed, not saved yet.") if self.changed() else "")
        self.refresh_reset()

    def set_raw(self, value: Any) -> None:
        self.set_raw_text(self._raw_of(value))

    def set_raw_text(self, raw: Any) -> None:
        """Put an editor's content back as it was (raw(), not a value of the file)."""
        if self.kind == "choice":
            self.editor.setCurrentIndex(max(0, self.editor.findData(raw)))
        elif self.kind == "bool":
            self.editor.setChecked(bool(raw))
        elif self.kind == "int":
            self.editor.setValue(int(raw or 0))
        else:
            self.editor.setText("" if raw is None else str(raw))

    def changed(self) -> bool:
        return self.loaded is not None and bool(self._meaning(self.raw()) != self._meaning(self.loaded))

    def differs_from_default(self) -> bool:
        return bool(self._meaning(self.raw()) != self._meaning(self._raw_of(self.key.default)))

    def refresh_reset(self) -> None:
        """Reset is offered wherever it changes something: the field or the file is not the default."""
        self.reset_button.setEnabled(self.writable and (self.saved_differs or self.differs_from_default()))

    def _edited(self) -> None:
        if self._loading or self.loaded is None:
            return
        self.show_message(tr("Changed, not saved yet.") if self.changed() else "")
        self.refresh_reset()
        edited = getattr(self.view, "row_edited", None)
        if edited is not None:
            edited(self)

    def show_message(self, text: str, error: bool = False) -> None:
        self.message.setText(text)
        self.message.setStyleSheet(ERROR_STYLE if error else "")


# -- threads that report back --------------------------------------------------------------------
class Relay(QObject):
    """Carries a worker's news into the UI thread."""

    done = Signal(object)  # an Outcome
    stage = Signal(object)  # a stage's text: a Message (core/messages.py) keeps its code across
    step = Signal(float, float)  # done, total (0: unknown)

    def emit_safely(self, signal_name: str, *args: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the view (and this relay) closed while the work ran
            getattr(self, signal_name).emit(*args)


@dataclass(frozen=True)
class Outcome:
    value: Any = None
    error: str | None = None


def run_in_thread(relay: Relay, work: Callable[[], Any], name: str) -> threading.Thread:
    def target() -> None:
        try:
            outcome = Outcome(value=work())
        except Exception as exc:  # reported to the user, never raised into Qt
            outcome = Outcome(error=str(exc) or exc.__class__.__name__)
        relay.emit_safely("done", outcome)

    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return thread


# -- the side API connection test ------------------------------------------------------------------
@dataclass(frozen=True)
class ProbeResult:
    ok: bool
    latency_ms: int
    error: str | None = None


def probe(base: str, model: str, key: str, timeout_s: float = PROBE_TIMEOUT_S) -> ProbeResult:
    """One small chat/completions call through the side judge's own `chat`, so a pass here
    means the judge's requests and answer parsing work too."""
    endpoint = judge.Endpoint(base, model, key, timeout_s)
    started = time.monotonic()
    try:
        aioloop.run_private(_ask(endpoint))  # a worker thread under qasync: see aioloop
    except judge.JudgeError as exc:
        return ProbeResult(False, _ms_since(started), str(exc))
    except (httpx.InvalidURL, httpx.UnsupportedProtocol, ValueError) as exc:
        return ProbeResult(False, _ms_since(started), f"the base URL cannot be used: {exc}")
    return ProbeResult(True, _ms_since(started))


async def _ask(endpoint: judge.Endpoint) -> str:
    async with httpx.AsyncClient() as client:
        return await judge.chat(client, endpoint, PROBE_SYSTEM, "ping")


def _ms_since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


# -- provisioning --------------------------------------------------------------------------------
class RelayProgress:
    """core.encoder.progress.Progress, forwarded to the UI thread."""

    def __init__(self, relay: Relay) -> None:
        self.relay = relay

    def stage(self, text: str) -> None:
        self.relay.emit_safely("stage", text)

    def update(self, done: float, total: float | None = None) -> None:
        self.relay.emit_safely("step", float(done), float(total or 0))


def provision_work(model_id: str, relay: Relay) -> Callable[[], Any]:
    def work() -> Any:
        from ..core.encoder.provision import provision

        return provision(model_id, RelayProgress(relay))

    return work


def is_provisioned(model_id: str) -> bool:
    from ..core.encoder.provision import ready_folder

    return ready_folder(model_id) is not None
