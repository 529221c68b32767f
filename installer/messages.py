"""What the installer says, as data: a code and its parameters, with one English wording per
code here. `memevo setup` prints a message as it is (a Message is its English text, so the
terminal, logs and anything that joins lines keep working); the desktop says the same codes
through Qt's tr() (desktop/messages.py) and never reads the English back.

A parameter is text (a path, a command, a client's name) or another Message, said in the
same language as the one that holds it ("Claude Code: hooks: ~/.claude/settings.json")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

# The setup engine (installer/setup_engine.py).
CHECKING_MODEL = "setup.checking-model"
MODEL_READY = "setup.model-ready"
MODEL_FAILED = "setup.model-failed"
STOPPED = "setup.stopped"
NOT_INSTALLED = "setup.not-installed"
KEY_IN_KEYRING = "setup.key-in-keyring"
KEY_IN_FILE = "setup.key-in-file"
KEY_NOT_SAVED = "setup.key-not-saved"
AUTOSTART_ON = "setup.autostart-on"
AUTOSTART_OFF = "setup.autostart-off"
AUTOSTART_UPDATED = "setup.autostart-updated"
AUTOSTART_NOT_CHANGED = "setup.autostart-not-changed"
CLIENT_SAYS = "setup.client-says"
UNCHANGED = "setup.unchanged"
NOTE = "setup.note"
BACKUPS = "setup.backups"
LEGACY_FOUND = "setup.legacy-found"
RESTART_ONE = "setup.restart-one"
RESTART_MANY = "setup.restart-many"
RUN = "setup.run"
# A client's state (installer/client_state.py).
STATE = "state.title"
# A client's registration steps (installer/clients/base.py).
WROTE = "client.wrote"
SKILL_PLACED = "client.skill-placed"
SKILL_SHARED = "client.skill-shared"
SKILL_REMOVED = "client.skill-removed"
# A client file left alone (installer/jsonfile.py).
NOT_JSON = "file.not-json"
READ_ONLY = "file.read-only"
# The self-repair (installer/watcher.py).
REPAIRS_STOPPED = "repair.stopped"
# Problems put together ("; "), each said as itself.
JOINED = "joined"

ENGLISH: dict[str, str] = {
    CHECKING_MODEL: "Checking the embedding model…",
    MODEL_READY: "The embedding model is ready.",
    MODEL_FAILED: "the embedding model could not be provisioned: {why}",
    STOPPED: "Stopped before registering anything: {reason}",
    NOT_INSTALLED: "{client}: not installed ({path} is missing); skipped",
    KEY_IN_KEYRING: "The side API key is in the OS keyring.",
    KEY_IN_FILE: "The side API key is in {path}, a file only your account can read (not encrypted).",
    KEY_NOT_SAVED: "The key was not saved: {why}. Set it later with `memevo secret set`.",
    AUTOSTART_ON: "Start at login: {path}",
    AUTOSTART_OFF: "Start at login: off",
    AUTOSTART_UPDATED: "Start at login: updated {path}",
    AUTOSTART_NOT_CHANGED: "Start at login: not changed — {why}",
    CLIENT_SAYS: "{client}: {line}",
    UNCHANGED: "already registered, nothing changed",
    NOTE: "Note ({client}): {note}",
    BACKUPS: "Backups of the changed client files: {files}",
    LEGACY_FOUND: "The Node tool's memories are in the data dir: `memevo import-legacy` imports them.",
    RESTART_ONE: "Restart {client} so it loads memevo's MCP server.",
    RESTART_MANY: "Restart {clients} so they load memevo's MCP server.",
    RUN: "  run: {command}",
    STATE: "{client}: {state}",
    WROTE: "{what}: {path}",
    SKILL_PLACED: "skill: {path}",
    SKILL_SHARED: "skill: removed the copy in {path} ({why})",
    SKILL_REMOVED: "removed the skill from {path}",
    NOT_JSON: "{path} is not valid JSON (line {line}, column {column}: {why}); "
    "left untouched — fix it and run `memevo setup --repair`",
    READ_ONLY: "{path} is read-only; left untouched — to let memevo register, run `chmod u+w {path}` "
    "then `memevo setup --repair`",
    REPAIRS_STOPPED: "its file lost memevo's entries {count} times within {minutes} minutes; memevo stopped "
    "repairing it until the tray app restarts (Clients → Repair now to try again)",
    JOINED: "{first}; {rest}",
}


def define(catalogue: Mapping[str, str]) -> None:
    """Codes another installer module words itself (installer/client_state.py: a client's
    states; a client's module in installer/clients/: the lines only it reports)."""
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
