"""Cursor: ~/.cursor/hooks.json (`version` 1, handlers listed under each event), sessionStart /
beforeSubmitPrompt / beforeShellExecution / beforeMCPExecution / stop, and ~/.cursor/mcp.json.

On Windows Cursor runs each hook inside PowerShell, so its command starts with the call
operator. Cursor also reads ~/.claude/skills (that literal folder): when our copy is there,
Cursor must not get a second one in ~/.cursor/skills."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ...hooks import client_table
from .. import messages as m
from .. import skills, state
from ..hook_command import powershell_command
from .base import Client, ClientResult, home, tilde

# The client whose skill folder Cursor also reads (~/.claude/skills, always that literal path).
SKILLS_OF = "claude"

# What this client's steps report beyond the shared ones (installer/messages.py); desktop/messages.py
# words the first through tr(), the other is uninstall's, said on a terminal only.
SKILL_DROPPED = "cursor.skill-dropped"
SKILL_OWN_AGAIN = "cursor.skill-own-again"
m.define(
    {
        SKILL_DROPPED: "skill: removed Cursor's own copy (Cursor reads ~/.claude/skills)",
        SKILL_OWN_AGAIN: "Cursor: skill: {path}/ (it read Claude Code's copy)",
    }
)


ROW = client_table.CLIENTS["cursor"]


class Cursor(Client):
    name = ROW.name
    display = ROW.display
    events = ROW.events  # hooks/client_table.py: the events, our deadlines and the timeouts
    timeouts = ROW.registered
    hooks_file_name = "hooks.json"
    flat_hooks = True

    def config_dir(self) -> Path:
        return home() / ".cursor"

    def hook_command(self, event: str, platform: str | None = None) -> str:
        if (platform or sys.platform) == "win32":
            return powershell_command(self.name, event)
        return super().hook_command(event, platform)

    def snippet(self, platform: str | None = None) -> dict[str, Any]:
        hooks = {
            event: [{"command": self.hook_command(event, platform), "timeout": self.timeouts[kind]}]
            for event, kind in self.events.items()
        }
        return {"version": 1, "hooks": hooks}

    # -- the skill: Claude Code's copy serves Cursor too ------------------------------------------------
    def owns_skill(self) -> bool:
        return not reads_claude_copy()

    def skill_shared_note(self) -> str:
        return "Cursor reads ~/.claude/skills"

    def skill_placed_by(self, other: Client, result: ClientResult) -> None:
        if other.name == SKILLS_OF and reads_claude_copy() and skills.remove(self.files().skills_dir):
            result.lines.append(m.Message(SKILL_DROPPED))

    def after_unregistered(self, other: Client, lines: list[str]) -> None:
        """`uninstall --only claude` took the copy Cursor was reading: give Cursor its own."""
        if other.name != SKILLS_OF:
            return
        where = self.files()
        if where.installed and state.client(self.name).get("registered") and not reads_claude_copy():
            try:
                if skills.install(where.skills_dir):
                    lines.append(m.Message(SKILL_OWN_AGAIN, path=tilde(where.skills_dir)))
            except (skills.SkillNotOurs, OSError) as exc:
                lines.append(f"Cursor: {exc}")


CLIENT = Cursor()


def reads_claude_copy() -> bool:
    return (home() / ".claude" / "skills" / skills.SKILL_NAME / skills.MARKER).exists()
