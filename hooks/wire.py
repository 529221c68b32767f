"""The wire between every memevo process and the service, defined once: the protocol version,
the data folder, the installed build, the socket a client connects to, and the rule that starts
the service (with its one guard window).

The relay hook, the hook's own path (hookio.py), the service and every other client of it
(core/service/protocol.py, client.py, spawn.py) read it from here. Standard library only, and
cheap to import: the relay hook imports it on every prompt, so it imports `posix` (what `os`
wraps) rather than `os`, and `subprocess` only when it starts the service. Typed, because core
calls it.
"""

import sys
import time

if sys.platform == "win32":  # `nt` differs (str environ, drive letters): `os` itself there
    import os as _os

    SEP = "\\"

    def env(name: str) -> "str | None":
        return _os.environ.get(name)

    def abspath(path: str) -> str:
        return _os.path.abspath(path)

    def expanduser(path: str) -> str:
        return _os.path.expanduser(path)

else:
    import posix as _os  # what `os` wraps, without the millisecond `os` costs to import

    SEP = "/"

    def env(name: str) -> "str | None":
        value = _os.environ.get(name.encode())
        if value is None:
            return None
        return value.decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())

    def abspath(path: str) -> str:
        """posixpath.abspath."""
        if not path.startswith("/"):
            path = _os.getcwd() + "/" + path
        parts: list[str] = []
        for part in path.split("/"):
            if part == "..":
                if parts:
                    parts.pop()
            elif part and part != ".":
                parts.append(part)
        root = "//" if path.startswith("//") and not path.startswith("///") else "/"  # as POSIX says
        return root + "/".join(parts)

    def expanduser(path: str) -> str:
        """posixpath.expanduser for `~` and `~/…` from HOME; anything else by posixpath itself."""
        home = env("HOME") if path.startswith("~") and path[1:2] in ("", "/") else None
        if home is None:
            if not path.startswith("~"):
                return path
            import os

            return os.path.expanduser(path)
        return (home.rstrip("/") + path[1:]) or "/"


PROTOCOL_VERSION = 1
HOME_VARIABLE = "MEMEVO_HOME"
DEFAULT_FOLDER = ".memory-self-evolution"  # under the user's home
SOCKET_FILE = "memevo.sock"
ENDPOINT_FILE = "service-endpoint.json"  # Windows (or MEMEVO_TRANSPORT=tcp): port and token
TRANSPORT_VARIABLE = "MEMEVO_TRANSPORT"
# The command line's module, as `python -m` runs it (installer/entries.py registers the same).
CLI_MODULE = "memevo.cli"
# One start per burst of callers: a start newer than this is taken to be on its way. The service
# started waits as long for the instance lock (`--wait-lock`), so two starters never fight.
SPAWN_GUARD_S = 15.0
SPAWN_GUARD_FILE = "service.spawned"
TRAY_START_RECORD = "tray-start.json"  # core/process/display.py writes it; see tray_died_here
# Left by the tray's "Quit memevo": no starter starts memevo again until the user does (the
# tray app, `memevo serve`, a login start), which removes it. Pause is the off switch that
# keeps memevo running; Quit is the user's word that it should not be.
QUIT_FILE = "quit-by-user"


def join(folder: str, name: str) -> str:
    return folder + name if folder.endswith(SEP) else folder + SEP + name


def data_dir() -> str:
    """MEMEVO_HOME, else ~/.memory-self-evolution (core/paths.py's data_dir is this, as a Path)."""
    override = env(HOME_VARIABLE)
    if override:
        return expanduser(override)
    return join(expanduser("~"), DEFAULT_FOLDER)


def build() -> "str | None":
    """The installed version: `__version__` of core/__init__.py beside this hooks folder (the
    files on disk, which after an upgrade in place differ from what a running service loaded)."""
    here = abspath(__file__).rpartition(SEP)[0]
    path = join(join(here.rpartition(SEP)[0], "core"), "__init__.py")
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("__version__"):
                    return line.split("=", 1)[1].strip().strip("\"'")
    except OSError:
        pass
    return None


def uses_tcp() -> bool:
    return env(TRANSPORT_VARIABLE) == "tcp" or sys.platform == "win32"


def remaining(deadline: float) -> float:
    """Seconds left until `deadline` (time.monotonic()); TimeoutError when none are."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("timed out")
    return left


def connect(deadline: float) -> "tuple[object, str | None]":
    """(connected socket, token or None): the service's Unix socket (mode 600); loopback TCP
    with the token the service keeps in a user-only file on Windows (or MEMEVO_TRANSPORT=tcp).

    Raises FileNotFoundError / ConnectionRefusedError (no service), TimeoutError, other OSError,
    or ValueError / IndexError for an endpoint file that cannot be read. The socket is
    `_socket.socket`, which `socket.socket` extends: no `socket` module on the hook's path."""
    import _socket

    if uses_tcp():
        with open(join(data_dir(), ENDPOINT_FILE), encoding="utf-8") as handle:
            text = handle.read()  # {"port": 40123, "token": "<hex>", "pid": 7}, written by the service
        port = int(text.split('"port":', 1)[1].split(",", 1)[0].split("}", 1)[0])
        token: str | None = text.split('"token":', 1)[1].split('"', 2)[1]
        conn = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
        address: object = ("127.0.0.1", port)
    else:
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        token, address = None, join(data_dir(), SOCKET_FILE)
    try:
        conn.settimeout(remaining(deadline))
        conn.connect(address)
    except BaseException:
        conn.close()
        raise
    return conn, token


# -- starting the service ------------------------------------------------------------------------
def this_display() -> str:
    """The display a tray start record is for."""
    return f"{env('DISPLAY') or ''}|{env('WAYLAND_DISPLAY') or ''}"


def tray_died_here() -> bool:
    """A tray app's start record left by one on this display that Qt killed before its GUI came
    up (a missing system library, say). Without it every starter would start a tray app that
    dies, and nothing would be recalled. core/process/display.py writes and clears it."""
    if sys.platform in ("darwin", "win32"):  # os.kill(pid, 0) is no probe on Windows
        return False
    import json

    try:
        with open(join(data_dir(), TRAY_START_RECORD), encoding="utf-8") as handle:
            record = json.load(handle)
        if record.get("display") != this_display():
            return False
        _os.kill(int(record["pid"]), 0)
    except ProcessLookupError:
        return True
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return False
    return False  # still starting


def service_mode() -> str:
    """The rule: the tray app in a desktop session (its native dialogs need one), the headless
    `memevo serve` otherwise, or when MEMEVO_HEADLESS=1, or when a tray app died on this display.
    A desktop session is told by its environment here; the tray app itself probes the display
    and serves headless when it cannot show (core/process/display.py)."""
    desktop = sys.platform in ("darwin", "win32") or env("DISPLAY") or env("WAYLAND_DISPLAY")
    if not desktop or env("MEMEVO_HEADLESS") == "1" or tray_died_here():
        return "serve"
    return "tray"


def service_command(mode: str) -> "list[str]":
    """`-P`: no working folder first on sys.path. A starter runs in the client's folder (the
    user's project), where a `memevo/` package or `memevo.py` must not be imported for ours."""
    return [sys.executable, "-P", "-m", CLI_MODULE, mode, "--wait-lock", str(int(SPAWN_GUARD_S))]


def quit_by_user() -> bool:
    """The user chose Quit in the tray's menu and has not started memevo since."""
    try:
        _os.stat(join(data_dir(), QUIT_FILE))
    except OSError:
        return False
    return True


def start_service(mode: "str | None" = None, note: "str | None" = None) -> "object | None":
    """Start the service detached (`mode`, else service_mode()) unless one was started within
    the guard window; the started process (subprocess.Popen), or None. Its output goes to
    logs/service-start.log, after `note` (a starter's word on why this mode)."""
    import subprocess  # only on this rare path: it costs a prompt hook several milliseconds

    if quit_by_user():
        return None
    folder = data_dir()
    guard = join(folder, SPAWN_GUARD_FILE)
    try:
        if time.time() - _os.stat(guard).st_mtime < SPAWN_GUARD_S:
            return None  # another starter started one a moment ago
    except OSError:
        pass
    import os

    os.makedirs(join(folder, "logs"), exist_ok=True)
    with open(guard, "w", encoding="utf-8") as handle:
        handle.write(str(os.getpid()))
    with open(join(join(folder, "logs"), "service-start.log"), "ab") as out:
        if note:
            out.write(note.encode("utf-8"))
        return subprocess.Popen(
            service_command(mode or service_mode()),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
            close_fds=True,
        )
