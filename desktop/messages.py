"""The installer's messages (installer/messages.py: a code and its parameters) in the UI
language: one tr() wording per code, with the same {names} as the English the terminal
prints. Paths, commands and client names inside a message stay as they are.

A code missing here is shown in English: tests/test_chinese_ui.py walks a real setup in
Chinese and fails on any line left in English, so a new code comes with its wording here."""

from __future__ import annotations

from ..installer import messages as m
from ..installer.clients import claude, cursor
from .client_texts import state_wordings
from .i18n import tr


def said(message: str) -> str:
    """A line or a reason from the installer in the UI language. Plain text (not a Message:
    core's reasons, the keyring's) goes to core_texts.problem, which knows the shapes of core's
    texts."""
    if isinstance(message, m.Message) and message.code in _wordings():
        return m.render(message, _wordings(), _phrase)
    from .core_texts import problem

    return problem(str(message))


def _wordings() -> dict[str, str]:
    return _installer_wordings() | _client_wordings() | state_wordings()


def _installer_wordings() -> dict[str, str]:
    """The codes of installer/messages.py."""
    return {
        m.CHECKING_MODEL: tr("Checking the embedding model…"),
        m.MODEL_READY: tr("The embedding model is ready."),
        m.MODEL_FAILED: tr("the embedding model could not be provisioned: {why}"),
        m.STOPPED: tr("Stopped before registering anything: {reason}"),
        m.NOT_INSTALLED: tr("{client}: not installed ({path} is missing); skipped"),
        m.KEY_IN_KEYRING: tr("The side API key is in the OS keyring."),
        m.KEY_IN_FILE: tr(
            "The side API key is in {path}, a file only your account can read (not encrypted)."
        ),
        # the wizard's own Settings are where a Chinese user sets the key again
        m.KEY_NOT_SAVED: tr(
            "The key was not saved: {why}. Set it later in Settings or with `memevo secret set`."
        ),
        m.AUTOSTART_ON: tr("Start at login: {path}"),
        m.AUTOSTART_OFF: tr("Start at login: off"),
        m.AUTOSTART_UPDATED: tr("Start at login: updated {path}"),
        m.AUTOSTART_NOT_CHANGED: tr("Start at login: not changed — {why}"),
        # "Claude Code: …", as a client's state line is said
        m.CLIENT_SAYS: tr("{client}: {state}").format(client="{client}", state="{line}"),
        m.UNCHANGED: tr("already registered, nothing changed"),
        m.NOTE: tr("Note ({client}): {note}"),
        m.BACKUPS: tr("Backups of the changed client files: {files}"),
        m.LEGACY_FOUND: tr(
            "The Node tool's memories are in the data dir: `memevo import-legacy` imports them."
        ),
        m.RESTART_ONE: tr("Restart {client} so it loads memevo's MCP server."),
        m.RESTART_MANY: tr("Restart {clients} so they load memevo's MCP server."),
        m.RUN: tr("  run: {command}"),
        m.STATE: tr("{client}: {state}"),
        m.WROTE: tr("{what} written: {path}"),
        m.SKILL_PLACED: tr("skill placed in {path}"),
        m.NOT_JSON: tr(
            "{path} is not valid JSON ({where}); left untouched. Fix it, then run `memevo setup --repair`."
        ).format(path="{path}", where=tr("line {line}, column {column}")),
        m.READ_ONLY: tr(
            "{path} is read-only; left untouched. To let memevo register, make it writable, then run `memevo setup --repair`."
        ),
        m.REPAIRS_STOPPED: tr(
            "its file lost memevo's entries {count} times within {minutes} minutes; memevo stopped repairing it until the tray app restarts (Clients → Repair now to try again)"
        ),
        m.JOINED: "{first}" + tr("; ") + "{rest}",
    }


def _client_wordings() -> dict[str, str]:
    """The lines one client's module reports (its own codes, installer/clients/*.py)."""
    return {
        claude.MCP_NOT_FOUND: tr(
            "MCP server: no `claude` command was found (PATH, the desktop app, MEMEVO_CLAUDE_BIN); run:"
        ),
        claude.COMMAND: "  {command}",
        claude.MCP_ADDED: tr("MCP server: registered with claude mcp add --scope user (in ~/.claude.json)"),
        claude.MCP_ADD_FAILED: tr("claude mcp add failed: {reason}"),
        claude.PERMISSIONS_STEP: tr("the permissions for memory_resolve and memory_propose"),
        claude.AUTO_MEMORY_NOTE: tr(
            'To use only memevo\'s memory, add "autoMemoryEnabled": false to ~/.claude/settings.json.'
        ),
        claude.TRUST_NOTE: tr(
            "Interactive Claude Code runs user hooks only in folders you trusted (the workspace-trust dialog)."
        ),
        cursor.SKILL_DROPPED: tr("skill: removed Cursor's own copy (Cursor reads ~/.claude/skills)"),
    }


def _phrase(name: str, text: str) -> str:
    """A parameter that is fixed English of a client module (installer/clients/*.py): the step a
    file was written for, a client's note that is not a message; anything else as it is."""
    if name == "what":
        whats = {
            "hooks": tr("hooks"),
            "the MCP server": tr("the MCP server"),
        }
        return whats.get(text, text)
    if name == "note":
        notes = {
            "The CodeBuddy CLI asks you to review changed hooks in its /hooks panel before they apply.": tr(
                "The CodeBuddy CLI asks you to review changed hooks in its /hooks panel before they apply."
            ),
        }
        return notes.get(text, text)
    if name in ("line", "reason"):
        from .core_texts import problem

        return problem(text)
    return text
