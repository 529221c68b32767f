"""`memevo uninstall`: stop the tray app and service first (nothing re-registers, the store is
closed), then remove what setup put in the clients and what only serves the install (model,
config, secrets, pending side jobs, autostart). Memories, vectors, trash, memories.html,
recall cases, maintenance state and logs stay, so a reinstall keeps every confidence.

`--only CLIENT` removes that client's hooks, MCP entry, skill and permission rule, remembers
the removal (the tray's watcher must not re-add it), and touches nothing else."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import jsonfile, state
from .clients import CLIENTS, DISPLAY_NAMES, ClientResult, after_unregistered, files, unregister_client

Say = Callable[[str], None]


@dataclass
class UninstallResult:
    ok: bool = True
    clients: list[ClientResult] = field(default_factory=list)
    restart: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def run(
    only: str | None = None, say: Say = print, ask: Callable[[str], bool] | None = None
) -> UninstallResult:
    """ask: a yes/no question on a terminal; None (headless) asks nothing and deletes no
    file of the user's that memevo did not make."""
    if only is not None and only not in CLIENTS:
        raise ValueError(f"unknown client {only!r}: one of {', '.join(CLIENTS)}")
    result = UninstallResult()
    if only is None:
        stop_service(say)
    writer = jsonfile.Writer()
    for client in [only] if only else CLIENTS:
        if not files(client).config_dir.exists():
            continue
        if only:  # first, so a running tray app's watcher does not restore what we remove
            state.update_client(client, registered=False, removed=True)
        outcome = unregister_client(client, writer)
        result.clients.append(outcome)
        for line in outcome.lines:
            say(f"{DISPLAY_NAMES[client]}: {line}")
        for problem in outcome.problems:
            say(f"{DISPLAY_NAMES[client]}: {problem}")
        if outcome.changed:
            result.restart.append(DISPLAY_NAMES[client])
    if only:
        lines: list[str] = []
        after_unregistered(only, lines)
        for line in lines:
            say(line)
    if only is None:
        _remove_install_state(result, say, ask)
    result.problems = [p for c in result.clients for p in c.problems] + result.problems
    result.ok = not result.problems
    if writer.backed_up:
        say("Backups of the changed client files: " + ", ".join(str(p) for p in writer.backed_up.values()))
    if result.restart:
        say("Restart " + ", ".join(result.restart) + " so the MCP server leaves their open sessions.")
    return result


def stop_service(say: Say, wait_s: float = 30.0) -> None:
    """Ask the tray app or service to quit, then wait for its lock: the store is closed after."""
    from ..core.service.client import ServiceUnavailable, call
    from ..core.service.server import InstanceLock

    try:
        call("shutdown", {}, timeout_s=5)
        say("Stopped the memevo service.")
    except ServiceUnavailable:
        return
    lock = InstanceLock()
    lock.acquire(wait_s)  # waits for the lock to be free; raises AlreadyRunning after wait_s
    lock.release()


def _remove_install_state(result: UninstallResult, say: Say, ask: Callable[[str], bool] | None) -> None:
    from ..core import paths
    from ..core.encoder.models import models_dir
    from ..core.learning.sessionid import KEY_FILE
    from ..core.privacy import side_api_key as secrets

    _autostart_off(say)
    models = models_dir()
    if models.exists() and _inside(models, paths.data_dir()):
        shutil.rmtree(models)
        say(f"Removed the embedding model ({models}).")
    elif models.exists():
        say(f"Kept the shared model cache {models} (MEMEVO_MODELS_DIR points there).")
    for name in ("config.json", KEY_FILE, "cache", "side"):  # side/: in-chat confirmation stashes
        target = paths.data_dir() / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    try:
        if secrets.clear_api_key():
            say("Removed the side API key from the OS keyring.")
    except Exception as exc:  # no keyring here: nothing stored there either
        say(f"The keyring was not reachable ({exc}); nothing removed from it.")
    _drop_pending_jobs(result, say)
    _offer_node_key_removal(say, ask)
    state.forget()
    say(f"Kept your memories, trash, memories.html and logs in {paths.data_dir()}.")


def _offer_node_key_removal(say: Say, ask: Callable[[str], bool] | None) -> None:
    """The Node tool kept the side API key in plain text in side-secret.json. It is the user's
    file, not ours: deleted only when they say so on a terminal."""
    from ..core.importers import legacy

    node_file = legacy.node_key_file()
    if not node_file.exists():
        return
    question = f"{node_file} holds the Node tool's side API key in plain text. Delete it?"
    if ask is not None and ask(question):
        node_file.unlink()
        say(f"Deleted {node_file}.")
    elif ask is None:
        say(
            f"Left {node_file} (the Node tool's side API key, in plain text); delete it when you no longer need it."
        )
    else:
        say(f"Kept {node_file}.")


def _autostart_off(say: Say) -> None:
    from . import autostart

    try:
        if autostart.disable():
            say("Start at login: removed.")
    except Exception as exc:  # a file of the same name that is not ours stays
        say(f"Start at login: {exc}")


def _drop_pending_jobs(result: UninstallResult, say: Say) -> None:
    from ..core import paths
    from ..core.learning import jobs
    from ..core.store.database import Store

    if not paths.store_path().exists():
        return
    try:
        with Store.open() as store:
            count = jobs.drop_pending(store)
    except Exception as exc:
        result.problems.append(f"pending side jobs were not removed: {exc}")
        return
    if count:
        say(f"Removed {count} pending side job(s).")


def _inside(child: Path, parent: Path) -> bool:
    try:
        child.resolve().relative_to(parent.resolve())
        return True
    except ValueError:
        return False
