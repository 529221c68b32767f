"""WorkBuddy: ~/.workbuddy/settings.json and mcp.json, the CodeBuddy engine with its own folder
(it never shares CodeBuddy's; see codebuddy.py), SessionStart / UserPromptSubmit / Stop.
Nothing of its files differs from the usual shape: it is registered from its table row."""

from __future__ import annotations

from .from_table import client

CLIENT = client("workbuddy")
