"""CodeBuddy's legacy layout: only ~/.codebuddy.json holds the CLI's user MCP servers.

The IDE needs ~/.codebuddy/mcp.json, but once that file exists the CLI reads it first and
stops reading ~/.codebuddy.json (first existing wins, no merging) — the user's servers would
vanish from the CLI. So when setup creates mcp.json in that situation it starts from a copy
of the legacy file's servers, and uninstall deletes mcp.json again when all that is left in it
is that copy, giving the CLI its old view back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import jsonfile, state

STATE_KEY = "codebuddy_seeded"


def legacy_file() -> Path:
    from .clients import home

    return home() / ".codebuddy.json"


def seed_new_mcp_file(mcp_file: Path, data: dict[str, Any]) -> list[str]:
    """Called before our entry goes into a mcp.json that does not exist yet; returns the copied names."""
    if mcp_file.exists() or mcp_file.name != "mcp.json" or not legacy_file().exists():
        return []
    try:
        legacy = jsonfile.load(legacy_file())
    except jsonfile.ClientFileError:
        return []
    servers = legacy.get("mcpServers")
    if not isinstance(servers, dict) or not servers:
        return []
    from .clients import LEGACY_SERVER_NAMES, SERVER_NAME

    copied = {k: v for k, v in servers.items() if k not in (SERVER_NAME, *LEGACY_SERVER_NAMES)}
    data.setdefault("mcpServers", {}).update(copied)
    state.update_client("codebuddy", **{STATE_KEY: {"file": str(mcp_file), "servers": sorted(copied)}})
    return sorted(copied)


def remove_seeded_file(mcp_file: Path) -> bool:
    """After our entry left mcp.json: delete it if it holds nothing but the copy we made."""
    seeded = state.client("codebuddy").get(STATE_KEY)
    if not seeded or seeded.get("file") != str(mcp_file) or not mcp_file.exists():
        return False
    try:
        current = jsonfile.load(mcp_file)
        legacy = jsonfile.load(legacy_file()).get("mcpServers") or {}
    except jsonfile.ClientFileError:
        return False
    servers = current.get("mcpServers") or {}
    only_the_copy = set(current) <= {"mcpServers"} and all(
        name in seeded.get("servers", []) and legacy.get(name) == value for name, value in servers.items()
    )
    if not only_the_copy:
        return False
    mcp_file.unlink()
    state.update_client("codebuddy", **{STATE_KEY: None})
    return True
