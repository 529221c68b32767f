"""Claude Code: ~/.claude/settings.json, SessionStart / UserPromptSubmit / PreToolUse / Stop.

PreToolUse (Bash, Edit, MultiEdit, Write) answers only `additionalContext`: no
`permissionDecision`, so Claude Code's own permission flow decides as if we were not there.
"""

from .base import Adapter, _json, _text


class Claude(Adapter):
    def prompt_id(self, payload):
        return _text(payload.get("prompt_id"))

    def silent_reason(self, payload, environ):
        # Cursor also runs ~/.claude/settings.json hooks; its own registration answers there,
        # so one prompt is never injected twice. Its payloads say so too.
        if payload.get("cursor_version"):
            return "running under Cursor"
        return super().silent_reason(payload, environ)

    def render(self, kind, result, payload=None):
        context = result.get("context")
        if not context:
            return ""
        if kind == "stop":
            return self.render_stop(context, payload or {})
        event = {"session_start": "SessionStart", "prompt": "UserPromptSubmit", "action": "PreToolUse"}[kind]
        body = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
        # showRecall's block, and memevo's word on an answer it carried out: the user sees them
        shown = [result.get(key) for key in ("system_message", "user_notice")] if kind == "prompt" else []
        if any(shown):
            body["systemMessage"] = "\n\n".join(text for text in shown if text)
        return _json(body)


ADAPTER = Claude("claude")
