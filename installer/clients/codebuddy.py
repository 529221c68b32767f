"""CodeBuddy (IDE and CLI): ~/.codebuddy/settings.json (CODEBUDDY_CONFIG_DIR moves it, except
onto WorkBuddy's folder), SessionStart / UserPromptSubmit / PostToolUse / Stop, and two readers of
MCP files. An earlier PreToolUse registration of ours (its context never reached the CLI's
model) is stale: setup and the tray's repair take it away.

Only the last hook's `additionalContext` per event reaches the CLI's model (the hooks' answers are
merged by object spread, in config order): our SessionStart and UserPromptSubmit hooks are placed
after everyone else's, a registration with another tool's hook after ours is stale (the tray's
watcher puts ours back last), and setup and repair say which other hooks share those events, whose
context is then dropped.

The IDE reads mcp.json; the CLI reads the first existing of .mcp.json, mcp.json and
~/.codebuddy.json. mcp.json always gets our entry (the IDE), and so does whichever of the
other two the CLI would read first, so both find it.

The legacy layout: only ~/.codebuddy.json holds the CLI's user MCP servers. Once mcp.json
exists the CLI reads it first and stops reading ~/.codebuddy.json (first existing wins, no
merging) — the user's servers would vanish from the CLI. So when setup creates mcp.json in
that situation it starts from a copy of the legacy file's servers, and uninstall deletes
mcp.json again when all that is left in it is that copy, giving the CLI its old view back."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from ...hooks import client_table
from .. import entries, jsonfile, state
from .base import Client, ClientFiles, ClientResult, home, override, tilde

STATE_KEY = "codebuddy_seeded"
LAST_WINS = ("SessionStart", "UserPromptSubmit")  # only the last hook's context reaches the model


ROW = client_table.CLIENTS["codebuddy"]


class CodeBuddy(Client):
    name = ROW.name
    display = ROW.display
    events = ROW.events  # hooks/client_table.py: the events, our deadlines and the timeouts
    timeouts = ROW.registered
    # The tools rules are about: the CLI's (Claude Code's names) and the IDE's. CodeBuddy tests
    # a matcher as a regular expression against the tool name, anywhere in it: anchored, so
    # NotebookWrite, DeferExecuteTool and mcp__… tools (whose hooks fire twice) are not among them.
    matchers: ClassVar[dict[str, str]] = {
        "PostToolUse": "^(Bash|Edit|MultiEdit|Write|execute_command|write_to_file|replace_in_file)$"
    }
    notes: ClassVar[tuple[str, ...]] = (
        "The CodeBuddy CLI asks you to review changed hooks in its /hooks panel before they apply.",
    )

    def set_hooks(self, data: dict[str, Any], platform: str | None = None) -> bool:
        changed = super().set_hooks(data, platform)
        return place_last(data, LAST_WINS) or changed

    def hooks_status(self, data: dict[str, Any], platform: str | None = None) -> str:
        status = super().hooks_status(data, platform)
        if status == "ok" and (ours_elsewhere(data, self.events) or not_last(data, LAST_WINS)):
            return "stale"
        return status

    def register(
        self, writer: jsonfile.Writer, permission: bool | None = None, peers: Sequence[Client] = ()
    ) -> ClientResult:
        result = super().register(writer, permission, peers)
        if result.changed:  # said when ours is placed (setup, a repair), not on every check
            with contextlib.suppress(jsonfile.ClientFileError):  # already among its problems
                result.lines += shared_events_warnings(jsonfile.load(self.files().hooks_file))
        return result

    def config_dir(self) -> Path:
        """CODEBUDDY_CONFIG_DIR, except when it points at WorkBuddy's folder: WorkBuddy sets it for
        the CLI it launches, and CodeBuddy and WorkBuddy must never share one file."""
        chosen = override("CODEBUDDY_CONFIG_DIR", home() / ".codebuddy")
        if _same_dir(chosen, home() / ".workbuddy"):
            return home() / ".codebuddy"
        return chosen

    def mcp_files(self, config_dir: Path) -> tuple[Path, ...]:
        primary = config_dir / "mcp.json"
        cli_first = config_dir / ".mcp.json"
        legacy = legacy_file()
        if cli_first.exists():
            return (primary, cli_first)
        if not primary.exists() and legacy.exists() and config_dir == home() / ".codebuddy":
            return (primary, legacy)
        return (primary,)

    def write_mcp_entry(self, mcp_file: Path, result: ClientResult, data: dict[str, Any]) -> bool:
        copied = seed_new_mcp_file(mcp_file, data)
        if copied:
            result.lines.append(
                f"copied {', '.join(copied)} from ~/.codebuddy.json into {tilde(mcp_file)}: the CodeBuddy CLI reads "
                "that file first once it exists"
            )
        return entries.set_mcp(self.name, data) or bool(copied)

    def mcp_files_to_clean(self, where: ClientFiles) -> list[Path]:
        base = where.config_dir
        return [base / "mcp.json", base / ".mcp.json", legacy_file()]

    def after_mcp_removed(self, mcp_file: Path, result: ClientResult) -> None:
        if remove_seeded_file(mcp_file):
            result.lines.append(f"removed {tilde(mcp_file)} (it held only the copy of ~/.codebuddy.json)")


CLIENT = CodeBuddy()


def ours_elsewhere(data: dict[str, Any], events: dict[str, str]) -> list[str]:
    """The events other than `events` that still hold a hook of ours (an older registration)."""
    hooks = data.get("hooks")
    found = []
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        if event in events or not isinstance(groups, list):
            continue
        handlers = [h for g in groups if isinstance(g, dict) for h in (g.get("hooks") or [])]
        if any(isinstance(h, dict) and entries.is_ours(h.get("command")) for h in handlers):
            found.append(event)
    return found


def _ours(handler: Any) -> bool:
    return isinstance(handler, dict) and entries.is_ours(handler.get("command"))


def _groups(data: dict[str, Any], event: str) -> list[Any]:
    hooks = data.get("hooks")
    groups = hooks.get(event) if isinstance(hooks, dict) else None
    return groups if isinstance(groups, list) else []


def _handlers(groups: list[Any]) -> list[Any]:
    return [h for g in groups if isinstance(g, dict) and isinstance(g.get("hooks"), list) for h in g["hooks"]]


def not_last(data: dict[str, Any], events: Sequence[str]) -> list[str]:
    """The events where a hook of another tool comes after ours (in config order)."""
    late = []
    for event in events:
        handlers = _handlers(_groups(data, event))
        mine = [i for i, h in enumerate(handlers) if _ours(h)]
        if mine and mine[-1] != len(handlers) - 1:
            late.append(event)
    return late


def place_last(data: dict[str, Any], events: Sequence[str]) -> bool:
    """Our hook after everyone else's in each event: a group holding only ours moves to the end;
    from a group shared with another tool's hooks ours moves into its own group at the end (with
    that group's matcher). True when anything moved."""
    moved = False
    for event in not_last(data, events):
        groups = _groups(data, event)
        for index, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            mine = [h for h in group["hooks"] if _ours(h)]
            if not mine:
                continue
            if len(mine) == len(group["hooks"]):
                groups.append(groups.pop(index))
            else:
                group["hooks"] = [h for h in group["hooks"] if not _ours(h)]
                groups.append({"matcher": group.get("matcher", ""), "hooks": mine})
            moved = True
            break
    return moved


def shared_events_warnings(data: dict[str, Any]) -> list[str]:
    """What to tell the user about other tools' hooks on the events where only one context survives."""
    lines = []
    for event in LAST_WINS:
        others = [
            str(h.get("command"))[:80]
            for h in _handlers(_groups(data, event))
            if isinstance(h, dict) and not _ours(h)
        ]
        if others:
            lines.append(
                f"warning: CodeBuddy gives its model only the last {event} hook's context; memevo's is placed "
                f"last, so the context of {', '.join(others)} is dropped (a hook registered after memevo's, "
                "also in a project's .codebuddy/settings.json, would drop memevo's instead)"
            )
    return lines


def _same_dir(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a == b


# -- the legacy layout ---------------------------------------------------------------------------------
def legacy_file() -> Path:
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
    ours = (entries.SERVER_NAME, *entries.LEGACY_SERVER_NAMES)
    copied = {k: v for k, v in servers.items() if k not in ours}
    data.setdefault("mcpServers", {}).update(copied)
    state.update_client(CLIENT.name, **{STATE_KEY: {"file": str(mcp_file), "servers": sorted(copied)}})
    return sorted(copied)


def remove_seeded_file(mcp_file: Path) -> bool:
    """After our entry left mcp.json: delete it if it holds nothing but the copy we made."""
    seeded = state.client(CLIENT.name).get(STATE_KEY)
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
    state.update_client(CLIENT.name, **{STATE_KEY: None})
    return True
