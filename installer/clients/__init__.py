"""The clients memevo registers in, in order: one module per client, beside base.py.

Adding a client: its module here (a `Client` subclass and `CLIENT`), one line in REGISTRY,
and its hook adapter in hooks/clients/ (tests/test_client_registry.py keeps the two sides
equal). Everything that lists the clients — setup, uninstall, the watcher, the command line's
choices, the wizard and the tray — reads them from here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import jsonfile
from . import claude, codebuddy, cursor, workbuddy
from .base import Client, ClientFiles, ClientResult, home, tilde

REGISTRY: tuple[Client, ...] = (claude.CLIENT, cursor.CLIENT, codebuddy.CLIENT, workbuddy.CLIENT)
CLIENTS: tuple[str, ...] = tuple(c.name for c in REGISTRY)
DISPLAY_NAMES: dict[str, str] = {c.name: c.display for c in REGISTRY}


def names() -> tuple[str, ...]:
    return CLIENTS


def get(name: str) -> Client:
    for client in REGISTRY:
        if client.name == name:
            return client
    raise ValueError(f"unknown client {name!r}: one of {', '.join(CLIENTS)}")


def files(name: str) -> ClientFiles:
    return get(name).files()


def snippet(name: str, platform: str | None = None) -> dict[str, Any]:
    """The exact hook registration for one client (`memevo hooks print-config CLIENT`)."""
    return get(name).snippet(platform)


def installed() -> list[str]:
    return [c.name for c in REGISTRY if c.files().installed]


def permission_question(present: Sequence[str]) -> str | None:
    """The permission question of the first of `present` that has a permission rule, if any."""
    return next((q for q in (get(name).permission_question for name in present) if q), None)


# -- register, check and remove memevo in one client ---------------------------------------------------
def register_client(name: str, writer: jsonfile.Writer, permission: bool | None = None) -> ClientResult:
    """permission (a client with permission rules): True adds our rules (Claude Code:
    memory_propose) and takes out retired ones (memory_resolve, which earlier versions allowed),
    False removes them all, None keeps them as they are."""
    return get(name).register(writer, permission, REGISTRY)


def unregister_client(name: str, writer: jsonfile.Writer, use_cli: bool = True) -> ClientResult:
    return get(name).unregister(writer, use_cli)


def after_unregistered(name: str, lines: list[str]) -> None:
    """`uninstall --only NAME` is done: a client that relied on NAME's files takes over."""
    removed = get(name)
    for client in REGISTRY:
        client.after_unregistered(removed, lines)


def client_status(name: str) -> dict[str, str]:
    """Per part: 'ok', 'missing', 'stale', or 'broken: reason'."""
    return get(name).status()


def needs_repair(report: dict[str, str]) -> bool:
    return any(value in ("missing", "stale") for value in report.values())


__all__ = [
    "CLIENTS",
    "DISPLAY_NAMES",
    "REGISTRY",
    "Client",
    "ClientFiles",
    "ClientResult",
    "after_unregistered",
    "client_status",
    "files",
    "get",
    "home",
    "installed",
    "names",
    "needs_repair",
    "register_client",
    "snippet",
    "tilde",
    "unregister_client",
]
