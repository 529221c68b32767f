"""What the installer says, as data: a code and its parameters, with one English wording per
code here. `memevo setup` prints a message as it is (a Message is its English text, so the
terminal, logs and anything that joins lines keep working); the desktop says the same codes
through Qt's tr() (desktop/messages.py) and never reads the English back.

A parameter is text (a path, a command, a client's name) or another Message, said in the
same language as the one that holds it ("Claude Code: hooks: ~/.claude/settings.json")."""

from __future__ import annotations

from ..core.messages import ENGLISH, JOINED, Message, define, joined, render

__all__ = ["ENGLISH", "JOINED", "Message", "define", "joined", "render"]

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

define(
    {
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
    }
)
