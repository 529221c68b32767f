"""CodeBuddy (IDE and CLI): ~/.codebuddy/settings.json. The IDE sends `user_prompt`, the CLI `prompt`.

A tool call's rules come after it, in PostToolUse: the CLI ignores PreToolUse's `additionalContext`
(only a permission decision acts there) and appends PostToolUse's to the tool's result. Claude
Code's shape (the IDE's tools are execute_command, write_to_file, replace_in_file): only
`additionalContext`, and nothing at all when no rule applies (the CLI would inject raw stdout). MCP
tools fire tool hooks twice (as DeferExecuteTool and as mcp__…): the registration's matcher names
neither.
"""

from .base import Adapter, _json

# The CLI's continuation after a Stop hook asked for one: UserPromptSubmit fires again with the
# hook's reason behind this prefix. Never the user's words.
STOP_CONTINUATION = "Stop hook:"


class CodeBuddy(Adapter):
    # The CLI turns a prompt hook's systemMessage into a hook message in the conversation that
    # skips the model (client_table: user_message). It fires UserPromptSubmit with
    # `Stop hook: <reason>` when our continuation reaches its model, and drops it unseen in
    # one-shot `-p`: the service counts a question as asked on that echo (and asks again at the
    # next session start when none came) (client_table: echoes_continuation).

    def prompt_text(self, payload):
        for key in ("user_prompt", "prompt"):
            if isinstance(payload.get(key), str) and payload[key].strip():
                return payload[key]
        return ""

    def project_dir(self, payload, environ, here):
        # The CLI's SessionStart carries no cwd; it starts every hook in the project and names
        # it in CODEBUDDY_PROJECT_DIR. The IDE has been seen sending cwd "/".
        for folder in (
            super().project_dir(payload, environ, here),
            environ.get("CODEBUDDY_PROJECT_DIR"),
            here,
        ):
            if isinstance(folder, str) and folder.strip() and folder.strip() not in ("/", "\\"):
                return folder
        return None

    def prompt_kind(self, payload, text):
        kind = super().prompt_kind(payload, text)
        if kind == "user" and text.lstrip().startswith(STOP_CONTINUATION):
            return "other"  # another tool's Stop hook asked for more: its words, not the user's
        return kind

    def echoes(self, payload):
        return self.echoes_continuation and engine(payload) == "cli"

    def render_stop(self, context, payload):
        # The CLI documents `continue: false` with `reason` (v1.16+) and calls `decision: "block"`
        # deprecated (it still honours it, with a warning). The IDE's Stop continuation is known
        # to work with `decision: "block"`, and it passes only `reason` to the model: the whole
        # instruction goes there either way. Unknown which: the form both accept.
        if engine(payload) == "cli":
            return _json({"continue": False, "reason": context})
        return super().render_stop(context, payload)


def engine(payload):
    """'ide', 'cli' or None: payloads carry `client` ("CodeBuddyIDE" / "cli"); the CLI's
    transcript is one JSONL file (the IDE keeps a folder per conversation)."""
    client = payload.get("client")
    client = client.strip().lower() if isinstance(client, str) else ""
    if "ide" in client:
        return "ide"
    transcript = payload.get("transcript_path")
    if client == "cli" or (isinstance(transcript, str) and transcript.endswith(".jsonl")):
        return "cli"
    return None


ADAPTER = CodeBuddy("codebuddy")
