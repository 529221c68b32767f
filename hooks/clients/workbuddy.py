"""WorkBuddy: ~/.workbuddy/settings.json, the CodeBuddy engine with its own folder."""

from clients.codebuddy import CodeBuddy


class WorkBuddy(CodeBuddy):
    name = "workbuddy"
    flavor = "default"


ADAPTER = WorkBuddy()
