"""The one setup engine behind `memevo setup` and the installer wizard.

Order (the seed's): write the user's choices into the data dir; provision the model — if that
fails, stop before registering anything, with one reason; register every installed client;
autostart; then the notes and which clients to restart."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import jsonfile, state
from . import messages as m
from .clients import CLIENTS, DISPLAY_NAMES, REGISTRY, ClientResult, files, installed, register_client
from .messages import Message

# Each line is a Message (installer/messages.py): its English on a terminal, its code for the desktop.
Say = Callable[[str], None]


@dataclass
class Choices:
    """None means: ask nothing, change nothing (no terminal, no GUI, --only, --repair)."""

    learning: str | None = None  # the config's `learning`: auto, side, client or off
    confirm: bool | None = None
    side_base: str | None = None
    side_model: str | None = None
    side_key: str | None = None
    # Claude Code: memory_propose without a prompt (either answer takes out the memory_resolve
    # rule earlier versions added); the name is the one earlier versions gave it
    allow_resolve: bool | None = None
    autostart: bool | None = None


@dataclass
class SetupResult:
    ok: bool = True
    reason: str = ""
    clients: list[ClientResult] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    restart: list[str] = field(default_factory=list)
    backups: list[str] = field(default_factory=list)
    legacy_found: bool = False
    states: list[Any] = field(default_factory=list)  # client_state.ClientState of each client set up


class SetupStopped(Exception):
    pass


def run(
    choices: Choices,
    only: str | None = None,
    repair: bool = False,
    progress: Any = None,
    say: Say = print,
    provision_model: Callable[[Any], Any] | None = None,
) -> SetupResult:
    result = SetupResult()
    if only is not None and only not in CLIENTS:
        raise SetupStopped(f"unknown client {only!r}: one of {', '.join(CLIENTS)}")
    if only is None and not repair:
        write_choices(choices, say)
    try:
        say(Message(m.CHECKING_MODEL))
        (provision_model or _provision)(progress)
        say(Message(m.MODEL_READY))
    except Exception as exc:
        result.ok, result.reason = False, Message(m.MODEL_FAILED, why=str(exc))
        say(Message(m.STOPPED, reason=result.reason))
        return result
    present = installed()
    targets = [only] if only else _targets(present, repair)
    result.skipped = [c for c in CLIENTS if c not in targets and only is None]
    writer = jsonfile.Writer()
    for client in targets:
        if not files(client).installed:
            say(Message(m.NOT_INSTALLED, client=DISPLAY_NAMES[client], path=str(files(client).config_dir)))
            result.skipped.append(client)
            continue
        outcome = register_client(client, writer, choices.allow_resolve)
        result.clients.append(outcome)
        _report(outcome, say)
        if outcome.hooks_ok:  # a skill or MCP problem is reported, but the hooks are ours to keep
            state.update_client(client, registered=True, removed=False, repair=True)
        if outcome.changed and not outcome.manual_command:  # no MCP server registered: nothing to load
            result.restart.append(DISPLAY_NAMES[client])
    _autostart(choices.autostart, refresh=repair or only is None, say=say)
    state.mark_setup_run()
    _write_fallback_texts()
    result.backups = [str(p) for p in writer.backed_up.values()]
    result.ok = all(c.ok for c in result.clients)
    if not result.ok:
        result.reason = m.joined([p for c in result.clients for p in c.problems])
    result.legacy_found = _legacy_waiting()
    _closing_words(result, say)
    return result


def _targets(present: list[str], repair: bool) -> list[str]:
    if not repair:
        return present
    removed = {name for name, entry in state.load()["clients"].items() if entry.get("removed")}
    return [c for c in present if c not in removed]


def write_choices(choices: Choices, say: Say) -> None:
    from ..core import config as config_mod
    from ..core import paths

    paths.ensure_data_dir()
    if choices.learning is not None:
        config_mod.set_key("learning", choices.learning)
        # The Node tool's blocking mode (sideJudge=false, kept by import-legacy) holds learning
        # off "until setup": choosing how to learn here is that step, as configuring the side
        # API always was (config.set_key drops it then too).
        config_mod.unset_key("sideJudge")
    if choices.confirm is not None:
        config_mod.set_key("confirm", choices.confirm)
    if choices.side_base:
        config_mod.set_key("sideApiBase", choices.side_base)
    if choices.side_model:
        config_mod.set_key("sideApiModel", choices.side_model)
    if choices.side_key:
        from ..core.privacy import side_api_key as secrets

        try:
            secrets.set_api_key(choices.side_key)
            say(Message(m.KEY_IN_KEYRING))
        except Exception as exc:  # no keyring: say how to set it, lose nothing else
            say(Message(m.KEY_NOT_SAVED, why=str(exc)))


def _provision(progress: Any) -> Any:
    from ..core.encoder.provision import provision
    from ..core.process.runtime import configured_model

    return provision(configured_model(), progress)


def _autostart(wanted: bool | None, refresh: bool, say: Say) -> None:
    """wanted: on, off, or None to keep the user's choice. refresh (every setup but a plain
    `--only CLIENT`): our entry, when its command is not today's (an older version's without
    -P, an interpreter that moved), is rewritten."""
    try:
        from . import autostart
    except ImportError:  # pragma: no cover - shipped together
        return
    try:
        if wanted is True:
            say(Message(m.AUTOSTART_ON, path=str(autostart.enable())))
        elif wanted is False and autostart.status()["ours"]:
            autostart.disable()
            say(Message(m.AUTOSTART_OFF))
        elif refresh and (current := autostart.status()).get("stale") and current.get("enabled"):
            # one switched off at the desktop stays as the user left it (it never runs anyway)
            say(Message(m.AUTOSTART_UPDATED, path=str(autostart.enable())))
    except (autostart.AutostartNotOurs, OSError) as exc:  # someone else's file of that name stays
        say(Message(m.AUTOSTART_NOT_CHANGED, why=str(exc)))


def _write_fallback_texts() -> None:
    """The first session start after install may come before any service runs: the hooks
    then inject the cached rules, so write them now (a running service keeps its own)."""
    from ..core.service import fallback_texts as caches

    caches.write_without_service()


def _legacy_waiting() -> bool:
    """The Node tool's files are here and memevo's store is not yet: offer the import."""
    from ..core import paths
    from ..core.importers import legacy

    return legacy.legacy_files_present() and not paths.store_path().exists()


def _report(outcome: ClientResult, say: Say) -> None:
    name = DISPLAY_NAMES[outcome.client]
    if outcome.problems:
        for problem in outcome.problems:
            say(Message(m.CLIENT_SAYS, client=name, line=problem))
    if not outcome.changed and not outcome.problems and not outcome.manual_command:
        say(Message(m.CLIENT_SAYS, client=name, line=Message(m.UNCHANGED)))
        return
    for line in outcome.lines:
        say(Message(m.CLIENT_SAYS, client=name, line=line))


def _closing_words(result: SetupResult, say: Say) -> None:
    registered = {c.client for c in result.clients}
    for client in REGISTRY:
        for note in client.notes if client.name in registered else ():
            say(Message(m.NOTE, client=client.display, note=note))
    if result.backups:
        say(Message(m.BACKUPS, files=", ".join(result.backups)))
    if result.legacy_found:
        say(Message(m.LEGACY_FOUND))
    if len(result.restart) == 1:
        say(Message(m.RESTART_ONE, client=result.restart[0]))
    elif result.restart:
        say(Message(m.RESTART_MANY, clients=", ".join(result.restart)))
    _states(result, say)


def once(say: Say) -> Say:
    """`say` for a reader of the whole run at once (a terminal): a command to run by hand that
    a client's own line already gave, where it says why (Claude Code without its `claude`
    binary), is not given again under that client's state at the end. The engine still says
    every line: the wizard's log reads them one by one and drops the repeat the same way."""
    said: list[str] = []

    def say_once(line: str) -> None:
        if repeats_a_command(line, said):
            return
        said.append(line)
        say(line)

    return say_once


def repeats_a_command(line: str, earlier: list[str]) -> bool:
    """A "run: COMMAND" line whose command an earlier line already gave (the terminal's `once`
    and the wizard's log both drop it)."""
    command = getattr(line, "params", {}).get("command") if getattr(line, "code", "") == m.RUN else None
    return isinstance(command, str) and bool(command) and any(command in str(before) for before in earlier)


def _states(result: SetupResult, say: Say) -> None:
    """Last, each client's state as the tray and the wizard say it (installer/client_state):
    the hooks and the MCP server apart, and the one command memevo could not run itself."""
    from . import client_state

    for outcome in result.clients:
        current = client_state.read(outcome.client)
        result.states.append(current)
        say(current.title())
        if current.command:
            say(Message(m.RUN, command=current.command))
