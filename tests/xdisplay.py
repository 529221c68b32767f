"""A real X display for the tray tests: Xvfb on a free display number, openbox as the window
manager (dialogs get frames, focus and stacking as on a desktop) and trayer as the system tray
(the tray icon is embedded in it), all stopped afterwards. tests/setup-and-test.sh installs them.

Also the two broken desktops met in use, made for real: a display number nothing listens on,
and a command line that runs with system libraries hidden from the dynamic loader (a private
mount namespace, root only) — what a fresh Debian desktop without libxcb-cursor0 looks like."""

from __future__ import annotations

import ctypes
import os
import select
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from deadlines import HANG_S

TOOLS = ("Xvfb", "openbox", "trayer", "xdotool", "xwininfo")
# Found when this module is imported: a test may empty PATH afterwards (no `claude` CLI
# reachable, tests/test_wizard.py) and still ask what the X server shows.
_FOUND = {tool: shutil.which(tool) or tool for tool in TOOLS}
LIBRARY_DIR = Path("/usr/lib/x86_64-linux-gnu")


def require_tools() -> None:
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed: tests/setup-and-test.sh installs them")


@contextmanager
def x_display(window_manager: bool = True, system_tray: bool = True) -> Iterator[str]:
    """Yields the DISPLAY of a fresh Xvfb (with openbox and trayer running on it)."""
    require_tools()
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    helpers: list[subprocess.Popen[bytes]] = []
    # openbox and trayer keep logs and sessions under HOME (~/.cache/openbox): theirs is a
    # throwaway one, whatever HOME is when a module-scoped fixture starts them (the real one).
    own_home = tempfile.TemporaryDirectory(prefix="memevo-xhome-")
    try:
        display = ":" + _read_display_number(read, server)
        env = dict(os.environ, DISPLAY=display, HOME=own_home.name) | {
            name: str(Path(own_home.name) / sub)
            for name, sub in (("XDG_CACHE_HOME", ".cache"), ("XDG_CONFIG_HOME", ".config"))
        }
        if window_manager:
            helpers.append(subprocess.Popen(["openbox", "--sm-disable"], env=env, **_quiet()))
            _wait_for("openbox to manage the screen", lambda: _root_has(display, "_NET_SUPPORTING_WM_CHECK"))
        if system_tray:
            helpers.append(
                subprocess.Popen(
                    [
                        "trayer",
                        "--edge",
                        "top",
                        "--align",
                        "right",
                        "--widthtype",
                        "request",
                        "--height",
                        "28",
                    ],
                    env=env,
                    **_quiet(),
                )
            )
            _wait_for(
                "trayer to own the system tray", lambda: selection_owned(display, "_NET_SYSTEM_TRAY_S0")
            )
        yield display
    finally:
        os.close(read)
        for proc in [*helpers, server]:
            proc.terminate()
            try:
                proc.wait(HANG_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        own_home.cleanup()


def _quiet() -> dict[str, int]:
    return {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}


def _read_display_number(read: int, server: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + HANG_S
    text = b""
    while not text.endswith(b"\n") and time.monotonic() < deadline:
        ready, _, _ = select.select([read], [], [], 1.0)
        if ready:
            chunk = os.read(read, 64)
            if not chunk:
                break
            text += chunk
        elif server.poll() is not None:
            break
    if not text.strip():
        raise AssertionError(f"Xvfb did not start (exit {server.poll()})")
    return text.decode().strip()


def _wait_for(what: str, check: object) -> None:
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _root_has(display: str, prop: str) -> bool:
    done = subprocess.run(
        ["xprop", "-display", display, "-root", prop], capture_output=True, text=True, timeout=HANG_S
    )
    return "window id" in done.stdout


def selection_owned(display: str, name: str) -> bool:
    """Whether an X client owns the selection (trayer's _NET_SYSTEM_TRAY_S0): asked through
    libxcb, as no command-line tool here says it."""

    class Cookie(ctypes.Structure):
        _fields_ = [("sequence", ctypes.c_uint)]

    class AtomReply(ctypes.Structure):
        _fields_ = [("type", ctypes.c_uint8), ("pad", ctypes.c_uint8), ("seq", ctypes.c_uint16)]
        _fields_ += [("length", ctypes.c_uint32), ("value", ctypes.c_uint32)]

    xcb = ctypes.CDLL("libxcb.so.1")
    libc = ctypes.CDLL(None)
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_intern_atom.restype = Cookie
    xcb.xcb_intern_atom.argtypes = [ctypes.c_void_p, ctypes.c_uint8, ctypes.c_uint16, ctypes.c_char_p]
    xcb.xcb_intern_atom_reply.restype = ctypes.POINTER(AtomReply)
    xcb.xcb_intern_atom_reply.argtypes = [ctypes.c_void_p, Cookie, ctypes.c_void_p]
    xcb.xcb_get_selection_owner.restype = Cookie
    xcb.xcb_get_selection_owner.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    xcb.xcb_get_selection_owner_reply.restype = ctypes.POINTER(AtomReply)
    xcb.xcb_get_selection_owner_reply.argtypes = [ctypes.c_void_p, Cookie, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    libc.free.argtypes = [ctypes.c_void_p]
    conn = xcb.xcb_connect(display.encode(), None)
    try:
        if xcb.xcb_connection_has_error(conn):
            return False
        atom = xcb.xcb_intern_atom_reply(conn, xcb.xcb_intern_atom(conn, 0, len(name), name.encode()), None)
        atom_value = atom.contents.value
        libc.free(atom)
        owner = xcb.xcb_get_selection_owner_reply(conn, xcb.xcb_get_selection_owner(conn, atom_value), None)
        owner_value = owner.contents.value
        libc.free(owner)
        return bool(owner_value)
    finally:
        xcb.xcb_disconnect(conn)


def viewable_windows(display: str) -> list[str]:
    """The names of the windows the X server shows (mapped and viewable), as xwininfo lists them."""
    done = subprocess.run(
        [_FOUND["xwininfo"], "-display", display, "-root", "-tree"],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    names = []
    for line in done.stdout.splitlines():
        line = line.strip()
        if line.startswith("0x") and '"' in line:
            window = line.split()[0]
            info = subprocess.run(
                [_FOUND["xwininfo"], "-display", display, "-id", window],
                capture_output=True,
                text=True,
                timeout=HANG_S,
            ).stdout
            if "IsViewable" in info:
                names.append(line.split('"')[1])
    return names


def click(display: str, x: int, y: int, button: int = 1) -> None:
    """A real pointer click through the X server (XTEST), as a user's mouse makes it."""
    subprocess.run(
        ["xdotool", "mousemove", "--sync", str(x), str(y), "click", str(button)],
        env=dict(os.environ, DISPLAY=display),
        check=True,
        timeout=HANG_S,
    )


def unreachable_display() -> str:
    """A display number no X server listens on (neither its socket file nor the abstract one)."""
    for number in range(150, 400):
        path = f"/tmp/.X11-unix/X{number}"
        if os.path.exists(path):
            continue
        with socket.socket(socket.AF_UNIX) as probe:
            try:
                probe.connect("\0" + path)
            except OSError:
                return f":{number}"
    raise AssertionError("no free display number")


def hiding_libraries(names: list[str], workdir: Path, replace_with: str | None = None) -> list[str]:
    """A command prefix that runs its command where the dynamic loader cannot find `names`
    (sonames in the system library folder), or finds `replace_with` (another library's file) in
    their place: a private mount namespace in which that folder is a bind mount of links to
    every other file. The real folder is untouched; other processes see nothing of it."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("hiding system libraries needs root and unshare (a private mount namespace)")
    if not LIBRARY_DIR.is_dir():
        pytest.skip(f"no {LIBRARY_DIR} here")
    original, shadow = workdir / "lib-original", workdir / "lib-shadow"
    original.mkdir()
    shadow.mkdir()
    # The shadow folder, made once here: a link to every file of the real folder, as seen at
    # `original` inside the namespace, except the hidden ones (or links to the stand-in).
    for entry in LIBRARY_DIR.iterdir():
        if any(entry.name.startswith(name) for name in names):
            if replace_with is not None:
                (shadow / entry.name).symlink_to(original / replace_with)
            continue
        (shadow / entry.name).symlink_to(original / entry.name)
    script = workdir / "hide-libraries.sh"
    script.write_text(
        f"""set -e
mount --bind "{LIBRARY_DIR}" "{original}"
mount --bind "{shadow}" "{LIBRARY_DIR}"
exec "$@"
""",
        encoding="utf-8",
    )
    return ["unshare", "--mount", "--propagation", "private", "sh", str(script)]
