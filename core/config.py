"""config.json: one schema table, user values only, re-read on every use.

Only keys the user set are written to the file, so a later release's better default still
applies to everything else (the Node tool froze every default into the file on the first
change). A broken file never crashes anything: defaults are used and the problem reported.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import atomic, paths
from . import messages as msg
from .errors import InvalidInput
from .messages import Message

Validator = Callable[[Any], Any]  # returns the normalised value or raises ValueError


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError(Message(msg.MUST_BE_BOOL))


def _positive_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(Message(msg.MUST_BE_POSITIVE))
    return value


def _int_range(low: int, high: int) -> Validator:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(Message(msg.MUST_BE_RANGE, low=low, high=high))
        return value

    return check


def _score_or_off(value: Any) -> float | int:
    """A cosine threshold in [0, 1], or -1 to switch that minimum off."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(Message(msg.MUST_BE_SCORE))
    if value == -1:
        return -1  # shown as -1, as the user wrote it
    if 0 <= value <= 1:
        return float(value)
    raise ValueError(Message(msg.MUST_BE_SCORE))


def _weight(value: Any) -> float:
    """A fusion weight from 0 (off) to 2."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 2:
        raise ValueError(Message(msg.MUST_BE_WEIGHT))
    return float(value)


def _minutes_or_never(value: Any) -> float | int:
    """Minutes as a non-negative number; 0 means never."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise ValueError(Message(msg.MUST_BE_MINUTES))
    return value


# How memevo learns (the config's `learning`), in the one order every chooser offers them: the
# terminal's numbered question, the wizard, Settings. Who proposes in each, and why not when
# off: core/learning/readiness.py (English), desktop/learning_texts.py (tr()).
LEARNING_MODES = ("auto", "side", "client", "off")


def _learning_mode(value: Any) -> str:
    """`memevo config learning off` reads "off" as false: it means the mode off."""
    if value is False:
        return "off"
    if not isinstance(value, str) or value.strip().lower() not in LEARNING_MODES:
        raise ValueError(Message(msg.MUST_BE_ONE_OF, choices=", ".join(LEARNING_MODES)))
    return value.strip().lower()


def _http_url(value: Any) -> str:
    if not isinstance(value, str) or not value.strip().startswith(("http://", "https://")):
        raise ValueError(Message(msg.MUST_BE_URL))
    return value.strip().rstrip("/")


def _non_empty_text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(Message(msg.MUST_BE_TEXT))
    return value.strip()


MAX_OFF_REPOSITORIES = 500


def _repositories(value: Any) -> list[str]:
    """Repositories, as their identities (`host/org/name`, or a folder): each once, in order."""
    if not isinstance(value, list) or len(value) > MAX_OFF_REPOSITORIES:
        raise ValueError(f"must be a list of at most {MAX_OFF_REPOSITORIES} repositories")
    found: list[str] = []
    for item in value:
        if not isinstance(item, str) or not item.strip() or len(item) > 1000 or "\n" in item:
            raise ValueError("each repository must be a non-empty single-line text")
        if item.strip() not in found:
            found.append(item.strip())
    return found


_HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.\-]{0,95}")


def _model(value: Any) -> str:
    """A hub id (`org/name`) or an absolute folder holding a sentence-transformers model
    (its modules.json): anything else would only fail at the next start, with recall off."""
    text = _non_empty_text(value)
    folder = Path(text).expanduser()
    if folder.is_absolute():
        if not (folder / "modules.json").is_file():
            raise ValueError(Message(msg.MUST_BE_ST_FOLDER, folder=folder))
        return str(folder)
    if not _HUB_ID.fullmatch(text):
        raise ValueError(Message(msg.MUST_BE_MODEL))
    return text


@dataclass(frozen=True)
class Key:
    name: str
    default: Any
    validate: Validator
    help: str
    # Shown and settable by `memevo config`; legacy keys are read but not offered.
    public: bool = True
    # A stricter check when the value is set (not when the file is read: a model folder that
    # has gone since must still be named in the model's error, not replaced by the default).
    when_set: Validator | None = None


MODEL_DEFAULT = None  # the recall minimums default to the active model's calibrated values

SCHEMA: tuple[Key, ...] = (
    Key("enabled", True, _bool, "false: hooks inject nothing and learning stops (the CLI still works)"),
    Key("recallTopK", 3, _int_range(1, 20), "at most this many rules and this many project facts per prompt"),
    Key("recallMinScore", MODEL_DEFAULT, _score_or_off, "rule recall minimum; unset = model default; -1 off"),
    Key(
        "recallMinScoreProject",
        MODEL_DEFAULT,
        _score_or_off,
        "project recall minimum; unset = model default; -1 off",
    ),
    Key("recallMinMargin", -1, _score_or_off, "lead of top1 over the second; -1 off"),
    Key(
        "recallLexicalWeight",
        MODEL_DEFAULT,
        _weight,
        "weight of the word match (BM25) beside the cosine; unset = model default; 0 cosine only",
    ),
    Key("actionRecall", True, _bool, "before a command or an edit runs, recall the rules about it"),
    Key(
        "recallCues",
        True,
        _bool,
        "the side model writes recall cues for each memory (at most half the daily limit) and recall uses them",
    ),
    Key(
        "sessionStartChars",
        2400,
        _int_range(400, 10000),
        "session start injects at most this many characters (most confident rules first)",
    ),
    Key(
        "recallChars",
        1600,
        _int_range(200, 10000),
        "each prompt's recall injects at most this many characters",
    ),
    Key("showRecall", False, _bool, "Claude Code: also show the user what was recalled"),
    Key(
        "learning",
        "auto",
        _learning_mode,
        "who proposes memories: auto (the side API when configured, else the client's own model), "
        "side, client or off",
    ),
    Key(
        "confirm",
        True,
        _bool,
        "ask before writing what is learned (the side judge's or the client's proposal)",
    ),
    Key(
        "proposalsPerSession",
        8,
        _int_range(1, 100),
        "at most this many proposals from the client's model per session (a flood guard)",
    ),
    Key(
        "proposalsPerDay",
        30,
        _int_range(1, 1000),
        "at most this many proposals from the clients' models per day, all clients together",
    ),
    Key("sideWaitMs", 12000, _int_range(0, 60000), "how long Stop waits for the side judge (ms)"),
    Key(
        "offRepositories",
        [],
        _repositories,
        "repositories where memevo does nothing: no recall, no learning, no backfill, no staleness checks",
        public=False,  # `memevo off` / `memevo on` and the panel's list change it, one repository at a time
    ),
    Key("decayDays", 30, _int_range(1, 3650), "idle days before a memory loses 0.05"),
    Key(
        "syncMinutes",
        30,
        _int_range(0, 1440),
        "the tray runs `memevo sync` this often once a sync remote is set (0: only by hand)",
    ),
    Key(
        "model",
        "intfloat/multilingual-e5-small",
        _non_empty_text,
        "sentence-transformers model id or absolute folder",
        when_set=_model,
    ),
    Key("sideApiBase", None, _http_url, "side judge base URL (OpenAI-compatible)"),
    Key("sideApiModel", None, _non_empty_text, "side judge model name"),
    Key(
        "sideDailyLimit", 300, _int_range(1, 100_000), "at most this many side API calls per day (cost guard)"
    ),
    Key("sideContext", False, _bool, "also send the previous assistant message, redacted (off by default)"),
    # Not offered in the tray's settings (its own service never idles out); read from the file.
    Key(
        "serviceIdleMinutes",
        30,
        _minutes_or_never,
        "a headless service started on demand exits after this many idle minutes; 0 never",
        public=False,
    ),
    # The Node tool's old blocking mode; kept so an imported install stays un-learned until setup.
    Key("sideJudge", None, _bool, "legacy: false means learning stays off until setup", public=False),
)

BY_NAME = {key.name: key for key in SCHEMA}


@dataclass
class Config:
    values: dict[str, Any]
    user_set: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Any:
        return self.values[name]


def read_raw(path: Path) -> dict[str, Any]:
    """The file's object, {} when absent. Raises ValueError with a readable reason when broken."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from exc
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(Message(msg.FILE_NOT_JSON, path=path, line=exc.lineno, column=exc.colno)) from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path} must hold a JSON object")
    return data


def load(path: Path | None = None) -> Config:
    path = path or paths.config_path()
    config = Config(values={key.name: key.default for key in SCHEMA})
    try:
        raw = read_raw(path)
    except ValueError as exc:
        config.problems.append(Message(msg.USING_DEFAULTS, reason=exc.args[0] if exc.args else str(exc)))
        return config
    for name, value in raw.items():
        key = BY_NAME.get(name)
        if key is None:
            config.extra[name] = value
            continue
        try:
            config.values[name] = key.validate(value)
            config.user_set.add(name)
        except ValueError as exc:
            config.problems.append(
                Message(
                    msg.KEY_VALUE_DEFAULT,
                    key=name,
                    value=json.dumps(value, ensure_ascii=False),
                    reason=exc.args[0] if exc.args else str(exc),
                )
            )
    return config


def parse_cli_value(text: str) -> Any:
    """`memevo config KEY VALUE` gets text; read it as JSON when it is JSON, else as a string."""
    lowered = text.strip().lower()
    if lowered in ("true", "on", "yes"):
        return True
    if lowered in ("false", "off", "no"):
        return False
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _writable_raw(path: Path) -> dict[str, Any]:
    try:
        return read_raw(path)
    except ValueError as exc:
        raise InvalidInput(f"{exc}; fix or delete it first (nothing was written)") from exc


def set_key(name: str, value: Any, path: Path | None = None, *, own_command: bool = False) -> Any:
    """Validate and write one key; every other byte of meaning in the file stays as it was.
    own_command: a key not offered by `memevo config`, written by the command that owns it."""
    path = path or paths.config_path()
    key = BY_NAME.get(name)
    if key is None or not (key.public or own_command):
        known = ", ".join(k.name for k in SCHEMA if k.public)
        raise InvalidInput(f"unknown config key {name!r} (known: {known})")
    try:
        normalised = (key.when_set or key.validate)(value)
    except ValueError as exc:
        raise InvalidInput(f"{name} {exc}; config unchanged") from exc
    raw = _writable_raw(path)
    raw[name] = normalised
    if name in ("sideApiBase", "sideApiModel") and raw.get("sideJudge") is False:
        # The Node tool's blocking mode, kept by import-legacy: configuring the side API (setup,
        # the wizard, the panel, `memevo config`) is the user turning learning on.
        del raw["sideJudge"]
    _write(path, raw)
    return normalised


def unset_key(name: str, path: Path | None = None) -> None:
    """Forget the user's value so the default (and any later, better default) applies again."""
    path = path or paths.config_path()
    if name not in BY_NAME:
        raise InvalidInput(f"unknown config key {name!r}")
    raw = _writable_raw(path)
    if name in raw:
        del raw[name]
        _write(path, raw)


def replace_raw(raw: dict[str, Any], path: Path | None = None) -> None:
    _write(path or paths.config_path(), raw)


def _write(path: Path, raw: dict[str, Any]) -> None:
    atomic.write_text(path, json.dumps(raw, ensure_ascii=False, indent=2) + "\n")


def decay_days(config: Config) -> int:
    """decayDays as the maintenance uses it: anything but a positive whole number means 30."""
    value = config.values.get("decayDays")
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return 30
    return value
