"""The side model writes a memory's recall cues (core/cues.py): one call per memory text.

The request below is the one measured on the verify set (tests/data/recall-set.json's
`cues` were answered to exactly this text, one memory at a time, by a model that saw only the
memory): change it and the calibrated cue offsets need `python -m memevo.core.recall.calibrate`
again. The memory is redacted before it leaves the machine, like everything sent there.
"""

from __future__ import annotations

import httpx

from .. import cues
from ..redaction import redact_secrets
from . import judge

CUES_SYSTEM = "You write recall cues for a developer's long-term memory tool. Reply with JSON only."

CUES_REQUEST = """A coding assistant keeps this memory and must bring it back at the right moment.
Memory ({kind}): «{text}»
Write 8 short cues: things a developer might say or ask, or actions they might be about to take (a command, a code change, a file they touch), at a moment when this memory matters — including situations that do not use the memory's own words. Mix Chinese and English (at least 3 of each). Each cue at most 40 characters. No explanations.
Reply with JSON only: {{"cues": ["...", "..."]}}"""


def request(text: str, category: str) -> str:
    kind = "rule" if category == "rule" else "project fact"
    return CUES_REQUEST.format(kind=kind, text=redact_secrets(text))


def cues_from(content: str) -> list[str]:
    """The cues in an answer; [] for anything unusable (kept, so it is not asked again)."""
    data = judge.parse_object(content)
    return cues.clean(data.get("cues")) if data is not None else []


async def write(client: httpx.AsyncClient, endpoint: judge.Endpoint, text: str, category: str) -> list[str]:
    return cues_from(await judge.chat(client, endpoint, CUES_SYSTEM, request(text, category)))
