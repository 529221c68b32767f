"""A client's state in the UI language: installer/client_state's codes (its overall state,
each part and the part's state), each said through tr(). The English the terminal prints is
installer/client_state's; the desktop never reads it back."""

from __future__ import annotations

from ..installer.client_state import ClientState
from .i18n import tr


def client_label(client: str) -> str:
    """The client as its users know it (Claude Code, Cursor, CodeBuddy, WorkBuddy)."""
    from ..installer.clients import DISPLAY_NAMES

    return DISPLAY_NAMES.get(client, client)


def summaries() -> dict[str, str]:
    return {
        "ok": tr("hooks and MCP server registered"),
        "needs-command": tr("hooks registered; the MCP server needs one command"),
        "needs-repair": tr("registration incomplete; Repair now restores it"),
        "broken": tr("a client file cannot be read"),
        "not-registered": tr("not registered; run setup"),
        "removed": tr("removed (uninstall --only)"),
        "not-installed": tr("not installed"),
    }


def state_wordings() -> dict[str, str]:
    """The state messages' codes (installer/client_state: "state.ok", …), for desktop/messages."""
    from ..installer import client_state

    stopped = "{state}" + tr("; ") + tr("repairs stopped")
    return {f"state.{code}": said for code, said in summaries().items()} | {
        client_state.STOPPED_REPAIRING: stopped
    }


def part_names() -> dict[str, str]:
    return {"hooks": tr("Hooks"), "mcp": tr("MCP server"), "skill": tr("Skill")}


def part_states() -> dict[str, str]:
    return {
        "ok": tr("registered"),
        "missing": tr("missing"),
        "stale": tr("out of date"),
        "broken": tr("cannot be read"),
        "command": tr("needs one command"),
    }


def summary(state: ClientState) -> str:
    from .messages import said

    return said(state.summary())


def title(state: ClientState) -> str:
    """`Claude Code: hooks registered; the MCP server needs one command`."""
    from .messages import said

    return said(state.title())


def part_lines(state: ClientState) -> list[str]:
    """`Hooks: registered`, `MCP server: needs one command`, … (nothing for an unregistered client)."""
    if not state.registered:
        return []
    names, states = part_names(), part_states()
    return [
        tr("{part}: {state}").format(part=names[part], state=states[value])
        for part, value in state.parts.items()
    ]
