"""The plain-text copies hooks fall back on when no service answers in time.

Session start must inject the rules even with no service, one that is starting, or one that
is hung (SIGSTOP): the hook then reads `cache/session-start-<flavor>.txt`. Every writer keeps
these current — the service after each change, a command that wrote to the store itself
(no service running), and setup — so the very first session after install has the rules.
"""

from __future__ import annotations

import logging
import stat
import threading
from pathlib import Path

from ...hooks import client_table
from .. import atomic, paths
from .. import config as config_mod
from ..learning import readiness
from ..memories import live as memories
from ..store.database import Store
from . import texts

log = logging.getLogger("memevo.service")
FLAVORS = client_table.flavors()
SESSION_START_RULES = 50
DEFAULT_MAX_CHARS = 10_000  # Claude Code's cap for one injection; the others document none
_write_lock = threading.Lock()


def learning_text(config: config_mod.Config, has_key: bool, flavor: str) -> str | None:
    """What the session start says of learning in place of the side judge's duties: the
    client-mode duties, the 「记忆沉淀未启用」 text while learning is off, else None."""
    state = readiness.state(config, has_key)
    if state.mode == readiness.CLIENT:
        return texts.client_duties(flavor)
    if state.active:
        return None
    return texts.learning_off(flavor, state.legacy_blocking, state.chosen == readiness.OFF)


def session_start_text(
    store: Store | None,
    config: config_mod.Config,
    has_key: bool,
    flavor: str,
    max_chars: int,
    repo: str | None = None,
    rules: list[memories.Memory] | None = None,
) -> tuple[str, list[str]]:
    """Byte-identical from session to session while the rules stay the same: nothing here
    depends on the time, the session or the client's max_chars above the configured budget
    (ties go by creation, never by last use), so the clients' prompt caches keep working.
    repo: the session's repository (its rules scoped by hand join the global ones); the
    fallback files hold the global rules only. rules: those already read for `repo`."""
    if rules is None:
        rules = memories.session_rules(store, SESSION_START_RULES, repo) if store else []
    budget = min(max_chars, int(config["sessionStartChars"]))
    text, shown = texts.session_start(
        flavor,
        [texts.with_stale_note(m.text, m.stale) if m.stale else m.text for m in rules],
        learning_text(config, has_key, flavor),
        budget,
    )
    return text, [m.id for m in rules[:shown]]


def prompt_reminder(config: config_mod.Config, has_key: bool, flavor: str, side_failing: bool = False) -> str:
    """side_failing: learning is set up but the side API's last call failed (the service knows;
    the fallback files, written for no service, never say it)."""
    state = readiness.state(config, has_key)
    if state.mode == readiness.CLIENT:
        return texts.client_reminder(flavor)
    if not state.active:
        return texts.learning_off(flavor, state.legacy_blocking, state.chosen == readiness.OFF)
    return texts.reminder(flavor) + (texts.side_failing() if side_failing else "")


def write(store: Store | None, has_key: bool) -> None:
    """Render and write every flavor's fallback texts (atomic, user-only). Never raises. The
    rules are read once for every flavor, and a file that already holds its text is left as it
    is (a service's start, and most writes, change none of them: six fsyncs saved)."""
    with _write_lock:
        try:
            config = config_mod.load()
            folder = paths.data_dir() / "cache"
            rules = memories.session_rules(store, SESSION_START_RULES) if store and config["enabled"] else []
            for flavor in FLAVORS:
                if config["enabled"]:
                    start, _ = session_start_text(
                        store, config, has_key, flavor, DEFAULT_MAX_CHARS, rules=rules
                    )
                    reminder = prompt_reminder(config, has_key, flavor)
                else:
                    start = reminder = ""
                _write_if_changed(folder / f"session-start-{flavor}.txt", start)
                _write_if_changed(folder / f"prompt-reminder-{flavor}.txt", reminder)
        except Exception:
            log.warning("could not refresh the fallback texts", exc_info=True)


def _write_if_changed(path: Path, text: str) -> None:
    try:
        if path.read_text(encoding="utf-8") == text and stat.S_IMODE(path.stat().st_mode) == 0o600:
            return
    except (OSError, ValueError):  # absent, unreadable or not UTF-8: written again
        pass
    atomic.write_text(path, text, mode=0o600)


def write_without_service() -> bool:
    """For setup and commands that ran without a service: read the store (if there is one)
    and write the texts. False when a service holds the store (it keeps them current)."""
    from ..privacy import side_api_key as secrets
    from ..store.database import open_existing
    from .spawn import lock_held

    if lock_held():
        return False
    try:
        store = open_existing(read_only=True, lock_wait_s=1.0)
    except Exception:  # busy with another command: that command refreshes them
        log.warning("could not read the store for the fallback texts", exc_info=True)
        return False
    try:
        write(store, secrets.has_api_key(quiet=True))
    finally:
        if store is not None:
            store.close()
    return True
