"""Our entries inside a client's JSON: hooks and the MCP server, the same for every client.

Ours are recognised by markers — a hook whose command runs `memevo_hook.py`, an MCP entry
that runs `memevo.cli mcp` (or the retired `memevo.core.cli mcp`), whatever data folder either names — and the Node tool's by its
script names, so setup can update ours in place, drop older ones and replace the Node tool's,
while everyone else's entries keep their place and content. Every function edits the dict it is given and says
whether anything changed. What a client wants (its hook snippet, the file's shape) comes from
its module in installer/clients/; nothing here knows one client from another."""

from __future__ import annotations

import copy
import re
from typing import Any, TypeGuard

from ..core.paths import HOME_ENV
from . import hook_command

SERVER_NAME = "memory-self-evolution"  # the seed's MCP name: permission rules and skills refer to it
LEGACY_SERVER_NAMES = ("dsh-memory",)  # the Node tool's older MCP name
MCP_MARKER = "memevo.cli"
# Entries of earlier versions named the command line by its old module. They stay ours: reported
# stale, rewritten in place by a repair (the watchdog's or `memevo setup`), the user's extra keys
# kept; the old module forwards meanwhile, so nothing a user installed breaks.
RETIRED_MCP_MARKERS = ("memevo.core.cli",)


def is_ours(command: Any) -> bool:
    return isinstance(command, str) and hook_command.HOOK_FILE in command


_NODE_HOOK = re.compile(r"""(^|[/\\"' ])memory\.mjs["']?\s+hook\b""")
_NODE_SCRIPT = re.compile(r"""(^|[/\\"' ])(memory-self-evolution|dsh-memory)[/\\][^"' ]*\.mjs\b""")


def is_node_tool(command: Any) -> bool:
    """The Node tool's hooks: its entry point `…/memory.mjs" hook --agent X`, and any .mjs
    script inside its own repository folder (`memory-self-evolution/` or `dsh-memory/`: the
    after-tool hooks of its older versions). Another tool's `team-memory.mjs` is not it."""
    if not isinstance(command, str):
        return False
    return bool(_NODE_HOOK.search(command) or _NODE_SCRIPT.search(command))


def _handler_command(handler: Any) -> Any:
    return handler.get("command") if isinstance(handler, dict) else None


# -- hooks ---------------------------------------------------------------------------------------------
def set_hooks(wanted: dict[str, Any], data: dict[str, Any], flat: bool) -> bool:
    """Register our hook for each event of `wanted` (a client's snippet); True when `data`
    changed. flat: the file lists handlers under each event directly (no matcher groups);
    `wanted`'s other top-level keys (a format version) are added when missing."""
    before = copy.deepcopy(data)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("its `hooks` is not an object")
    for key, value in wanted.items():
        if key != "hooks":
            data.setdefault(key, value)
    for event in list(hooks):
        if event not in wanted["hooks"]:
            _remove_from_event(hooks, event)  # an older version of ours registered this event
    for event, entries in wanted["hooks"].items():
        _place(hooks, event, entries[0], flat)
    return data != before


def remove_hooks(data: dict[str, Any]) -> bool:
    before = copy.deepcopy(data)
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        for event in list(hooks):
            _remove_from_event(hooks, event)
        if not hooks and before.get("hooks"):
            del data["hooks"]
    return data != before


def hooks_status(wanted: dict[str, Any], data: dict[str, Any], flat: bool) -> str:
    """'ok', 'missing' (some event lacks ours) or 'stale' (ours, with another command or timeout)."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        hooks = {}
    status = "ok"
    for event, entries in wanted["hooks"].items():
        found = [h for h in _handlers(hooks.get(event), flat) if is_ours(_handler_command(h))]
        target = entries[0] if flat else entries[0]["hooks"][0]
        if not found:
            return "missing"
        if found[0] != target or len(found) > 1:
            status = "stale"
    return status


def _handlers(event_entries: Any, flat: bool) -> list[Any]:
    if not isinstance(event_entries, list):
        return []
    if flat:
        return list(event_entries)
    return [h for group in event_entries if isinstance(group, dict) for h in (group.get("hooks") or [])]


def _place(hooks: dict[str, Any], event: str, entry: dict[str, Any], flat: bool) -> None:
    """Ours replaces our first existing handler in place; the Node tool's and our duplicates go;
    with none of ours present, our entry is appended after everyone else's."""
    current = hooks.get(event)
    if not isinstance(current, list):
        hooks[event] = [entry]
        return
    handler = entry if flat else entry["hooks"][0]
    if flat:
        result, placed = _swap_handlers(current, handler, False)
    else:
        result, placed = [], False
        for item in current:
            if not isinstance(item, dict) or not isinstance(item.get("hooks"), list):
                result.append(item)
                continue
            kept, placed = _swap_handlers(item["hooks"], handler, placed)
            if kept or not item["hooks"]:
                result.append({**item, "hooks": kept} if kept != item["hooks"] else item)
    if not placed:
        result.append(entry)
    hooks[event] = result


def _swap_handlers(handlers: list[Any], ours: dict[str, Any], placed: bool) -> tuple[list[Any], bool]:
    """One list of handlers with our first one replaced by `ours` (unless already placed) and
    every other one of ours or the Node tool's dropped; says whether ours is now placed."""
    kept: list[Any] = []
    for handler in handlers:
        command = _handler_command(handler)
        if is_ours(command) and not placed:
            kept.append(ours)
            placed = True
        elif not (is_ours(command) or is_node_tool(command)):
            kept.append(handler)
    return kept, placed


def _remove_from_event(hooks: dict[str, Any], event: str) -> None:
    current = hooks.get(event)
    if not isinstance(current, list):
        return
    result: list[Any] = []
    for item in current:
        if isinstance(item, dict) and isinstance(item.get("hooks"), list):
            kept = [h for h in item["hooks"] if not _owned(h)]
            if kept or not item["hooks"]:
                result.append(item if len(kept) == len(item["hooks"]) else {**item, "hooks": kept})
        elif not _owned(item):
            result.append(item)
    if result != current:
        if result:
            hooks[event] = result
        else:
            del hooks[event]


def _owned(handler: Any) -> bool:
    command = _handler_command(handler)
    return is_ours(command) or is_node_tool(command)


# -- the MCP server ------------------------------------------------------------------------------------
def mcp_entry(client: str) -> dict[str, Any]:
    return {
        "type": "stdio",
        "command": hook_command.interpreter(),
        "args": mcp_args(client),
        "description": "memevo: long-term memory (memory-self-evolution)",
    }


def mcp_args(client: str) -> list[str]:
    """`-P -m memevo.cli mcp --client CLIENT` (hook_command.SAFE_PATH: clients start MCP
    servers in the user's project, which must not shadow memevo). An entry of an older version,
    without -P or naming a retired module, is still ours: reported stale and rewritten in place."""
    return hook_command.module_command(MCP_MARKER, "mcp", "--client", client)[1:]


def set_mcp(client: str, data: dict[str, Any]) -> bool:
    before = copy.deepcopy(data)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ValueError("its `mcpServers` is not an object")
    for legacy in LEGACY_SERVER_NAMES:
        servers.pop(legacy, None)
    current = servers.get(SERVER_NAME)
    # We own type/command/args and env's MEMEVO_HOME; keys the user added to our entry (env,
    # disabled…) stay.
    extra = {k: v for k, v in current.items() if k not in OWNED_KEYS} if _is_our_entry(current) else {}
    servers[SERVER_NAME] = _with_home({**mcp_entry(client), **extra})
    return data != before


OWNED_KEYS = ("type", "command", "args", "description")


def _with_home(entry: dict[str, Any]) -> dict[str, Any]:
    """`entry` with env's MEMEVO_HOME naming this setup's moved data folder, or without it when
    the folder is the default one: clients start MCP servers with their own environment, which
    rarely holds MEMEVO_HOME (hook_command.moved_home). The user's other variables keep their
    place; an env left empty by taking ours out goes with it, one the user left empty stays."""
    carried = hook_command.home_env()
    env = entry.get("env")
    if not isinstance(env, dict):
        return {**entry, "env": carried} if carried else entry
    if not carried and HOME_ENV not in env:
        return entry
    kept = {k: v for k, v in env.items() if k != HOME_ENV}
    if kept or carried:
        return {**entry, "env": {**kept, **carried}}
    return {k: v for k, v in entry.items() if k != "env"}


def named_home(entry: dict[str, Any]) -> Any:
    """The data folder an MCP entry's env names (None: the default one)."""
    env = entry.get("env")
    return env.get(HOME_ENV) if isinstance(env, dict) else None


def _is_our_entry(entry: Any) -> TypeGuard[dict[str, Any]]:
    if not isinstance(entry, dict):
        return False
    args = entry.get("args")
    return isinstance(args, list) and any(m in args for m in (MCP_MARKER, *RETIRED_MCP_MARKERS))


def remove_mcp(data: dict[str, Any]) -> bool:
    servers = data.get("mcpServers")
    if not isinstance(servers, dict):
        return False
    removed = [name for name in (SERVER_NAME, *LEGACY_SERVER_NAMES) if servers.pop(name, None) is not None]
    return bool(removed)


def mcp_status(client: str, data: dict[str, Any]) -> str:
    servers = data.get("mcpServers")
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    if not isinstance(entry, dict):
        return "missing"
    wanted = mcp_entry(client)
    same = all(entry.get(k) == wanted[k] for k in ("type", "command", "args"))
    # another data folder than this setup's (MEMEVO_HOME changed since): rewritten by a repair
    same = same and named_home(entry) == hook_command.moved_home()
    return "ok" if same else "stale"
