"""Cursor: ~/.cursor/hooks.json, sessionStart / beforeSubmitPrompt / stop.

beforeSubmitPrompt documents only `continue` and `user_message`; current builds (3.20) also honour
`additional_context` there, injected as a system reminder. We answer both, so a build that checks
the documented fields lets the prompt on.

beforeShellExecution / beforeMCPExecution: the rules about the command or MCP tool about to run
go in `agent_message` ("message sent to agent"). No `permission` is answered, so Cursor's own
approval decides as if we were not there (whether a build shows `agent_message` without a
permission decision is to be checked on a real build).
"""

from .base import Adapter, _json, _text, bounded


class Cursor(Adapter):
    def session_key(self, payload):
        return _text(payload.get("conversation_id")) or _text(payload.get("session_id"))

    def prompt_id(self, payload):
        return _text(payload.get("generation_id"))

    def action_call(self, payload):
        if isinstance(payload.get("tool_name"), str) and payload["tool_name"]:  # beforeMCPExecution
            return "MCP", bounded(
                {"tool_name": payload["tool_name"], "tool_input": payload.get("tool_input")}
            )
        if isinstance(payload.get("command"), str) and payload["command"].strip():  # beforeShellExecution
            return "Shell", bounded({"command": payload["command"]})
        return None

    def stop_flags(self, payload):
        # After a turn the user aborted or that failed nothing follows: the service holds back
        # as after a follow-up of ours, and its results wait for the next completed turn.
        return {"continuation": bool(payload.get("loop_count")) or unfinished(payload), "subagent": False}

    def previous_answer(self, payload, environ):
        # No answer field on `stop`; the transcript (JSONL) is in the payload or the environment.
        path = payload.get("transcript_path") or environ.get("CURSOR_TRANSCRIPT_PATH")
        return super().previous_answer({"transcript_path": path}, environ)

    def render(self, kind, result, payload=None):
        context = result.get("context")
        if not context:
            return ""
        if kind == "stop":
            if unfinished(payload or {}):
                return ""
            # Shown to the user as their own message: a short line; the instruction waits in a
            # file that the next prompt hook hands to the model.
            return _json({"followup_message": result.get("notice") or context})
        if kind == "prompt":
            return _json({"continue": True, "additional_context": context})
        if kind == "action":
            return _json({"agent_message": context})
        return _json({"additional_context": context})


def unfinished(payload):
    """`stop` carries `status`: completed, aborted or error. None (older builds): as before."""
    status = payload.get("status")
    return status is not None and status != "completed"


ADAPTER = Cursor("cursor")
