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
from ..consolidation import merge_writer, proposals
from ..consolidation import run as consolidation
from ..encoder.encoder import release_free_memory
from ..errors import InvalidInput
from ..memories import live as memories
from ..ops.table import operation

if TYPE_CHECKING:
    from .context import ServiceContext

log = logging.getLogger("memevo.service")
_PASS = threading.Lock()  # one pass at a time, on demand or the day's
_COMING = threading.Lock()  # one day's pass started (waiting for quiet, or running)
# What the side model's merged texts may take in all: on demand the answer must come within the
# callers' own waits (MCP's 30 s, the CLI's 60 s); after maintenance nobody waits. Past the
# budget a proposal has no merged text and offers the members' texts to keep.
REQUEST_MERGE_S = 15.0
BACKGROUND_MERGE_S = 180.0
# The day's pass starts at the day's first session start, when the user's first prompts follow
# within seconds; a pass over a 10k pool takes the CPUs for seconds (eight prompts at once,
# `hook_prompt_concurrent_ms`, slow down beside it). So it waits until no request has come for
# QUIET_S, but never longer than QUIET_MAX_WAIT_S (a busy day still gets its pass).
QUIET_S = 30.0
QUIET_MAX_WAIT_S = 600.0


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


def in_background(ctx: ServiceContext, when_quiet: bool = False) -> threading.Thread | None:
    """After the day's maintenance: a pass on its own thread (none when one is already coming);
    when_quiet: once requests have paused (QUIET_S), not in the middle of the session's start.
    The pass lock is taken only after the wait: `memevo consolidate` meanwhile runs at once
    (and is the day's pass: this one then skips)."""
    if ctx.engine is None or not _COMING.acquire(blocking=False):
        return None

    def work() -> None:
        try:
            if when_quiet and not wait_until_quiet(ctx):
                log.info("consolidation: the service closed before the day's pass could run")
                return
            if not _PASS.acquire(blocking=False):
                log.info("consolidation: a pass is running already; the day's pass is that one")
                return
            try:
                assert ctx.engine is not None
                report = consolidation.run(
                    ctx.store, ctx.clock, ctx.engine, merge_text_writer(ctx, BACKGROUND_MERGE_S)
                )
                log.info("consolidation: %s", report)
            finally:
                _PASS.release()
                release_free_memory()  # the pass's temporaries, back from glibc's heaps
        except Exception:
            log.warning("the consolidation pass failed; the next maintenance tries again", exc_info=True)
        finally:
            _COMING.release()

    thread = threading.Thread(target=work, name="memevo-consolidate", daemon=True)
    thread.start()
    return thread


def wait_until_quiet(ctx: ServiceContext, quiet_s: float | None = None, most_s: float | None = None) -> bool:
    """Until no request has come for quiet_s (at most most_s); False if the service closed."""
    quiet_s = QUIET_S if quiet_s is None else quiet_s
    deadline = time.monotonic() + (QUIET_MAX_WAIT_S if most_s is None else most_s)
    while not ctx.closed.is_set():
        idle = time.monotonic() - ctx.last_request
        if idle >= quiet_s or time.monotonic() >= deadline:
            return True
        ctx.closed.wait(min(quiet_s - idle, max(deadline - time.monotonic(), 0.0)) + 0.05)
    return False


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
