"""Cursor: ~/.cursor/hooks.json, sessionStart / beforeSubmitPrompt / stop.

beforeSubmitPrompt documents no injection field; like the Node tool we answer with
`additional_context`, which the Node tool reports works (see README, client table).
"""

from clients.base import Adapter, _json, _text


class Cursor(Adapter):
    name = "cursor"
    events = {"sessionStart": "session_start", "beforeSubmitPrompt": "prompt", "stop": "stop"}
    timeouts = {"session_start": 6.0, "prompt": 3.5, "stop": 2.0}  # Cursor's prompt hook has 5 s

    def session_key(self, payload):
        return _text(payload.get("conversation_id")) or _text(payload.get("session_id"))

    def prompt_id(self, payload):
        return _text(payload.get("generation_id"))

    def render(self, kind, result):
        context = result.get("context")
        if kind == "stop" or not context:
            return ""
        return _json({"additional_context": context})


ADAPTER = Cursor()
