"""What a client adapter decides, with the defaults most clients share."""

import json
import re
import sys

try:  # the service runs the adapters too (the relay hook): memevo.hooks.hookio there
    from .. import client_table, hookio
except ImportError:  # the hook, run as a script: its folder is on sys.path, `clients` is top-level
    import client_table
    import hookio

CONFIRM_MARKER = "MEMORY_CONFIRM_V1"
PLUGIN_NOTICE = "memory-self-evolution 捕捉到了新的记忆"
_TAG_START = re.compile(r"^\s*<[A-Za-z][\w-]*[\s>/]")
_SLASH_COMMAND = re.compile(r"^\s*/[A-Za-z][\w:-]*(\s|$)")


class Adapter:
    """A client's payload read and its output written. What the client is — its events, our
    deadlines, its wording, its quirks — is its row in client_table.py; a subclass changes
    only the reading or writing that differs for it."""

    def __init__(self, name):
        row = client_table.CLIENTS[name]
        self.name = name
        self.flavor = row.flavor
        self.events = row.events
        self.timeouts = row.deadlines  # Stop may wait sideWaitMs for the side judge within its own
        self.max_chars = row.max_chars
        self.action_event = row.action_event
        self.user_message = row.user_message
        self.echoes_continuation = row.echoes_continuation
        self.known_by = row.known_by
        self.muted_under = client_table.muted_by(name)

    # -- reading the payload --------------------------------------------------------------------
    def event_kind(self, event, payload):
        return self.events.get(event) or self.events.get(str(payload.get("hook_event_name") or ""))

    def session_key(self, payload):
        return _text(payload.get("session_id"))

    def prompt_id(self, payload):
        return None

    def project_dir(self, payload, environ, here):
        """The session's folder: Claude Code and CodeBuddy send cwd, Cursor its workspace roots.
        environ and here (the hook's own folder): for a client whose payload may lack it."""
        cwd = payload.get("cwd")
        roots = payload.get("workspace_roots")
        if not cwd and isinstance(roots, list) and roots:
            cwd = roots[0]
        return cwd if isinstance(cwd, str) and cwd else None

    def prompt_text(self, payload):
        return payload.get("prompt") if isinstance(payload.get("prompt"), str) else ""

    def action_call(self, payload):
        """(tool name, tool input) of a tool call about to run, bounded; None: not one."""
        tool = payload.get("tool_name")
        if not isinstance(tool, str) or not tool:
            return None
        return tool, bounded(payload.get("tool_input"))

    def silent_reason(self, payload, environ):
        """A reason for this hook to do nothing at all (another registration handles it): a
        client that runs this one's hooks too, and answers them itself (client_table `mutes`)."""
        for name in self.muted_under:
            if environ.get(name):
                return f"running under the client that sets {name}"
        return None

    def prompt_kind(self, payload, text):
        """user: the user's own words; other: not theirs (no recall, no judging);
        plugin: this plugin's own continuation or notice (nothing is injected), wherever it
        stands in the prompt: a client may put its own words before it (CodeBuddy's
        `Stop hook: `), and a notice judged as the user's would be learned again."""
        if CONFIRM_MARKER in text or PLUGIN_NOTICE in text:
            return "plugin"
        if payload.get("agent_id") or "<question_answer>" in text:
            return "other"
        if (
            _SLASH_COMMAND.match(text)
            or _TAG_START.match(text)
            or text.lstrip().startswith("[Request interrupted")
        ):
            return "other"
        return "user"

    def stop_flags(self, payload):
        """This Stop ends a continuation we caused, or a subagent: no further continuation."""
        return {
            "continuation": bool(payload.get("stop_hook_active")),
            "subagent": bool(payload.get("agent_id")),
        }

    def echoes(self, payload):
        """The client sends a Stop continuation that reached its model back as the next prompt
        (so the service can tell a question asked from one dropped)."""
        return False

    def previous_answer(self, payload, environ):
        """The assistant's message that ended this turn (sideContext): the Stop payload's
        `last_assistant_message` (Claude Code; the CodeBuddy engine when it has one), else the
        end of the JSONL transcript at `transcript_path`. Bounded; the service redacts it."""
        text = payload.get("last_assistant_message")
        if not isinstance(text, str) or not text.strip():
            text = hookio.answer_in_transcript(payload.get("transcript_path"))
        return hookio.bounded_answer(text)

    # -- writing the answer --------------------------------------------------------------------------
    def render(self, kind, result, payload=None):
        context = result.get("context")
        if not context:
            return ""  # CodeBuddy's CLI would inject a literal "{}"; nothing is safest everywhere
        if kind == "stop":
            return self.render_stop(context, payload or {})
        event = {"session_start": "SessionStart", "prompt": "UserPromptSubmit", "action": self.action_event}[
            kind
        ]
        body = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
        if kind == "prompt" and self.user_message and result.get("user_notice"):
            body["systemMessage"] = result["user_notice"]
        return _json(body)

    def render_stop(self, context, payload):
        """One more turn for the model, with all of the instruction in `reason`."""
        return _json({"decision": "block", "reason": context})


ACTION_STRING = 4000  # characters of each string of a tool call's input sent to the service


def bounded(value, depth=0):
    """A tool call's input cut down: strings to 4,000 characters, 30 keys, 20 items, 4 levels
    (a Write of a 5 MB file sends only its start)."""
    if isinstance(value, str):
        return value[:ACTION_STRING]
    if depth >= 4:
        return None
    if isinstance(value, dict):
        return {str(k): bounded(v, depth + 1) for k, v in list(value.items())[:30]}
    if isinstance(value, list):
        return [bounded(v, depth + 1) for v in value[:20]]
    return value if isinstance(value, (int, float, bool)) or value is None else str(value)[:ACTION_STRING]


def _text(value):
    return value if isinstance(value, str) and value.strip() else None


def _json(data):
    # Windows: hooks run under PowerShell or Git Bash and code pages; \u escapes survive them all.
    return json.dumps(data, ensure_ascii=sys.platform == "win32")
