"""The side model writes a memory's recall cues (core/memories/cues.py): one call per memory text.

The request below is the one measured on the verify set (tests/data/recall-set.json's `cues` were
answered to exactly this text, one memory at a time, by a model that saw only the memory): change it
and the calibrated cue offsets need `python -m memevo.core.recall.calibrate` again. Asking for cues
specific to the memory (no generic requests) recalled more of the set's related prompts over two
independent answers than without that sentence: generic cues ("explain this code") make a memory
look related to everything, so its offset has to be larger. The memory is redacted before it leaves
the machine, like everything sent there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..memories import cues
from ..privacy.redaction import redact_secrets
from . import judge

if TYPE_CHECKING:  # httpx is imported where a client is made (write_all, learn.py)
    import httpx

log = logging.getLogger("memevo.side")

CUES_SYSTEM = "You write recall cues for a developer's long-term memory tool. Reply with JSON only."

CUES_REQUEST = """A coding assistant keeps this memory and must bring it back at the right moment.
Memory ({kind}): «{text}»
Write 8 short cues: things a developer might say or ask, or actions they might be about to take (a command, a code change, a file they touch), at a moment when this memory matters — including situations that do not use the memory's own words. Make each cue specific to this memory: something that would not come up in most other coding conversations (no generic requests such as "explain this code" or "fix this bug"). Mix Chinese and English (at least 3 of each). Each cue at most 40 characters. No explanations.
Reply with JSON only: {{"cues": ["...", "..."]}}"""


def request(text: str, category: str) -> str:
    kind = "rule" if category == "rule" else "project fact"
    return CUES_REQUEST.format(kind=kind, text=redact_secrets(text))


def cues_from(content: str) -> list[str]:
    """The cues in an answer; [] for anything unusable (kept, so it is not asked again)."""
    data = judge.parse_object(content)
    return cues.clean(data.get("cues")) if data is not None else []


async def write(client: httpx.AsyncClient, endpoint: judge.Endpoint, text: str, category: str) -> list[str]:
    """The memory's cues; [] when the endpoint refuses this request itself (HTTP 400/413/422: a
    filtered or oversized body), so that text is not asked again and the next memory goes on.
    Any other failure (JudgeError) means the endpoint is failing: the caller stops."""
    try:
        return cues_from(await judge.chat(client, endpoint, CUES_SYSTEM, request(text, category)))
    except judge.JudgeError as exc:
        if not exc.refused_this_request:
            raise
        log.warning("recall cues: the side API refused a memory's request: %s", exc)
        return []


def write_all(
    items: list[tuple[str, str]], limit: int, progress: Callable[[int, int], None] | None = None
) -> tuple[dict[str, list[str]], str | None]:
    """Cues for (text, category) pairs, one side call each and at most `limit` calls, for
    `memevo verify --write-cues` (a cases file's own memories). Returns the cues by text and
    the reason it stopped early, if it did; what was written before a failure is kept."""
    import asyncio

    import httpx

    from .. import config as config_mod
    from .learn import configured_endpoint

    written: dict[str, list[str]] = {}
    try:
        endpoint = configured_endpoint(config_mod.load())
    except judge.JudgeError as exc:
        return written, str(exc)
    todo = items[:limit]

    async def run() -> str | None:
        async with httpx.AsyncClient() as client:
            for done, (text, category) in enumerate(todo):
                if progress is not None:
                    progress(done, len(todo))
                try:
                    written[text] = await write(client, endpoint, text, category)
                except judge.JudgeError as exc:
                    return str(exc)
        return None if len(todo) == len(items) else f"stopped after {limit} calls (sideDailyLimit)"

    return written, asyncio.run(run())
