"""A client registered from its row in hooks/client_table.py alone: hooks in
`~/<folder>/settings.json` (matcher groups, as Claude Code's), the MCP server in
`~/<folder>/mcp.json`, the skill in `~/<folder>/skills/`. A client whose files differ gets a
module of its own beside this one instead."""

from __future__ import annotations

from pathlib import Path

from ...hooks import client_table
from .base import Client, home


def client(name: str) -> Client:
    """The row's client: its name, display name, events and registered timeouts are the row's."""
    row = client_table.CLIENTS[name]

    class FromTable(Client):
        def config_dir(self) -> Path:
            return home() / row.folder

    FromTable.name = row.name
    FromTable.display = row.display
    FromTable.events = row.events
    FromTable.timeouts = row.registered
    return FromTable()
