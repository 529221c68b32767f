"""Whether this session has a desktop the tray app can show on, and why not when it has none.

Qt aborts the whole process (SIGABRT) when its platform plugin cannot load or cannot reach the
display: PySide6's xcb plugin needs libxcb-cursor0 and friends, which many desktops (and every
minimal or WSL install) lack, and a stale DISPLAY (ssh, WSL without an X server) is common.
`probe()` finds both before Qt is asked, cheaply enough for every start (one `ldd`, one
socket): the tray app then says why in one sentence and runs the headless service instead.

What the probe cannot foresee is caught by the tray start record: the tray app records its
start just before Qt creates the GUI and removes the record once the GUI is up. A record left
by a process that is gone means Qt killed the tray app on that display; starters (hooks, MCP
servers, commands) then start `memevo serve` there rather than a tray app that dies again.
A record is kept per data dir with the display it was made for: another display is tried
afresh, and a tray app that comes up on this one (the user fixed the desktop and ran `memevo`)
clears it. Starters read it without importing Qt (hooks/wire.py reads the same file)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...hooks import wire

PROBE_TIMEOUT_S = 3.0  # a DISPLAY on a host that does not answer: waited for this long, no more
LDD_TIMEOUT_S = 10.0
PROBLEM_FILE = "tray-problem.txt"  # why the running service is headless on a desktop
# Soname -> Debian/Ubuntu package, where the usual rule (libfoo-bar.so.N -> libfoo-barN) fails.
PACKAGE_EXCEPTIONS = {"libglib-2.0.so.0": "libglib2.0-0", "libgthread-2.0.so.0": "libglib2.0-0"}


def has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


@dataclass(frozen=True)
class Desktop:
    """platform: the Qt platform plugin to ask for (None: leave QT_QPA_PLATFORM as it is);
    problem: why the tray app cannot show here, one sentence (None: it can)."""

    platform: str | None = None
    problem: str | None = None


def probe(timeout_s: float = PROBE_TIMEOUT_S) -> Desktop:
    """Can Qt's GUI come up here? Checks the platforms Qt would try, in its order; the first
    that works is the one to use. Never hangs: the display is given timeout_s to answer."""
    if sys.platform in ("darwin", "win32"):  # Qt's own platforms there need no extra library
        return Desktop()
    chosen = os.environ.get("QT_QPA_PLATFORM", "")
    candidates = [name.split(":")[0] for name in chosen.split(";") if name] or _qt_default_order()
    problems = []
    for name in candidates:
        if name not in CHECKS:  # offscreen, minimal, vnc...: not about a desktop, nothing to check
            return Desktop()
        problem = CHECKS[name](timeout_s)
        if problem is None:
            return Desktop(platform=None if chosen else name)
        problems.append(problem)
    if not problems:
        return Desktop(problem="there is no display here (neither DISPLAY nor WAYLAND_DISPLAY is set)")
    return Desktop(problem="; ".join(problems))


def _qt_default_order() -> list[str]:
    """What QGuiApplication picks with no QT_QPA_PLATFORM: xcb, or wayland in a Wayland session
    that is not GNOME's; then the other one, which memevo asks for when the first fails."""
    order = []
    session = os.environ.get("XDG_SESSION_TYPE", "")
    desktops = (os.environ.get("XDG_CURRENT_DESKTOP", "") + os.environ.get("XDG_SESSION_DESKTOP", "")).lower()
    if os.environ.get("WAYLAND_DISPLAY") and session == "wayland" and "gnome" not in desktops:
        order.append("wayland")
    if os.environ.get("DISPLAY"):
        order.append("xcb")
    if os.environ.get("WAYLAND_DISPLAY") and "wayland" not in order:
        order.append("wayland")
    return order


# -- xcb ------------------------------------------------------------------------------------------------
def _check_xcb(timeout_s: float) -> str | None:
    display = os.environ.get("DISPLAY", "")
    if not display:
        return "Qt is asked for X11 (xcb) but DISPLAY is not set"
    unreachable = _bounded(lambda: _x_unreachable(display, timeout_s), timeout_s)
    if unreachable is not None:
        return f"the X display DISPLAY={display} cannot be reached ({unreachable})"
    missing = missing_libraries("libqxcb.so")
    if missing:
        return _missing_sentence("X11 (xcb)", missing)
    refused = _bounded(lambda: _xcb_refuses(display), timeout_s)
    if refused is not None:
        return f"the X server at DISPLAY={display} refused the connection ({refused})"
    return None


def _x_unreachable(display: str, timeout_s: float) -> str | None:
    """Open the X server's socket as libxcb would (abstract socket, then the file; TCP for a
    host): None when something listens. Only reachability: authorization is _xcb_refuses'."""
    match = re.fullmatch(r"(?P<host>[^:]*?)(?P<unix>/unix)?:(?P<number>\d+)(?:\.\d+)?", display)
    if match is None:
        return "it is not a display name like :0 or host:10.0"
    host, number = match["host"] or "", int(match["number"])
    if host in ("", "unix") or match["unix"] or host.startswith("/"):  # "host/unix:0" is local too
        path = f"/tmp/.X11-unix/X{number}"
        last = "no X server listens on it"
        for address in ("\0" + path, path) if sys.platform.startswith("linux") else (path,):
            why = _unix_refuses(address, timeout_s)
            if why is None:
                return None
            last = why
        return f"{path}: {last}"
    try:
        with socket.create_connection((host, 6000 + number), timeout=timeout_s):
            return None
    except OSError as exc:
        return f"{host} port {6000 + number}: {exc.strerror or exc}"


def _unix_refuses(address: str, timeout_s: float) -> str | None:
    """Why a Unix socket (an X server's, a Wayland compositor's) takes no connection, or None."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout_s)
            conn.connect(address)
        return None
    except OSError as exc:
        return exc.strerror or str(exc)


def _xcb_refuses(display: str) -> str | None:
    """Connect with libxcb itself, which Qt uses: an X server that turns memevo away (a stale
    XAUTHORITY over ssh, `xhost` rules) fails here as it would fail Qt."""
    import ctypes

    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError:
        return None  # missing_libraries said so already
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    conn = xcb.xcb_connect(display.encode(), None)
    try:
        error = int(xcb.xcb_connection_has_error(conn))
    finally:
        xcb.xcb_disconnect(conn)
    if error == 0:
        return None
    if error == 1:
        return "not authorized, or it closed the connection: check XAUTHORITY"
    return f"libxcb error {error}"


# -- wayland --------------------------------------------------------------------------------------------
def _check_wayland(timeout_s: float) -> str | None:
    name = os.environ.get("WAYLAND_DISPLAY", "")
    if not name:
        return "Qt is asked for Wayland but WAYLAND_DISPLAY is not set"
    path = name if name.startswith("/") else os.path.join(os.environ.get("XDG_RUNTIME_DIR", ""), name)

    def unreachable() -> str | None:
        why = _unix_refuses(path, timeout_s)
        return None if why is None else f"{path}: {why}"

    why = _bounded(unreachable, timeout_s)
    if why is not None:
        return f"the Wayland display WAYLAND_DISPLAY={name} cannot be reached ({why})"
    missing = missing_libraries("libqwayland.so")
    return _missing_sentence("Wayland", missing) if missing else None


CHECKS = {"xcb": _check_xcb, "wayland": _check_wayland}


# -- the platform plugins' libraries --------------------------------------------------------------------
def plugin_path(plugin: str) -> Path | None:
    """PySide6's platform plugin file, found without importing PySide6."""
    import importlib.util

    spec = importlib.util.find_spec("PySide6")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "Qt" / "plugins" / "platforms" / plugin
        if path.is_file():
            return path
    return None


def missing_libraries(plugin: str) -> list[str]:
    """The shared libraries the plugin (and the Qt libraries it loads) needs and the dynamic
    loader cannot find or load, as `ldd` says: "libxcb-cursor.so.0 => not found", or "error
    while loading shared libraries: /lib/…/libxcb-cursor.so.0: file too short" for a broken one.
    Empty when all are there, or when it cannot be known (no PySide6, no ldd): Qt then says.
    Not `ldd -r`: symbols it calls undefined may be provided at run time on other systems, and
    a working desktop must never be taken for a broken one (the start record catches the rest)."""
    path = plugin_path(plugin)
    if path is None:
        return []
    try:
        done = subprocess.run(
            ["ldd", str(path)], capture_output=True, text=True, timeout=LDD_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    missing = [line.split()[0] for line in done.stdout.splitlines() if "=> not found" in line]
    for line in (done.stdout + done.stderr).splitlines():
        _, marker, broken = line.partition("error while loading shared libraries: ")
        if marker:
            missing.append(broken.strip())  # "/lib/…/libxcb-cursor.so.0: file too short"
    return list(dict.fromkeys(missing))


def debian_package(soname: str) -> str:
    """libxcb-cursor.so.0 -> libxcb-cursor0, libxkbcommon-x11.so.0 -> libxkbcommon-x11-0."""
    soname = soname.split(":")[0].rsplit("/", 1)[-1]  # "/lib/…/libfoo.so.1: file too short" too
    if soname in PACKAGE_EXCEPTIONS:
        return PACKAGE_EXCEPTIONS[soname]
    stem, _, version = soname.partition(".so.")
    version = version.split(".")[0]
    return f"{stem.lower()}{'-' if stem[-1:].isdigit() else ''}{version}"


def _missing_sentence(platform: str, missing: list[str]) -> str:
    packages = " ".join(dict.fromkeys(debian_package(name) for name in missing))
    if all(":" not in name for name in missing):
        return (
            f"Qt's {platform} platform needs system libraries that are not installed "
            f"({', '.join(missing)}; on Debian or Ubuntu: `sudo apt install {packages}`)"
        )
    return (
        f"Qt's {platform} platform needs system libraries that are missing or cannot be loaded "
        f"({'; '.join(missing)}; on Debian or Ubuntu: `sudo apt install --reinstall {packages}`)"
    )


def _bounded(check: Callable[[], str | None], timeout_s: float) -> str | None:
    """Run a check on a daemon thread for at most timeout_s: a name lookup or a connect to a
    host that never answers cannot hold the tray's start (the thread is left to finish alone)."""
    result: list[str | None] = []
    thread = threading.Thread(target=lambda: result.append(check()), daemon=True)
    thread.start()
    thread.join(timeout_s)
    if not result:
        return f"no answer within {timeout_s:g} s"
    return result[0]


# -- the tray start record ------------------------------------------------------------------------------
def _record_path() -> Path:
    """Its name, its display key and its reading are the wire's (hooks/wire.py), which every
    starter (the hooks among them) reads."""
    from .. import paths

    return paths.data_dir() / wire.TRAY_START_RECORD


def _this_display() -> str:
    return wire.this_display()


def record_tray_start() -> None:
    """Just before Qt creates the GUI: a record the tray app removes once the GUI is up."""
    with contextlib.suppress(OSError):
        path = _record_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {"pid": os.getpid(), "display": _this_display(), "at": time.time()}
        path.write_text(json.dumps(record), encoding="utf-8")


def tray_came_up() -> None:
    with contextlib.suppress(OSError):
        _record_path().unlink(missing_ok=True)
        _record_path().with_name(PROBLEM_FILE).unlink(missing_ok=True)


def remember_problem(sentence: str) -> None:
    """Why a tray app served headless instead: a tray started by a hook says it in a log nobody
    reads, so `memevo service` repeats it while that service runs."""
    with contextlib.suppress(OSError):
        path = _record_path().with_name(PROBLEM_FILE)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(sentence, encoding="utf-8")


def remembered_problem() -> str | None:
    try:
        return _record_path().with_name(PROBLEM_FILE).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def tray_died_here() -> bool:
    """A tray app started on this display died before its GUI came up (Qt aborted it)."""
    return wire.tray_died_here()
