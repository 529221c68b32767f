"""Each client memevo serves, defined once: its hook events and what each is, how long our hook
waits for the service at each (our deadline), the timeout we register in the client, and its
quirks. Read by the relay hook, the adapters (hooks/clients/), the installer
(installer/clients/), learning and the desktop.

Adding a client: a row here, and an adapter module in hooks/clients/ when its payload or output
differs from the shared default (hooks/clients/base.py); an installer module in
installer/clients/ only when its files differ from the usual `~/<folder>/settings.json` and
`mcp.json`. docs/architecture.md walks through it.

Standard library only and cheap to import (the relay hook reads it on every prompt): plain
classes, no dataclasses or typing. Typed, because core reads it.
"""

# What a hook event is to memevo: the session starting, the user's prompt, a tool call about to
# run (or just run), the end of the model's turn.
KINDS = ("session_start", "prompt", "action", "stop")


class ClientDef:
    """One client. The deadlines (seconds our hook waits for the service) sit well inside the
    registered timeouts (seconds the client waits for our hook), so the hook always answers."""

    def __init__(
        self,
        name: str,
        display: str,
        folder: str,
        events: "dict[str, str]",
        deadlines: "dict[str, float]",
        registered: "dict[str, int]",
        *,
        flavor: str = "default",
        action_event: str = "PreToolUse",
        max_chars: int = 10_000,
        user_message: bool = False,
        reads_output_at_exit: bool = False,
        environ: "tuple[str, ...]" = (),
        ask_tool: str = "",
        mutes: "str | None" = None,
        known_by: "str | None" = None,
        stop_notice_waits: bool = False,
        echoes_continuation: bool = False,
        chat_env: "str | None" = None,
    ) -> None:
        self.name = name
        self.display = display  # the name people know it by, in every message
        self.folder = folder  # its folder under the user's home; existing means installed
        self.events = events  # hook event -> kind, in the order they are registered
        self.deadlines = deadlines  # kind -> seconds our hook waits for the service
        self.registered = registered  # kind -> seconds registered as the hook's timeout
        # The service's wording of what it injects: "claude" leaves Claude Code's own memory
        # alone; "codebuddy" also rules out the client's memory-writing tools; "default" is the
        # seed's.
        self.flavor = flavor
        # The event an "action" answers: before the call runs, or after it where the client
        # ignores context given before (it is appended to the tool's result there).
        self.action_event = action_event
        self.max_chars = max_chars  # the longest injection the client shows whole
        # The client shows a prompt hook's `systemMessage` to the user, not to the model: memevo's
        # own word on what it did with the user's answer to a memory question goes there.
        self.user_message = user_message
        # The client takes a hook's output at its exit, not when the pipe closes: the hook waits
        # until its output has been read before it exits (hooks/relay.py).
        self.reads_output_at_exit = reads_output_at_exit
        self.environ = environ  # environment variables its adapter reads, relayed to the service
        # The client's own question tool: named in the instruction as the one not to use (its
        # answer goes back to the model only, never through a hook).
        self.ask_tool = ask_tool
        # Another client whose hooks this one also runs (from that client's settings): that
        # client's adapter stays silent where `known_by` (an environment variable this client
        # sets for its hooks) says it runs under this one, so one prompt is never injected twice.
        self.mutes = mutes
        self.known_by = known_by
        # A Stop continuation is shown to the user as their own message: a short notice there;
        # the instruction waits in a file the next prompt hook hands to the model.
        self.stop_notice_waits = stop_notice_waits
        # The client sends a Stop continuation that reached its model back as the next prompt
        # (so the service can tell a question asked from one dropped).
        self.echoes_continuation = echoes_continuation
        # The variable naming, in its MCP server's environment, the chat it started the server
        # for (a proposal is then asked in that chat and no other).
        self.chat_env = chat_env


CLIENTS: "dict[str, ClientDef]" = {
    "claude": ClientDef(
        "claude",
        "Claude Code",
        ".claude",
        {
            "SessionStart": "session_start",
            "UserPromptSubmit": "prompt",
            "PreToolUse": "action",
            "Stop": "stop",
        },
        {"session_start": 6.0, "prompt": 6.0, "action": 1.5, "stop": 18.0},
        # session start 10 and stop 20 as the Node tool; a prompt 10 bounds a hung service
        # (Claude Code's own default is 30); a tool call 5, then it runs as if we were not there
        {"session_start": 10, "prompt": 10, "action": 5, "stop": 20},
        flavor="claude",
        user_message=True,
        environ=("CURSOR_VERSION",),
        ask_tool="AskUserQuestion",
        chat_env="CLAUDE_CODE_SESSION_ID",
    ),
    "cursor": ClientDef(
        "cursor",
        "Cursor",
        ".cursor",
        {
            "sessionStart": "session_start",
            "beforeSubmitPrompt": "prompt",
            "beforeShellExecution": "action",
            "beforeMCPExecution": "action",
            "stop": "stop",
        },
        {"session_start": 6.0, "prompt": 3.5, "action": 1.5, "stop": 18.0},
        {"session_start": 10, "prompt": 5, "action": 5, "stop": 20},
        environ=("CURSOR_TRANSCRIPT_PATH",),
        ask_tool="AskQuestion",
        mutes="claude",
        known_by="CURSOR_VERSION",
        stop_notice_waits=True,
    ),
    "codebuddy": ClientDef(
        "codebuddy",
        "CodeBuddy",
        ".codebuddy",
        {
            "SessionStart": "session_start",
            "UserPromptSubmit": "prompt",
            "PostToolUse": "action",
            "Stop": "stop",
        },
        {"session_start": 6.0, "prompt": 6.0, "action": 1.5, "stop": 18.0},
        # a Stop hook that hits its timeout counts as a block in the CLI, which then loops
        {"session_start": 10, "prompt": 10, "action": 5, "stop": 30},
        flavor="codebuddy",
        action_event="PostToolUse",  # the CLI ignores PreToolUse's context
        user_message=True,
        reads_output_at_exit=True,
        environ=("CODEBUDDY_PROJECT_DIR",),
        ask_tool="ask_followup_question 或 AskUserQuestion",
        echoes_continuation=True,
    ),
    "workbuddy": ClientDef(
        "workbuddy",
        "WorkBuddy",
        ".workbuddy",
        # only the events it is known to fire (a hook that times out blocks the user there)
        {"SessionStart": "session_start", "UserPromptSubmit": "prompt", "Stop": "stop"},
        {"session_start": 5.0, "prompt": 5.0, "stop": 18.0},
        {"session_start": 30, "prompt": 30, "stop": 30},
        action_event="PostToolUse",
        user_message=True,
        reads_output_at_exit=True,  # built on CodeBuddy's agent
        environ=("CODEBUDDY_PROJECT_DIR",),
        ask_tool="ask_followup_question",
    ),
}


def get(name: str) -> "ClientDef | None":
    return CLIENTS.get(name)


def route(client: str, event: str) -> "tuple[str, float] | None":
    """(kind, deadline) of a client's hook event; None: not one of its events."""
    row = CLIENTS.get(client)
    kind = row.events.get(event) if row is not None else None
    if row is None or kind is None:
        return None
    return kind, row.deadlines[kind]


def muted_by(client: str) -> "tuple[str, ...]":
    """The environment variables that say this client's hooks run under another client that
    answers them itself."""
    return tuple(row.known_by for row in CLIENTS.values() if row.mutes == client and row.known_by)


def flavors() -> "tuple[str, ...]":
    """Every wording the service keeps texts in, "default" first."""
    return tuple(dict.fromkeys(["default", *(row.flavor for row in CLIENTS.values())]))
