"""Cursor: ~/.cursor/hooks.json, sessionStart / beforeSubmitPrompt / stop.

beforeSubmitPrompt documents no injection field; like the Node tool we answer with
`additional_context`, which the Node tool reports works (see README, client table).
"""

from clients.base import Adapter, _json, _text


class Cursor(Adapter):
    name = "cursor"
    events = {"sessionStart": "session_start", "beforeSubmitPrompt": "prompt", "stop": "stop"}
    timeouts = {"session_start": 6.0, "prompt": 3.5, "stop": 18.0}  # Cursor's prompt hook has 5 s

    def session_key(self, payload):
        return _text(payload.get("conversation_id")) or _text(payload.get("session_id"))

    def prompt_id(self, payload):
        return _text(payload.get("generation_id"))

    def stop_flags(self, payload):
        return {"continuation": bool(payload.get("loop_count")), "subagent": False}

    def render(self, kind, result):
        context = result.get("context")
        if not context:
            return ""
        if kind == "stop":
            # Shown to the user as their own message: a short line; the instruction waits in a
            # file that the next prompt hook hands to the model.
            return _json({"followup_message": result.get("notice") or context})
        return _json({"additional_context": context})


ADAPTER = Cursor()
