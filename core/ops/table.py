"""The operation table: every operation memevo serves, defined once.

An operation is a name, the function that does it (`func(ctx, **params)`, JSON-able
parameters in, a JSON-able dict out) and what kind of operation it is: whether it writes
memories (then a repeated request id applies it once, and indexes and fallback texts follow),
whether it needs the running service (the model, dialogs, the hooks' answers), whether it is
answered on the service's event loop itself (shutdown: never queued behind busy requests).

Modules register their operations with `@operation(...)`: core/ops/memory_ops.py (memories and config),
core/service/hookops.py (the hooks), core/service/engineops.py (the model's),
core/service/proposeops.py (the client's model's proposals) and core/service/routes.py
(status, search, recall, confirmations, the tray's UI), which also serves the whole table to
the socket server; the CLI and the MCP server call it through core/service/client.py; the
tray's panel calls the same table in process.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..clock import Clock
from ..errors import InvalidInput
from ..store import applied
from ..store.database import Store


class StoreAccess:
    """Hands out the store; the CLI opens it per command, the service holds it open."""

    def get(self, write: bool) -> Store | None:  # None: read of a store that does not exist yet
        raise NotImplementedError


@dataclass
class Context:
    """What an operation runs with. The service's context (core/service/context.py) adds the
    model, the learning worker and the tray's UI; a local one (a CLI command with no service
    running) has the store and the clock only."""

    access: StoreAccess
    clock: Clock

    def writer(self) -> Store:
        store = self.access.get(write=True)
        assert store is not None
        return store

    def reader(self) -> Store | None:
        return self.access.get(write=False)

    @property
    def in_service(self) -> bool:
        return False

    def after(self, op: Operation, result: dict[str, Any]) -> None:
        """What follows a write or a config change: overridden where something must follow."""


Func = Callable[..., dict[str, Any]]


@dataclass(frozen=True)  # cached_property still works: it writes the instance __dict__ directly
class Operation:
    name: str
    func: Func
    writes: bool = False  # changes memories: exactly-once by request id; indexes follow
    reload_all: bool = False  # may change any number of memories: the whole index reloads
    texts: bool = False  # changes what the hooks' fallback texts say (config)
    service: bool = False  # needs the running service; never run by a CLI on its own
    inline: bool = False  # answered on the service's event loop, never queued behind requests
    any_version: bool = False  # answered whatever build asks (a probe)

    @cached_property
    def signature(self) -> inspect.Signature:
        """Read once: every request checks its parameters against it."""
        return inspect.signature(self.func)


TABLE: dict[str, Operation] = {}


def operation(name: str, **kind: bool) -> Callable[[Func], Func]:
    def register(func: Func) -> Func:
        if name in TABLE:
            raise RuntimeError(f"operation {name!r} is defined twice")
        TABLE[name] = Operation(name, func, **kind)
        return func

    return register


# Operation names are snake_case. These dotted names of earlier versions are still accepted:
# a hook or MCP server of the version before an upgrade in place may still send them.
RENAMED = {
    "hook.action": "hook_action",
    "hook.prompt": "hook_prompt",
    "hook.relay": "hook_relay",
    "hook.session_start": "hook_session_start",
    "hook.stop": "hook_stop",
    "pending.resolve": "pending_resolve",
    "secret.changed": "secret_changed",
    "side.resolve": "side_resolve",
    "ui.show": "ui_show",
    "ui.test": "ui_test",
}


def find(name: str) -> Operation:
    op = TABLE.get(RENAMED.get(name, name))
    if op is None:
        raise InvalidInput(f"unknown operation {name!r}")
    return op


def dispatch(ctx: Context, name: str, params: dict[str, Any]) -> dict[str, Any]:
    op = find(name)
    if op.service and not ctx.in_service:
        raise InvalidInput(f"{name} needs the memevo service (the tray app or `memevo serve`)")
    params = dict(params)
    request_id = params.pop(applied.PARAM, None)
    if op.writes and isinstance(request_id, str) and request_id:
        result = _apply_once(ctx, op, params, request_id)
    else:
        result = _run(op, ctx, params)
    if op.writes or op.texts:
        ctx.after(op, result)
    return result


def _run(op: Operation, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    try:
        op.signature.bind(ctx, **params)
    except TypeError as exc:
        raise InvalidInput(f"bad parameters for {op.name}: {exc}") from exc
    return op.func(ctx, **params)


def _apply_once(ctx: Context, op: Operation, params: dict[str, Any], request_id: str) -> dict[str, Any]:
    """A repeated write request (the caller lost the first reply) answers with the first
    result and changes nothing; the id is committed with the change itself."""
    import duckdb

    store = ctx.writer()
    first = applied.lookup(store, request_id)
    if first is not None:
        return first
    try:
        with store.recording(request_id, ctx.clock.now_ms()):
            result = _run(op, ctx, params)
    except duckdb.ConstraintException:
        if not store.query("SELECT 1 FROM applied_requests WHERE id = ?", [request_id]):
            raise  # a constraint of the change itself
        return applied.wait_for_result(store, request_id)  # the same id, applied by a twin meanwhile
    applied.save_result(store, request_id, ctx.clock.now_ms(), result)
    return result


def changed_ids(result: dict[str, Any]) -> list[str]:
    """The memories an operation's result names as changed (their index rows follow)."""
    ids: list[str] = []
    memory = result.get("memory")
    if isinstance(memory, dict) and isinstance(memory.get("id"), str):
        ids.append(memory["id"])
    for key in ("deleted", "missing"):
        ids += [i for i in result.get(key, []) if isinstance(i, str)]
    if isinstance(result.get("trashed"), str):
        ids.append(result["trashed"])
    purged = result.get("purged")
    if isinstance(purged, dict) and isinstance(purged.get("id"), str):
        ids.append(purged["id"])
    for made in result.get("imported", []) if isinstance(result.get("imported"), list) else []:
        if isinstance(made, dict) and isinstance(made.get("id"), str):  # import_notes
            ids.append(made["id"])
    return ids
