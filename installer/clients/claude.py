"""Claude Code: ~/.claude/settings.json (CLAUDE_CONFIG_DIR moves it), SessionStart /
UserPromptSubmit / PreToolUse / Stop, the permission rule for memory_propose, and the skill in
~/.claude/skills.

Its MCP registration goes through its own CLI (`claude mcp add --scope user`): its user-scope
servers live in ~/.claude.json, which Claude Code rewrites for itself, so we never edit that
file by hand."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, ClassVar

from ...hooks import client_table
from .. import jsonfile
from .. import messages as m
from ..entries import MCP_MARKER, SERVER_NAME, named_home
from ..hook_command import home_env, module_command, moved_home
from .base import Client, ClientFiles, ClientResult, edit, home, override

# The rule one yes adds to permissions.allow: memory_propose, the client's own model proposing
# a memory (client learning) — it writes nothing the user has not confirmed or said. Nothing
# that changes memories by the model's call is ever allowed without asking: memory_resolve,
# allowed by earlier versions, is taken out by any answer to the question (and by uninstall).
# Each is recognised as ours by its exact text (our MCP server's name in it); any other rule —
# one for our whole server included — is left as it is.
PROPOSE_PERMISSION = f"mcp__{SERVER_NAME}__memory_propose"
RESOLVE_PERMISSION = f"mcp__{SERVER_NAME}__memory_resolve"
PERMISSIONS = (PROPOSE_PERMISSION,)
RETIRED = (RESOLVE_PERMISSION,)
OURS = (*PERMISSIONS, *RETIRED)

# What this client's steps report beyond the shared ones (installer/messages.py), each code with
# its English; desktop/messages.py words each through tr().
MCP_NOT_FOUND = "claude.mcp-not-found"
COMMAND = "claude.command"
MCP_ADDED = "claude.mcp-added"
MCP_ADD_FAILED = "claude.mcp-add-failed"
PERMISSIONS_STEP = "claude.permissions-step"
AUTO_MEMORY_NOTE = "claude.auto-memory-note"
TRUST_NOTE = "claude.trust-note"
# uninstall's lines, said on a terminal only
REMOVE_NOT_FOUND = "claude.remove-not-found"
MCP_REMOVE_FAILED = "claude.mcp-remove-failed"
MCP_REMOVED = "claude.mcp-removed"
m.define(
    {
        MCP_NOT_FOUND: "MCP server: `claude` was not found (PATH, the desktop app, MEMEVO_CLAUDE_BIN); run:",
        COMMAND: "  {command}",
        MCP_ADDED: "MCP server: claude mcp add --scope user (in ~/.claude.json)",
        MCP_ADD_FAILED: "claude mcp add failed: {reason}",
        PERMISSIONS_STEP: "the memory_resolve and memory_propose permissions",
        AUTO_MEMORY_NOTE: 'To use only memevo\'s memory, add "autoMemoryEnabled": false to ~/.claude/settings.json.',
        TRUST_NOTE: "Interactive Claude Code runs user hooks only in folders you trusted (the workspace-trust dialog).",
        REMOVE_NOT_FOUND: "MCP server: `claude` was not found; run: {command}",
        MCP_REMOVE_FAILED: "claude mcp remove failed: {reason}",
        MCP_REMOVED: "MCP server: claude mcp remove",
    }
)
# The setup step's name in its output: the step edits both rules, adding one and taking out the
# retired one.
PERMISSION_WHAT = m.Message(PERMISSIONS_STEP)


ROW = client_table.CLIENTS["claude"]


class Claude(Client):
    name = ROW.name
    display = ROW.display
    events = ROW.events  # hooks/client_table.py: the events, our deadlines and the timeouts
    timeouts = ROW.registered
    # PreToolUse matches tool names: the tools whose calls rules are about.
    matchers: ClassVar[dict[str, str]] = {"PreToolUse": "Bash|Edit|MultiEdit|Write"}
    notes: ClassVar[tuple[str, ...]] = (m.Message(AUTO_MEMORY_NOTE), m.Message(TRUST_NOTE))
    permission_question: ClassVar[str | None] = (
        "Claude Code: let memevo's memory_propose (your assistant proposes a memory) run without asking"
        " each time (you still confirm each memory)? [y/N]: "
    )

    def config_dir(self) -> Path:
        return override("CLAUDE_CONFIG_DIR", home() / ".claude")

    def mcp_files(self, config_dir: Path) -> tuple[Path, ...]:
        return ()  # through `claude mcp add`

    def watched_files(self) -> list[Path]:
        return [*super().watched_files(), claude_json()]

    # -- the permission rule ---------------------------------------------------------------------------
    def set_permission(
        self, result: ClientResult, writer: jsonfile.Writer, where: ClientFiles, allow: bool
    ) -> None:
        change = set_permission if allow else remove_permission
        edit(result, writer, where.hooks_file, change, PERMISSION_WHAT)

    def remove_permission(self, result: ClientResult, writer: jsonfile.Writer, where: ClientFiles) -> None:
        edit(result, writer, where.hooks_file, remove_permission, PERMISSION_WHAT)

    # -- the MCP server, through `claude mcp` ----------------------------------------------------------
    def register_mcp(self, result: ClientResult, writer: jsonfile.Writer, where: ClientFiles) -> None:
        if status() == "ok":
            return
        claude = find_claude()
        if claude is None:
            result.manual_command = printable(add_command())
            result.lines.append(m.Message(MCP_NOT_FOUND))
            result.lines.append(m.Message(COMMAND, command=result.manual_command))
            return
        reason = register(claude)
        if reason:
            result.problems.append(m.Message(MCP_ADD_FAILED, reason=reason))
            result.manual_command = printable(add_command(claude))
        else:
            result.lines.append(m.Message(MCP_ADDED))
            result.changed = True

    def unregister_mcp(
        self, result: ClientResult, writer: jsonfile.Writer, where: ClientFiles, use_cli: bool
    ) -> None:
        if use_cli:
            self._unregister_through_cli(result)
        super().unregister_mcp(result, writer, where, use_cli)

    def _unregister_through_cli(self, result: ClientResult) -> None:
        if registered_entry() is None:
            return
        claude = find_claude()
        if claude is None:
            result.manual_command = printable(remove_command())
            result.lines.append(m.Message(REMOVE_NOT_FOUND, command=result.manual_command))
            return
        reason = unregister(claude)
        if reason:
            result.problems.append(m.Message(MCP_REMOVE_FAILED, reason=reason))
        else:
            result.lines.append(m.Message(MCP_REMOVED))
            result.changed = True

    def manual_mcp_command(self) -> str | None:
        """No `claude` binary: memevo cannot run `claude mcp add`, the user runs it."""
        return printable(add_command()) if find_claude() is None else None

    def mcp_status(self, report: dict[str, str], where: ClientFiles) -> None:
        report["mcp"] = status()
        super().mcp_status(report, where)


CLIENT = Claude()


# -- the permission rule in settings.json --------------------------------------------------------------
def set_permission(data: dict[str, Any]) -> bool:
    """Each of our rules that is missing is appended after the user's own, and a retired one
    taken out; True if anything changed."""
    retired = _remove(data, RETIRED)
    permissions = data.setdefault("permissions", {})
    allow = permissions.setdefault("allow", [])
    missing = [rule for rule in PERMISSIONS if rule not in allow]
    allow.extend(missing)
    return bool(missing) or retired


def has_permission() -> bool:
    """Our rule is in Claude Code's settings now (the wizard starts from what is there)."""
    try:
        data = jsonfile.load(CLIENT.files().hooks_file)
    except jsonfile.ClientFileError:
        return False
    permissions = data.get("permissions")
    allow = permissions.get("allow") if isinstance(permissions, dict) else None
    return isinstance(allow, list) and any(rule in allow for rule in PERMISSIONS)


def remove_permission(data: dict[str, Any]) -> bool:
    """Our rules, current and retired, out of permissions.allow (every copy); the user's own
    stay in their order."""
    return _remove(data, OURS)


def _remove(data: dict[str, Any], rules: tuple[str, ...]) -> bool:
    permissions = data.get("permissions")
    if not isinstance(permissions, dict):
        return False
    allow = permissions.get("allow")
    if not isinstance(allow, list) or not any(rule in allow for rule in rules):
        return False
    permissions["allow"] = [p for p in allow if p not in rules]
    if not permissions["allow"]:
        del permissions["allow"]
    if not permissions:
        del data["permissions"]
    return True


# -- `claude mcp` ---------------------------------------------------------------------------------------
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


def server_args(client: str = Claude.name) -> list[str]:
    """What `claude mcp add` registers; an older registration (without -P) reads as stale and
    setup or a repair replaces it (`claude mcp remove`, then `add`)."""
    return module_command(MCP_MARKER, "mcp", "--client", client)


def add_command(claude: str = "claude") -> list[str]:
    """With a moved data folder, `-e MEMEVO_HOME=<folder>` (hook_command.moved_home): Claude Code
    starts MCP servers with its own environment. After the name, not before it: `-e` takes
    every value up to the next option, and would take the name as a second variable."""
    env = [arg for key, value in home_env().items() for arg in ("-e", f"{key}={value}")]
    return [claude, "mcp", "add", "--scope", "user", SERVER_NAME, *env, "--", *server_args()]


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
    args = entry.get("args")
    registered = [entry.get("command"), *(args if isinstance(args, list) else [])]
    # another data folder than this setup's: `claude mcp remove` and `add` again (register)
    same_home = named_home(entry) == moved_home()
    return "ok" if registered == server_args() and same_home else "stale"
