"""The side model writes a duplicate cluster's merged text, through learning's own client
(core/learning/judge.py: the same endpoint, timeout and error handling); everything sent is
redacted. An answer that is not a usable text means no merged text: the user then picks
which text to keep."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..learning import judge
from ..memories import live as memories
from ..memories import text as memory_text
from ..privacy.redaction import redact_secrets

if TYPE_CHECKING:  # the service imports this at start; httpx comes with the first side call
    import httpx

MERGE_SYSTEM = """下面几条长期记忆说的是同一件事，只是措辞不同。把它们合并成一条：自包含，保留所有名称、路径、标识符和数值，不增加原文没有的信息，6 到 400 个字，用原文的语言。

只输出一个 JSON 对象，不要任何其它文字：
{"text": "合并后的记忆正文"}"""


async def write(client: httpx.AsyncClient, endpoint: judge.Endpoint, texts: list[str]) -> str | None:
    listing = "\n".join(f"- {redact_secrets(text)}" for text in texts)
    answer = judge.parse_object(await judge.chat(client, endpoint, MERGE_SYSTEM, listing)) or {}
    text = answer.get("text")
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        return memories.check_text(memory_text.remove_unsafe(text).strip())
    except Exception:  # out of range: the user picks a text instead
        return None
