"""Where each client keeps its hooks, MCP servers and skills, and how to tell it is installed.

Paths are computed at call time from HOME and the clients' own overrides
(CLAUDE_CONFIG_DIR, CODEBUDDY_CONFIG_DIR), so tests and users with moved folders get the
right files."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

CLIENTS = ("claude", "cursor", "codebuddy", "workbuddy")
SERVER_NAME = "memory-self-evolution"  # the seed's MCP name: permission rules and skills refer to it
SKILL_NAME = "memory-self-evolution-manage"
LEGACY_SERVER_NAMES = ("dsh-memory",)  # the Node tool's older MCP name
DISPLAY_NAMES = {
    "claude": "Claude Code",
    "cursor": "Cursor",
    "codebuddy": "CodeBuddy",
    "workbuddy": "WorkBuddy",
}


@dataclass(frozen=True)
class ClientFiles:
    name: str
    config_dir: Path  # its existence means the client is installed
    hooks_file: Path
    mcp_files: tuple[Path, ...]  # every file we write our MCP entry into (empty: via the client's CLI)
    skills_dir: Path

    @property
    def display(self) -> str:
        return DISPLAY_NAMES[self.name]

    @property
    def installed(self) -> bool:
        return self.config_dir.is_dir()


def home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def tilde(path: Path | str) -> str:
    """A path under HOME as ~/…, for messages."""
    text, root = str(path), str(home())
    return "~" + text[len(root) :] if text.startswith(root + "/") else text


def _override(variable: str, default: Path) -> Path:
    value = os.environ.get(variable, "").strip()
    return Path(value).expanduser() if value else default


def claude_dir() -> Path:
    return _override("CLAUDE_CONFIG_DIR", home() / ".claude")


def codebuddy_dir() -> Path:
    """CODEBUDDY_CONFIG_DIR, except when it points at WorkBuddy's folder: WorkBuddy sets it for
    the CLI it launches, and CodeBuddy and WorkBuddy must never share one file."""
    chosen = _override("CODEBUDDY_CONFIG_DIR", home() / ".codebuddy")
    if _same_dir(chosen, home() / ".workbuddy"):
        return home() / ".codebuddy"
    return chosen


def _same_dir(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a == b


def codebuddy_mcp_files(config_dir: Path) -> tuple[Path, ...]:
    """The IDE reads mcp.json; the CLI reads the first existing of .mcp.json, mcp.json and
    ~/.codebuddy.json. mcp.json always gets our entry (the IDE), and so does whichever of the
    other two the CLI would read first, so both find it."""
    primary = config_dir / "mcp.json"
    cli_first = config_dir / ".mcp.json"
    legacy = home() / ".codebuddy.json"
    if cli_first.exists():
        return (primary, cli_first)
    if not primary.exists() and legacy.exists() and config_dir == home() / ".codebuddy":
        return (primary, legacy)
    return (primary,)


def files(client: str) -> ClientFiles:
    if client == "claude":
        base = claude_dir()
        return ClientFiles(client, base, base / "settings.json", (), base / "skills")
    if client == "cursor":
        base = home() / ".cursor"
        return ClientFiles(client, base, base / "hooks.json", (base / "mcp.json",), base / "skills")
    if client == "codebuddy":
        base = codebuddy_dir()
        return ClientFiles(client, base, base / "settings.json", codebuddy_mcp_files(base), base / "skills")
    if client == "workbuddy":
        base = home() / ".workbuddy"
        return ClientFiles(client, base, base / "settings.json", (base / "mcp.json",), base / "skills")
    raise ValueError(f"unknown client {client!r}: one of {', '.join(CLIENTS)}")


def installed() -> list[str]:
    return [c for c in CLIENTS if files(c).installed]


def skill_owner(client: str) -> bool:
    """Cursor also reads ~/.claude/skills (that literal folder): when our copy is there, Cursor
    must not get a second one in ~/.cursor/skills."""
    return not (client == "cursor" and cursor_reads_claude_copy())


def cursor_reads_claude_copy() -> bool:
    return (home() / ".claude" / "skills" / SKILL_NAME / ".memevo-owned").exists()
