"""The whole operation table as the service serves it, and the service's own operations.

Importing this module registers every operation (core/ops/table.py): the memories and config
(core/ops/memory_ops.py), the hooks' (hookops.py), the model's (engineops.py) and the ones below. The
socket server and the tray's panel both call `dispatch`.
"""

from __future__ import annotations

import logging
from typing import Any

from ..errors import InvalidInput
from ..ops import memory_ops  # noqa: F401 - registers the memory and config operations
from ..ops import table as optable
from ..ops.table import TABLE, find, operation
from . import consolidateops, damaged, engineops, hookops, proposeops, relay  # noqa: F401 - these register theirs
from .context import ServiceContext

__all__ = ["TABLE", "dispatch", "find"]
log = logging.getLogger("memevo.service")


def dispatch(ctx: ServiceContext, op: str, params: dict[str, Any]) -> dict[str, Any]:
    """One request. While the store is damaged, hooks answer from the last cached texts."""
    op = optable.RENAMED.get(op, op)
    if ctx.damaged and op.startswith("hook_") and op != "hook_relay":
        return damaged.answer_from_cache(op, params)
    return optable.dispatch(ctx, op, params)


@operation("ping", service=True, any_version=True)
def ping(ctx: ServiceContext) -> dict[str, Any]:
    """The service's status (a probe: answered whatever build asks)."""
    return ctx.status()


@operation("secret_changed", service=True)
def secret_changed(ctx: ServiceContext) -> dict[str, Any]:
    """The side API key was just set or cleared (`memevo secret`, the settings page): learning
    and the hooks' fallback texts see it now rather than at the next key check, and memories
    without recall cues get them now rather than at the next change."""
    ctx.keys.forget()
    ctx.refresh_caches()
    ctx.learner.want_cues()
    return {"noticed": True}


@operation("shutdown", service=True, inline=True)
def shutdown(ctx: ServiceContext, handover: bool = False) -> dict[str, Any]:
    """Stop after the requests under way; handover: the tray app is taking over."""
    if ctx.request_stop is None:
        raise InvalidInput("this service cannot be stopped by request")
    if handover:
        log.info("the tray app takes over: finishing the requests under way, then stopping")
    ctx.request_stop()
    return {"stopping": True}


@operation("search", service=True)
def search(
    ctx: ServiceContext,
    text: str | None = None,
    query: str | None = None,
    category: str | None = None,
    limit: Any = 20,
) -> dict[str, Any]:
    """Search by meaning (MCP memory_search, `memevo search`, the panel): nearest live
    memories, no gate, no award (core/memories/search.py)."""
    from ..memories import search as memsearch

    if ctx.engine is None:
        raise InvalidInput(ctx.engine_error or "search by meaning works once the model has loaded; try again")
    return memsearch.search(
        ctx.engine, ctx.store, str(text or query or ""), category, limit if isinstance(limit, int) else 20
    )


@operation("side_resolve", service=True)
def resolve(
    ctx: ServiceContext,
    client: Any = "",
    sessionID: Any = "",
    decision: Any = "",
    text: Any = None,
    from_dialog: Any = False,
) -> dict[str, Any]:
    """The tray's dialog (from_dialog: the user's click, and an edited text only from it) and
    MCP memory_resolve (the client comes from the caller's registration, never from the
    model). A model's call carries out only the answer the user gave in the chat
    (resolve_for_model): a model cannot confirm what it proposed. Exactly once by its sessionID."""
    from ..learning import resolve as resolve_mod

    if from_dialog is True:
        result = resolve_mod.resolve(ctx.store, ctx.clock, str(client), str(sessionID), str(decision), text)
    else:
        result = resolve_mod.resolve_for_model(
            ctx.store, ctx.clock, str(client), str(sessionID), str(decision)
        )
    ctx.after_learning(result)
    return result


@operation("ui_show", service=True)
def show_ui(ctx: ServiceContext, view: Any = "panel") -> dict[str, Any]:
    """A second `memevo` start asks the running tray app to bring its panel to the front."""
    if ctx.ui_request is None:
        return {"shown": False, "reason": "the running service is headless (memevo serve)"}
    ctx.ui_request(str(view))
    return {"shown": True}


@operation("ui_test", service=True)
def ui_test(ctx: ServiceContext, **params: Any) -> dict[str, Any]:
    """The tray app's test hook (desktop/testhook.py): read and answer its dialogs."""
    if ctx.ui_test is None:
        raise InvalidInput("the tray app's test hook is off (MEMEVO_TRAY_TEST_HOOK=1 at its start)")
    return ctx.ui_test(params)


@operation("hook_relay", service=True)
def hook_relay(ctx: ServiceContext, **params: Any) -> dict[str, Any]:
    """The relay hook: a client's raw payload in, its raw output out (relay.py)."""
    return relay.answer(lambda op, inner: hook_answer(ctx, op, inner), params)


def hook_answer(ctx: ServiceContext, op: str, params: dict[str, Any]) -> dict[str, Any]:
    """The hook operation the relayed adapter asks for, called directly: the relay is already
    one request through the table, its hook_* answer is not a second one."""
    if ctx.damaged:
        return damaged.answer_from_cache(op, params)
    return hookops.answer(ctx, op, params)
