"""A client's state in the UI language: installer/client_state's English texts, each spelt out
as a tr() literal so lupdate extracts it (tests/test_client_state.py keeps the two equal)."""

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


def repairs_stopped() -> str:
    return tr("repairs stopped")


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
    text = summaries()[state.overall]
    if state.registered and not state.repairing:
        text += tr("; ") + repairs_stopped()
    return text


def title(state: ClientState) -> str:
    """`Claude Code: hooks registered; the MCP server needs one command`."""
    return tr("{client}: {state}").format(client=state.display, state=summary(state))


def part_lines(state: ClientState) -> list[str]:
    """`Hooks: registered`, `MCP server: needs one command`, … (nothing for an unregistered client)."""
    if not state.registered:
        return []
    names, states = part_names(), part_states()
    return [
        tr("{part}: {state}").format(part=names[part], state=states[value])
        for part, value in state.parts.items()
    ]
