"""WorkBuddy: ~/.workbuddy/settings.json and mcp.json, the CodeBuddy engine with its own folder
(it never shares CodeBuddy's; see codebuddy.py), SessionStart / UserPromptSubmit / Stop."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from .base import Client, home


class WorkBuddy(Client):
    name = "workbuddy"
    display = "WorkBuddy"
    events: ClassVar[dict[str, str]] = {
        "SessionStart": "session_start",
        "UserPromptSubmit": "prompt",
        "Stop": "stop",
    }
    # WorkBuddy blocks the user's prompt when a hook times out ("operation blocked by hook"):
    # 30 s for every event, as others settled on, while our hook gives up on the service after
    # 5 s (18 s at Stop).
    timeouts: ClassVar[dict[str, int]] = {"session_start": 30, "prompt": 30, "stop": 30}

    def config_dir(self) -> Path:
        return home() / ".workbuddy"


CLIENT = WorkBuddy()
