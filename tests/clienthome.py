"""A fake HOME where all four clients are installed, as a user who had the Node tool has them:
each client file holds another tool's hooks and MCP servers beside the Node tool's entries, and
Cursor has another tool's skill. conftest's `home` fixture is this in the test's HOME; the
install goldens (tests/golden/install/) are what `memevo setup` makes of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

NODE_HOOK = '"/usr/local/bin/node" "/opt/memory-self-evolution/bin/memory.mjs" hook --agent {client}'
FOREIGN_HOOK = {"type": "command", "command": "/usr/local/bin/other-tool --hook", "timeout": 5}
# Another tool's script whose name merely ends in memory.mjs: never ours to remove.
FOREIGN_MJS = {
    "matcher": "Write",
    "hooks": [{"type": "command", "command": "node /opt/team/team-memory.mjs --save"}],
}


def _claude_style(client: str, event: str) -> dict[str, Any]:
    return {
        "hooks": {
            event: [
                {"matcher": "", "hooks": [FOREIGN_HOOK]},
                {"matcher": "", "hooks": [{"type": "command", "command": NODE_HOOK.format(client=client)}]},
            ]
        },
        "permissions": {"allow": ["Bash(ls:*)"]},
        "theme": "dark",
    }


def _node_after_tool() -> dict[str, Any]:
    """An after-tool hook an older version of the Node tool left behind (blocking mode)."""
    command = '"/usr/local/bin/node" "/opt/memory-self-evolution/tools/after-tool.mjs" --agent claude'
    return {"matcher": "memory_persist", "hooks": [{"type": "command", "command": command}]}


def seed_clients(home: Path) -> None:
    """Four installed clients, each with someone else's entries and the Node tool's."""
    files: dict[str, Any] = {
        ".claude/settings.json": _claude_style("claude", "UserPromptSubmit")
        | {
            "hooks": _claude_style("claude", "UserPromptSubmit")["hooks"]
            | {"PostToolUse": [_node_after_tool(), FOREIGN_MJS]}
        },
        ".cursor/hooks.json": {
            "version": 1,
            "hooks": {
                "beforeSubmitPrompt": [
                    {"command": "/usr/local/bin/other-tool --cursor"},
                    {"command": NODE_HOOK.format(client="cursor"), "timeout": 5},
                ]
            },
        },
        ".cursor/mcp.json": {
            "mcpServers": {
                "other": {"command": "/usr/local/bin/other-mcp", "args": []},
                "dsh-memory": {"command": "node", "args": ["/opt/dsh/mcp.mjs"]},
                "memory-self-evolution": {
                    "command": "node",
                    "args": ["/opt/memory-self-evolution/bin/mcp.mjs"],
                },
            }
        },
        ".codebuddy/settings.json": _claude_style("codebuddy", "Stop"),
        ".codebuddy/.mcp.json": {"mcpServers": {"other": {"command": "/usr/local/bin/other-mcp"}}},
        ".workbuddy/settings.json": {"language": "zh-CN"},
    }
    for relative, data in files.items():
        path = home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=4), encoding="utf-8")
    other_skill = home / ".cursor" / "skills" / "other-skill" / "SKILL.md"
    other_skill.parent.mkdir(parents=True)
    other_skill.write_text("---\nname: other-skill\ndescription: not ours\n---\n", encoding="utf-8")
