"""Is a memevo service there, and starting one on demand.

Whatever needs a service (a hook, an MCP server, a command that lost its connection) starts
the same thing: the tray app in a desktop session, `memevo serve` otherwise. A starter waits
for the instance lock (`--wait-lock`), so two starters never fight, and a spawn guard keeps a
burst of callers from starting several.
"""

from __future__ import annotations

import os
import threading

from ...hooks import wire
from .. import envvars
from ..process import display
from ..process.display import has_display
from . import protocol

DIED_HERE = (
    "memevo: the tray app started on this display died before its window came up (see above);"
    " starting the headless service (`memevo serve`) instead\n"
)


def service_mode() -> str:
    """The tray app where there is a desktop (its native dialogs need it), else headless.

    A tray app that cannot show on this desktop says why and serves headless by itself
    (core/process/display.py probes before Qt is asked); one that Qt killed anyway left its start
    record behind, and then this display gets the headless service right away."""
    if not has_display() or envvars.HEADLESS.is_set_to("1") or display.tray_died_here():
        return "serve"
    return "tray"


def lock_held() -> bool:
    """A memevo service (running, or starting and not listening yet) holds the instance lock.

    Probing takes the lock for an instant when it is free; services therefore wait a moment
    for it (`--wait-lock`) rather than failing at once."""
    path = protocol.lock_path()
    if not path.exists():
        return False
    try:
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError:
        return False
    with handle:
        if os.name == "nt":  # pragma: no cover - Windows only
            import msvcrt

            try:
                msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
            except OSError:
                return True
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]
            return False
        import fcntl

        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return False


def start_detached(mode: str | None = None) -> bool:
    """Start the service in the background (hooks/wire.py: the one rule and guard window every
    starter shares) unless one was started a moment ago."""
    mode = mode or service_mode()
    note = DIED_HERE if mode == "serve" and display.tray_died_here() else None
    try:
        child = wire.start_service(mode, note)  # beside Qt's own words from the dead start
    except OSError:
        return False
    if child is None:
        return False
    # A long-lived starter (an MCP server) reaps it when it exits, so `memevo service stop`
    # leaves no zombie behind; a short-lived one exits first and init adopts the service.
    threading.Thread(target=child.wait, name="memevo-reap", daemon=True).start()  # type: ignore[attr-defined]
    return True
