"""WorkBuddy: ~/.workbuddy/settings.json, the CodeBuddy engine with its own folder.

Its UserPromptSubmit `prompt` is the whole session: every user message joined, each in
`<user_query>…</user_query>` and carrying injected `<system-reminder>` (with `<user_info>`, project
context, memory, the expert's instructions) around it. The user's words now are the last
`<user_query>`; the earlier ones are dropped. A WorkBuddy hook that times out blocks the user's
prompt, so ours gives up on the service early.
"""

from .base import _json
from .codebuddy import CodeBuddy, engine

QUERY_OPEN, QUERY_CLOSE = "<user_query>", "</user_query>"
INJECTED = ("system-reminder", "user_info")


class WorkBuddy(CodeBuddy):
    # Its row in client_table: only the three events WorkBuddy is known to fire (no rules before
    # tool calls), and no echo of a continuation (its questions count as asked at Stop).

    def prompt_text(self, payload):
        return last_user_query(super().prompt_text(payload))

    def render_stop(self, context, payload):
        # The CLI engine: the documented form (unless the payload says it is the IDE's).
        if engine(payload) == "ide":
            return super().render_stop(context, payload)
        return _json({"continue": False, "reason": context})


def last_user_query(text):
    """The last `<user_query>` of a joined prompt, without injected blocks; a prompt without
    one loses only its injected blocks. Linear in the prompt (it can be hundreds of KB)."""
    start = text.rfind(QUERY_OPEN)
    if start >= 0:
        start += len(QUERY_OPEN)
        end = text.find(QUERY_CLOSE, start)
        text = text[start:] if end < 0 else text[start:end]
    for name in INJECTED:
        text = without_blocks(text, name)
    return text.strip()


def without_blocks(text, name):
    """`text` without each `<name …>…</name>`; an unclosed one runs to the end."""
    opening, closing = f"<{name}", f"</{name}>"
    kept, pos = [], 0
    while True:
        start = text.find(opening, pos)
        if start < 0:
            break
        after = text[start + len(opening) : start + len(opening) + 1]
        if after and after not in ">/ \t\r\n":  # <user_infox>: another tag
            kept.append(text[pos : start + len(opening)])
            pos = start + len(opening)
            continue
        kept.append(text[pos:start])
        end = text.find(closing, start)
        pos = len(text) if end < 0 else end + len(closing)
    kept.append(text[pos:])
    return "".join(kept)


ADAPTER = WorkBuddy("workbuddy")
