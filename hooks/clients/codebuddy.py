"""CodeBuddy (IDE and CLI): ~/.codebuddy/settings.json. The IDE sends `user_prompt`, the CLI `prompt`."""

from clients.base import Adapter


class CodeBuddy(Adapter):
    name = "codebuddy"
    flavor = "codebuddy"  # also rules out CodeBuddy's own memory-writing tools

    def prompt_text(self, payload):
        for key in ("user_prompt", "prompt"):
            if isinstance(payload.get(key), str) and payload[key].strip():
                return payload[key]
        return ""


ADAPTER = CodeBuddy()
