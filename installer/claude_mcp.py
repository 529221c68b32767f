"""Claude Code's MCP registration goes through its own CLI (`claude mcp add --scope user`):
its user-scope servers live in ~/.claude.json, which Claude Code rewrites for itself, so we
never edit that file by hand."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from .clients import SERVER_NAME, home
from .entries import MCP_MARKER
from .registration import interpreter


def find_claude() -> str | None:
    """claude on PATH, else the desktop app's bundled one (newest version), else
    MEMEVO_CLAUDE_BIN or the Node tool's MEMORY_CLAUDE_BIN."""
    on_path = shutil.which("claude")
    if on_path:
        return on_path
    bundled_root = home() / "Library" / "Application Support" / "Claude" / "claude-code"
    if bundled_root.is_dir():
        candidates = sorted(
            (p / "claude" for p in bundled_root.iterdir() if (p / "claude").is_file()), key=_version_key
        )
        if candidates:
            return str(candidates[-1])
    for variable in ("MEMEVO_CLAUDE_BIN", "MEMORY_CLAUDE_BIN"):
        value = os.environ.get(variable, "").strip()
        if value and Path(value).is_file():
            return value
    return None


def _version_key(path: Path) -> tuple[int, ...]:
    parts = path.parent.name.split(".")
    return tuple(int(p) if p.isdigit() else -1 for p in parts)


def server_args(client: str = "claude") -> list[str]:
    return [interpreter(), "-m", MCP_MARKER, "mcp", "--client", client]


def add_command(claude: str = "claude") -> list[str]:
    return [claude, "mcp", "add", "--scope", "user", SERVER_NAME, "--", *server_args()]


def remove_command(claude: str = "claude") -> list[str]:
    return [claude, "mcp", "remove", "--scope", "user", SERVER_NAME]


def printable(command: list[str]) -> str:
    import shlex

    return " ".join(shlex.quote(part) for part in command)


def _run(command: list[str], timeout_s: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout_s, stdin=subprocess.DEVNULL
    )


def register(claude: str) -> str | None:
    """Remove an existing entry of ours, then add (versions differ on re-adding a name).
    Returns None on success, else the reason."""
    try:
        _run(remove_command(claude))  # absent is fine
        result = _run(add_command(claude))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{claude} could not run: {exc}"
    if result.returncode != 0:
        return (result.stderr or result.stdout).strip() or f"exit code {result.returncode}"
    return None


def unregister(claude: str) -> str | None:
    try:
        result = _run(remove_command(claude))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{claude} could not run: {exc}"
    text = (result.stderr + result.stdout).lower()
    if result.returncode != 0 and not ("no mcp server" in text or "not found" in text):
        return (result.stderr or result.stdout).strip() or f"exit code {result.returncode}"
    return None


def claude_json() -> Path:
    """Claude Code's own file: ~/.claude.json, or inside CLAUDE_CONFIG_DIR when that is set."""
    override = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return (Path(override).expanduser() if override else home()) / ".claude.json"


def registered_entry() -> dict[str, object] | None:
    """Our entry in ~/.claude.json as Claude Code wrote it (read only), or None."""
    import json

    path = claude_json()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


def status() -> str:
    entry = registered_entry()
    if entry is None:
        return "missing"
    wanted = server_args()
    return "ok" if [entry.get("command"), *(entry.get("args") or [])] == wanted else "stale"
