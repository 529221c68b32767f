"""The exact hook registration for each client: absolute interpreter, absolute hook path.

Used by `memevo hooks print-config CLIENT` (for people who install by hand, and tests) and
by the installer. Our entries are recognised by the hook file name, memevo_hook.py.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

HOOK_FILE = "memevo_hook.py"
CLIENT_EVENTS = {
    "claude": {
        "SessionStart": "session_start",
        "UserPromptSubmit": "prompt",
        "PreToolUse": "action",
        "Stop": "stop",
    },
    "cursor": {
        "sessionStart": "session_start",
        "beforeSubmitPrompt": "prompt",
        "beforeShellExecution": "action",
        "beforeMCPExecution": "action",
        "stop": "stop",
    },
    "codebuddy": {"SessionStart": "session_start", "UserPromptSubmit": "prompt", "Stop": "stop"},
    "workbuddy": {"SessionStart": "session_start", "UserPromptSubmit": "prompt", "Stop": "stop"},
}
# Seconds. Session start 10 and stop 20 as the Node tool; prompt 5 on Cursor, 10 elsewhere.
# Claude Code's own default for a prompt hook is 30 s; 10 s bounds a hung service while our
# hook gives up on the service after 6 s and always answers well inside it. WorkBuddy blocks
# the user's prompt when a hook times out ("operation blocked by hook"): 30 s for every event,
# as others settled on, while our hook gives up on the service after 5 s (18 s at Stop).
# A tool call (PreToolUse, beforeShellExecution, beforeMCPExecution) is registered at 5 s; our
# hook gives up on the service after 1.5 s and the call runs as if we were not there.
TIMEOUTS = {
    "claude": {"session_start": 10, "prompt": 10, "action": 5, "stop": 20},
    "cursor": {"session_start": 10, "prompt": 5, "action": 5, "stop": 20},
    "codebuddy": {"session_start": 10, "prompt": 10, "stop": 20},
    "workbuddy": {"session_start": 30, "prompt": 30, "stop": 30},
}


# Claude Code's PreToolUse matches tool names: the tools whose calls rules are about.
MATCHERS = {("claude", "PreToolUse"): "Bash|Edit|MultiEdit|Write"}


def interpreter() -> str:
    """The real interpreter, never a version-manager shim (a pyenv shim alone costs ~115 ms)."""
    path = sys.executable
    if any(part in path for part in ("/shims/", "\\shims\\")):
        path = os.path.realpath(path)
    return path


def hook_script() -> Path:
    from .. import hooks

    return Path(hooks.__file__).resolve().parent / HOOK_FILE


def hook_runner() -> str:
    """What runs a hook: the real interpreter, or in the packaged program its small
    `memevo-hook` executable (about 55 ms faster than the full program)."""
    if getattr(sys, "frozen", False):
        return str(Path(sys.executable).with_name("memevo-hook.exe" if os.name == "nt" else "memevo-hook"))
    return interpreter()


def command(client: str, event: str, platform: str | None = None) -> str:
    """The whole command line goes in `command`: the CodeBuddy IDE and WorkBuddy drop `args`.

    Cursor on Windows runs each hook inside PowerShell (`… & { $input | <command> }`), where a
    line that starts with a quoted path is a string followed by stray words — a parse error, and
    no hook runs. There the call operator `&` starts it. `platform` is sys.platform's value."""
    if client == "cursor" and (platform or sys.platform) == "win32":
        return f"& {_powershell_quoted(hook_runner())} -I -S {_powershell_quoted(hook_script())} {client} {event}"
    return f'"{hook_runner()}" -I -S "{hook_script()}" {client} {event}'


def _powershell_quoted(path: str | Path) -> str:
    """A double-quoted PowerShell string: its escape character ` and $ (a variable) escaped."""
    return '"' + str(path).replace("`", "``").replace("$", "`$") + '"'


def snippet(client: str, platform: str | None = None) -> dict[str, Any]:
    events = CLIENT_EVENTS[client]
    timeouts = TIMEOUTS[client]
    if client == "cursor":
        hooks = {
            name: [{"command": command(client, name, platform), "timeout": timeouts[kind]}]
            for name, kind in events.items()
        }
        return {"version": 1, "hooks": hooks}
    groups = {
        name: [
            {
                "matcher": MATCHERS.get((client, name), ""),
                "hooks": [
                    {"type": "command", "command": command(client, name, platform), "timeout": timeouts[kind]}
                ],
            }
        ]
        for name, kind in events.items()
    }
    return {"hooks": groups}
