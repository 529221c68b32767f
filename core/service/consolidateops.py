"""The `consolidate` operation and the pass after the daily maintenance (core/consolidation/).

On demand (`memevo consolidate`, MCP, the panel) the pass runs in the request and answers
what it found and proposed; after the day's maintenance it runs on a thread of its own, never
in a hook's path. One pass at a time. With the side API configured (and memevo not paused)
the side model writes a duplicate cluster's merged text through the learning worker's client
and its daily limit; otherwise the proposal offers the members' texts to pick from.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import config as config_mod
from .. import memories
from ..consolidation import merge_writer, proposals
from ..consolidation import run as consolidation
from ..encoder.encoder import release_free_memory
from ..errors import InvalidInput
from ..optable import operation

if TYPE_CHECKING:
    from .context import ServiceContext

log = logging.getLogger("memevo.service")
_PASS = threading.Lock()
# What the side model's merged texts may take in all: on demand the answer must come within the
# callers' own waits (MCP's 30 s, the CLI's 60 s); after maintenance nobody waits. Past the
# budget a proposal has no merged text and offers the members' texts to keep.
REQUEST_MERGE_S = 15.0
BACKGROUND_MERGE_S = 180.0


@operation("consolidate", service=True)
def op_consolidate(ctx: ServiceContext, limit: Any = proposals.MAX_NEW) -> dict[str, Any]:
    """Find near-duplicate clusters and contradicting pairs and propose them to the user;
    nothing changes until the user answers (`memevo pending`, the tray's dialog)."""
    if ctx.engine is None:
        raise InvalidInput(ctx.engine_error or "the model is still loading; try again in a few seconds")
    if not _PASS.acquire(timeout=5):  # the day's pass may wait minutes for merged texts
        raise InvalidInput(
            "a consolidation pass is already running (its proposals come as it finds them); try again later"
        )
    try:
        report = consolidation.run(
            ctx.store, ctx.clock, ctx.engine, merge_text_writer(ctx, REQUEST_MERGE_S), checked_limit(limit)
        )
    finally:
        _PASS.release()
        release_free_memory()
    report["desktop"] = ctx.desktop
    return report


def checked_limit(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 50:
        raise InvalidInput("limit must be a whole number from 0 to 50")
    return value


def in_background(ctx: ServiceContext) -> threading.Thread | None:
    """After the day's maintenance: a pass on its own thread (none when one is running)."""
    if ctx.engine is None or not _PASS.acquire(blocking=False):
        return None

    def work() -> None:
        try:
            assert ctx.engine is not None
            report = consolidation.run(
                ctx.store, ctx.clock, ctx.engine, merge_text_writer(ctx, BACKGROUND_MERGE_S)
            )
            log.info("consolidation: %s", report)
        except Exception:
            log.warning("the consolidation pass failed; the next maintenance tries again", exc_info=True)
        finally:
            _PASS.release()
            release_free_memory()  # the pass's temporaries, back from glibc's heaps

    thread = threading.Thread(target=work, name="memevo-consolidate", daemon=True)
    thread.start()
    return thread


def merge_text_writer(
    ctx: ServiceContext, budget_s: float
) -> Callable[[list[memories.Memory]], str | None] | None:
    """The side model's merged text, or None (no side API, paused, the worker down, or the
    budget for this pass spent: each call waits at most what is left of it)."""
    from ..learning import judge
    from ..learning.learn import configured_endpoint

    config = config_mod.load()
    if not config["enabled"]:
        return None
    try:
        endpoint = configured_endpoint(config)
        ctx.learner.start()
    except Exception as exc:  # not configured, or the worker cannot start: the user picks a text
        log.debug("consolidation without a merged text: %s", exc)
        return None
    runner = ctx.learner.runner
    if runner is None:
        return None

    deadline = time.monotonic() + budget_s

    def write(members: list[memories.Memory]) -> str | None:
        left = min(deadline - time.monotonic(), endpoint.timeout_s + 5)
        if left <= 0:
            return None
        call = merge_writer.write(runner.client, endpoint, [m.text for m in members])
        future = asyncio.run_coroutine_threadsafe(runner._call(config, call), runner.loop)
        try:
            text = future.result(left)
            return text if isinstance(text, str) else None
        except TimeoutError:
            future.cancel()
            log.warning("consolidation: no merged text within the pass's budget; the user picks a text")
        except judge.JudgeError as exc:
            log.warning("consolidation: the side model wrote no merged text: %s", exc)
        except Exception:
            log.warning("consolidation: the side model wrote no merged text", exc_info=True)
        return None

    return write
