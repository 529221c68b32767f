"""Register, check and remove memevo in one client: hooks, MCP server, skill, permission.

Setup, `setup --repair`, `uninstall` and the tray's watcher all come through here, so a
repair writes exactly what setup writes. Each step reports what it did as a line of text;
a client file that is not valid JSON stops that client only, untouched, with the reason."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import claude_mcp, codebuddy_legacy, entries, jsonfile, skills
from .clients import (
    CLIENTS,
    ClientFiles,
    cursor_reads_claude_copy,
    files,
    home,
    skill_owner,
    tilde,
)


@dataclass
class ClientResult:
    client: str
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    changed: bool = False
    hooks_ok: bool = False  # our hooks are in place: the client counts as registered
    manual_command: str | None = None  # Claude Code without a claude binary: run this by hand

    @property
    def ok(self) -> bool:
        return not self.problems


def register_client(client: str, writer: jsonfile.Writer, permission: bool | None = None) -> ClientResult:
    """permission (Claude Code only): True adds the memory_resolve rule, False removes it, None keeps it."""
    where = files(client)
    result = ClientResult(client)
    _edit(result, writer, where.hooks_file, lambda data: entries.set_hooks(client, data), "hooks")
    result.hooks_ok = not result.problems
    if client == "claude" and permission is not None:
        change = entries.set_permission if permission else entries.remove_permission
        _edit(result, writer, where.hooks_file, change, "the memory_resolve permission")
    if client == "claude":
        _register_claude_mcp(result)
    for mcp_file in where.mcp_files:
        _edit(
            result,
            writer,
            mcp_file,
            lambda data, f=mcp_file: _set_mcp(client, f, data, result),
            "the MCP server",
        )
    _place_skill(result, where)
    return result


def _set_mcp(client: str, mcp_file, data: dict, result: ClientResult) -> bool:  # type: ignore[no-untyped-def,type-arg]
    copied = codebuddy_legacy.seed_new_mcp_file(mcp_file, data) if client == "codebuddy" else []
    if copied:
        result.lines.append(
            f"copied {', '.join(copied)} from ~/.codebuddy.json into {tilde(mcp_file)}: the CodeBuddy CLI reads "
            "that file first once it exists"
        )
    return entries.set_mcp(client, data) or bool(copied)


def unregister_client(client: str, writer: jsonfile.Writer, use_cli: bool = True) -> ClientResult:
    where = files(client)
    result = ClientResult(client)
    if where.hooks_file.exists():
        _edit(result, writer, where.hooks_file, entries.remove_hooks, "hooks")
        if client == "claude":
            _edit(
                result, writer, where.hooks_file, entries.remove_permission, "the memory_resolve permission"
            )
    if client == "claude" and use_cli:
        _unregister_claude_mcp(result)
    for mcp_file in _all_mcp_files(client, where):
        if mcp_file.exists():
            _edit(result, writer, mcp_file, entries.remove_mcp, "the MCP server")
        if client == "codebuddy" and codebuddy_legacy.remove_seeded_file(mcp_file):
            result.lines.append(f"removed {tilde(mcp_file)} (it held only the copy of ~/.codebuddy.json)")
    if skills.remove(where.skills_dir):
        result.lines.append(f"removed the skill from {tilde(where.skills_dir)}/")
        result.changed = True
    return result


def client_status(client: str) -> dict[str, str]:
    """Per part: 'ok', 'missing', 'stale', or 'broken: reason'."""
    where = files(client)
    report: dict[str, str] = {}
    try:
        report["hooks"] = entries.hooks_status(client, jsonfile.load(where.hooks_file))
    except jsonfile.ClientFileError as exc:
        report["hooks"] = f"broken: {exc}"
    if client == "claude":
        report["mcp"] = claude_mcp.status()
    for mcp_file in where.mcp_files:
        try:
            report[f"mcp:{mcp_file.name}"] = entries.mcp_status(client, jsonfile.load(mcp_file))
        except jsonfile.ClientFileError as exc:
            report[f"mcp:{mcp_file.name}"] = f"broken: {exc}"
    if skill_owner(client):
        report["skill"] = skills.status(where.skills_dir)
    return report


def needs_repair(report: dict[str, str]) -> bool:
    return any(value in ("missing", "stale") for value in report.values())


# -- steps ---------------------------------------------------------------------------------------------
def _edit(result: ClientResult, writer: jsonfile.Writer, path, change, what: str) -> None:  # type: ignore[no-untyped-def]
    try:
        data = jsonfile.load(path)
        if change(data) and writer.save(path, data):
            result.lines.append(f"{what}: {tilde(path)}")
            result.changed = True
    except jsonfile.ClientFileError as exc:
        result.problems.append(str(exc))
    except (ValueError, TypeError, AttributeError) as exc:  # a file of an unexpected shape
        result.problems.append(f"{path}: {exc}; left untouched")


def _register_claude_mcp(result: ClientResult) -> None:
    if claude_mcp.status() == "ok":
        return
    claude = claude_mcp.find_claude()
    if claude is None:
        result.manual_command = claude_mcp.printable(claude_mcp.add_command())
        result.lines.append(
            "MCP server: `claude` was not found (PATH, the desktop app, MEMEVO_CLAUDE_BIN); run:"
        )
        result.lines.append(f"  {result.manual_command}")
        return
    reason = claude_mcp.register(claude)
    if reason:
        result.problems.append(f"claude mcp add failed: {reason}")
        result.manual_command = claude_mcp.printable(claude_mcp.add_command(claude))
    else:
        result.lines.append("MCP server: claude mcp add --scope user (in ~/.claude.json)")
        result.changed = True


def _unregister_claude_mcp(result: ClientResult) -> None:
    if claude_mcp.registered_entry() is None:
        return
    claude = claude_mcp.find_claude()
    if claude is None:
        result.manual_command = claude_mcp.printable(claude_mcp.remove_command())
        result.lines.append(f"MCP server: `claude` was not found; run: {result.manual_command}")
        return
    reason = claude_mcp.unregister(claude)
    if reason:
        result.problems.append(f"claude mcp remove failed: {reason}")
    else:
        result.lines.append("MCP server: claude mcp remove")
        result.changed = True


def _place_skill(result: ClientResult, where: ClientFiles) -> None:
    try:
        if skill_owner(where.name):
            if skills.install(where.skills_dir):
                result.lines.append(f"skill: {tilde(where.skills_dir)}/")
                result.changed = True
        elif skills.remove(where.skills_dir):  # Cursor reads Claude Code's copy: ours here would be a second
            result.lines.append(
                f"skill: removed the copy in {tilde(where.skills_dir)} (Cursor reads ~/.claude/skills)"
            )
            result.changed = True
        if (
            where.name == "claude"
            and cursor_reads_claude_copy()
            and skills.remove(files("cursor").skills_dir)
        ):
            result.lines.append("skill: removed Cursor's own copy (Cursor reads ~/.claude/skills)")
    except (skills.SkillNotOurs, OSError) as exc:
        result.problems.append(str(exc))


def place_cursor_skill_after_claude_left(lines: list[str]) -> None:
    """`uninstall --only claude` took the copy Cursor was reading: give Cursor its own."""
    from . import state

    cursor = files("cursor")
    if cursor.installed and state.client("cursor").get("registered") and not cursor_reads_claude_copy():
        try:
            if skills.install(cursor.skills_dir):
                lines.append(f"Cursor: skill: {tilde(cursor.skills_dir)}/ (it read Claude Code's copy)")
        except (skills.SkillNotOurs, OSError) as exc:
            lines.append(f"Cursor: {exc}")


def _all_mcp_files(client: str, where: ClientFiles) -> list:  # type: ignore[type-arg]
    if client != "codebuddy":
        return list(where.mcp_files)
    base = where.config_dir
    return [base / "mcp.json", base / ".mcp.json", home() / ".codebuddy.json"]


__all__ = ["CLIENTS", "ClientResult", "client_status", "needs_repair", "register_client", "unregister_client"]
