"""Core's texts in the UI language: its loading stages and its reasons (the keyring's,
config's). Core says them as messages (core/messages.py: a code and its parameters); each code
is worded here through tr(). Text that is not one of core's messages (an OS error's own words)
is shown as it is."""

from __future__ import annotations

from ..core import messages as m
from .i18n import tr


def stage(text: str) -> str:
    """A loading or provisioning stage in the UI language."""
    return m.render(text, _stages())


def problem(text: str) -> str:
    """A reason core gives (the keyring's, most often) in the UI language."""
    return m.render(text, _problems() | _config())


def config_reason(text: str) -> str:
    """Why core/config refused a value ("must be …"), or what it says of config.json."""
    return m.render(text, _config())


def backfill_reason(text: str) -> str:
    """Why backfill proposes a candidate, or why its wording pass stopped, in the UI language."""
    return m.render(text, _backfill())


def _stages() -> dict[str, str]:
    return {
        m.STARTING: tr("starting"),
        m.CHECKING_STORE: tr("checking the memory store"),
        m.ENCODING_STALE: tr("encoding memories that have no vector yet"),
        m.CONVERTING_PACK: tr("converting the offline model pack"),
        m.BUILDING_GRAPH: tr("building the model's ONNX graph (once)"),
        m.CHECKING_MODEL: tr("checking the model on known sentences"),
        m.CHECKING_AND_BUILDING: tr("checking the model on known sentences and building its ONNX graph"),
        m.DOWNLOADING: tr("downloading {model} from {url}"),
        m.FETCHING: tr("fetching {package} from the Python package index"),
    }


def _problems() -> dict[str, str]:
    return {
        # in the panel the file is a tick box, not the command
        m.NO_KEYRING: tr(
            "this computer has no OS keyring (on Linux: a Secret Service such as gnome-keyring or KWallet); set one up, or tick “Keep the key in that file” to keep it in a file only your account can read (not encrypted), or set {env} where memevo starts (a tray app started at login does not see a terminal's variables)"
        ),
        m.NOT_READ_BACK: tr("the keyring did not give the key back, so it is not saved there"),
        m.FILE_KEPT: tr("the keyring did not give the key back; the file is kept"),
        m.KEY_EMPTY: tr("the key is empty"),
        m.KEY_BAD_CHARACTER: tr("the key has a line break or another character that cannot be in a key"),
        m.PROMPT_DISMISSED: tr(
            "the keyring asked for its password and the prompt was closed, so the key is not saved; save it again to be asked again, or tick “Keep the key in that file”"
        ),
    }


def _config() -> dict[str, str]:
    return {
        m.MUST_BE_BOOL: tr("must be on or off"),
        m.MUST_BE_POSITIVE: tr("must be a positive whole number"),
        m.MUST_BE_RANGE: tr("must be a whole number from {low} to {high}"),
        m.MUST_BE_SCORE: tr("must be a number from 0 to 1, or -1 to switch it off"),
        m.MUST_BE_WEIGHT: tr("must be a number from 0 (off) to 2"),
        m.MUST_BE_MINUTES: tr("must be a number of minutes, 0 or more (0: never)"),
        m.MUST_BE_URL: tr("must be an http:// or https:// URL"),
        m.MUST_BE_TEXT: tr("must not be empty"),
        m.MUST_BE_MODEL: tr("must be a model id like intfloat/multilingual-e5-small, or an absolute folder"),
        m.MUST_BE_ONE_OF: tr("must be one of {choices}"),
        m.MUST_BE_ST_FOLDER: tr("must be a sentence-transformers folder: {folder} has no modules.json"),
        m.KEY_VALUE_DEFAULT: tr("{key}={value}: {reason}; the default is used"),
        m.FILE_NOT_JSON: tr("{path} is not valid JSON (line {line}, column {column})"),
        m.USING_DEFAULTS: tr("{reason}; the defaults are used"),
    }


def _backfill() -> dict[str, str]:
    from ..core.importers import backfill, improve

    return {
        improve.IMPROVE_DAILY_LIMIT: tr(
            "the day's limit of side API calls (sideDailyLimit, in Settings) is reached"
        ),
        backfill.WHY_SESSIONS: tr("said in {count} sessions"),
        backfill.WHY_DURABLE: tr("says it is to last"),
        backfill.WHY_CORRECTION: tr("a correction of the assistant"),
    }
