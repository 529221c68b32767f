"""The relay hook, run by hooks/memevo_hook.py: the hook's whole path when the service is up.

It imports `_socket` and nothing else (not even `os`: a millisecond of every hook), hands
stdin's bytes to the service (op hook.relay; the client's adapter runs there,
core/service/relay.py) and prints the bytes that come back, then exits without the
interpreter's teardown (for a client that takes the output at the exit, once it has read
them: _wait_until_read). When the service is down, slow, stale, older or answers nonsense, the
hook answers on its own as it always has (handler.py: the adapter, the service's hook.* ops,
the cached texts, starting the service), within the same deadline.

Wire format (no json module on this path): the request is one JSON line built by hand, the
payload in hex; the reply is the service's usual JSON line whose result is
{"relay": "1:<kind>:<hex of the output>:<hex of each hooks.log line, joined by dots>"}.
Standard library only; this folder is on sys.path (memevo_hook.py puts it there).
"""

import sys
import time

if sys.platform == "win32":  # `nt` differs (str environ, drive letters): `os` itself there
    import os as _os

    _env = _os.environ.get
    _abspath = _os.path.abspath
    _expanduser = _os.path.expanduser
    SEP = "\\"
else:
    import posix as _os  # what `os` wraps, without the millisecond `os` costs to import

    SEP = "/"

    def _env(name):
        value = _os.environ.get(name.encode())
        if value is None:
            return None
        return value.decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())

    def _abspath(path):
        """posixpath.abspath."""
        if not path.startswith("/"):
            path = _os.getcwd() + "/" + path
        parts = []
        for part in path.split("/"):
            if part == "..":
                if parts:
                    parts.pop()
            elif part and part != ".":
                parts.append(part)
        root = "//" if path.startswith("//") and not path.startswith("///") else "/"  # as POSIX says
        return root + "/".join(parts)

    def _expanduser(path):
        """posixpath.expanduser for `~` and `~/…` from HOME; anything else by posixpath itself."""
        home = _env("HOME") if path.startswith("~") and path[1:2] in ("", "/") else None
        if home is None:
            if not path.startswith("~"):
                return path
            import os

            return os.path.expanduser(path)
        return (home.rstrip("/") + path[1:]) or "/"


PROTOCOL_VERSION = 1  # hookio.PROTOCOL_VERSION and the service's protocol.py hold the same number
MAX_STDIN = 32 * 1024 * 1024  # as hookio.MAX_STDIN
RELAY_MAX = 16 * 1024 * 1024  # a larger payload (hex doubles it) is not relayed: the hook reads it itself
FRAME = "1"
# What each adapter's `events` and `timeouts` say, so the relay knows its deadline without
# importing an adapter: (client, event) -> (kind, seconds). tests/test_hook_relay.py keeps it equal
# to the adapters; an event not listed here is answered by the hook itself, as before.
RELAYED = {
    "claude": {
        "SessionStart": ("session_start", 6.0),
        "UserPromptSubmit": ("prompt", 6.0),
        "PreToolUse": ("action", 1.5),
        "Stop": ("stop", 18.0),
    },
    "cursor": {
        "sessionStart": ("session_start", 6.0),
        "beforeSubmitPrompt": ("prompt", 3.5),
        "beforeShellExecution": ("action", 1.5),
        "beforeMCPExecution": ("action", 1.5),
        "stop": ("stop", 18.0),
    },
    "codebuddy": {
        "SessionStart": ("session_start", 6.0),
        "UserPromptSubmit": ("prompt", 6.0),
        "PostToolUse": ("action", 1.5),
        "Stop": ("stop", 18.0),
    },
    "workbuddy": {
        "SessionStart": ("session_start", 5.0),
        "UserPromptSubmit": ("prompt", 5.0),
        "Stop": ("stop", 18.0),
    },
}
# The environment variables an adapter reads (silent_reason, previous_answer): sent along.
RELAY_ENVIRON = ("CURSOR_VERSION", "CURSOR_TRANSCRIPT_PATH", "CODEBUDDY_PROJECT_DIR")
_ESCAPES = {i: f"\\u{i:04x}" for i in range(32)} | {34: '\\"', 92: "\\\\"}


class _Fallback(Exception):
    """The relay did not answer: the hook answers itself (failed: the reason, if a timeout)."""

    def __init__(self, failed=None):
        super().__init__()
        self.failed = failed


def main(argv):
    started = time.perf_counter()
    route = RELAYED.get(argv[1], {}).get(argv[2]) if len(argv) >= 3 else None
    if route is not None and argv[1] == "claude" and _env("CURSOR_VERSION"):
        # Cursor runs Claude Code's hooks too; the Claude adapter stays silent there (Cursor's own
        # hook answers). Decided here, so a hung service never holds that silent hook up.
        route = None
    raw = deadline = failed = None
    if route is not None:
        try:
            raw = sys.stdin.buffer.read(MAX_STDIN + 1)
        except (OSError, ValueError):
            raw = None  # the hook reads it again and logs why not
        if raw is not None and len(raw) <= RELAY_MAX:
            deadline = time.monotonic() + route[1]
            try:
                kind, out, logs = relay(argv[1], argv[2], raw, deadline)
            except _Fallback as exc:
                failed = exc.failed
            else:
                _write(out)
                if kind and _env("MEMEVO_HOOK_TIMING"):
                    logs.append(f"{argv[1]} {kind} took {(time.perf_counter() - started) * 1000:.1f} ms")
                for line in logs:  # rare: a bad payload, an unknown event, an error
                    _hookio().log(line)
                return 0
    return answer_here(argv, raw, deadline, failed, started)


def answer_here(argv, raw=None, deadline=None, failed=None, started=None):
    """The hook without the relay: the adapter, the service's hook.* op, the cached texts."""
    hookio = _hookio()
    import handler

    started = time.perf_counter() if started is None else started
    if len(argv) < 3:
        hookio.log(f"usage: memevo_hook.py CLIENT EVENT (got {argv[1:]})")
        return 0
    out, kind = handler.handle(argv[1], argv[2], raw, failed=failed, deadline=deadline, cwd=_getcwd())
    _write(out.encode("utf-8") if out else b"")
    if kind and _env("MEMEVO_HOOK_TIMING"):
        hookio.log(f"{argv[1]} {kind} took {(time.perf_counter() - started) * 1000:.1f} ms")
    return 0


def _getcwd():
    try:
        return _os.getcwd()
    except OSError:  # the folder was removed under the client
        return None


def _hookio():
    import hookio  # this folder is on sys.path

    return hookio


_printed = []  # whether this hook printed anything: then it exits only once the client has read it


def _write(out):
    if out:
        # UTF-8 whatever the locale (-I ignores PYTHONIOENCODING; Windows pipes use the ANSI code page)
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
        _printed.append(True)


# A client that takes a hook's output on its `exit` event, not once the pipe has closed, loses
# whatever it had not read by then: CodeBuddy's CLI (and WorkBuddy's build of it) resolves a hook
# at `exit` and closes its stdout there, and libuv reaps every exited child whenever any child's
# SIGCHLD comes in, so output written just before the exit can still be unread (a SessionStart's
# rules missing from the first request, once in CI). Measured with that executor's logic in node
# beside other children exiting: 37-64% of outputs lost when the hook exits at once, none of 400
# when it waits until its output has been read. Linux: node's stdio pipes are socketpairs, whose
# unread bytes SIOCOUTQ counts (FIONREAD on our end says 0); on a pipe FIONREAD counts them.
# The wait costs a round trip with the reader (~1 ms of the hook's wall time here, measured
# against a Python reader), so only for the clients whose executor is known to read at exit.
READS_AT_EXIT = frozenset(("codebuddy", "workbuddy"))  # WorkBuddy is built on CodeBuddy's agent
_SIOCOUTQ, _FIONREAD = 0x5411, 0x541B
READ_WAIT_S = 0.5  # a client that reads only after the exit costs at most this


def _wait_until_read(argv):
    if not _printed or len(argv) < 2 or argv[1] not in READS_AT_EXIT or not sys.platform.startswith("linux"):
        return
    try:
        import fcntl  # ~0.2 ms, only here

        fd = sys.stdout.fileno()
        request = _SIOCOUTQ
        try:
            fcntl.ioctl(fd, request, b"\0\0\0\0")
        except OSError:  # not a socket: a pipe (FIONREAD on either end), a file, a terminal
            request = _FIONREAD
        end, pause = time.monotonic() + READ_WAIT_S, 0.0001
        while int.from_bytes(fcntl.ioctl(fd, request, b"\0\0\0\0"), sys.byteorder) > 0:
            if time.monotonic() >= end:
                return
            time.sleep(pause)
            pause = min(pause * 2, 0.002)
    except (ImportError, OSError, ValueError):  # no stdout, or one that cannot say: exit as before
        return


# -- the relay ------------------------------------------------------------------------------------------
def relay(client, event, raw, deadline):
    """(kind, output bytes, log lines) from the service, or _Fallback."""
    try:
        import _socket

        conn, token = _connect(_socket, deadline)
    except TimeoutError as exc:
        raise _Fallback(exc) from None
    except (ImportError, OSError, ValueError, IndexError, UnicodeError):
        raise _Fallback() from None  # not there (the hook starts it), or not readable: as before
    try:
        try:
            request = _request(client, event, raw, token)
        except UnicodeError:  # undecodable bytes in the environment or the folder
            raise _Fallback() from None
        try:
            conn.settimeout(_remaining(deadline))
            conn.sendall(request)
            chunks = []
            while True:
                conn.settimeout(_remaining(deadline))
                chunk = conn.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
                if chunk.endswith(b"\n"):
                    break
        except TimeoutError as exc:  # asked and not answered in time: never asked twice
            raise _Fallback(exc) from None
        except OSError:  # the service went away mid-request: the hook finds out what is there now
            raise _Fallback() from None
    finally:
        conn.close()
    return _parse(b"".join(chunks))


def _remaining(deadline):
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("timed out")
    return left


def _data_dir():
    """As hookio.data_dir()."""
    override = _env("MEMEVO_HOME")
    if override:
        return _expanduser(override)
    return _join(_expanduser("~"), ".memory-self-evolution")


def _join(folder, name):
    return folder + name if folder.endswith(SEP) else folder + SEP + name


def _build():
    """As hookio.build(): the installed version, from core/__init__.py beside this folder."""
    path = _join(_join(_abspath(__file__).rpartition(SEP)[0].rpartition(SEP)[0], "core"), "__init__.py")
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("__version__"):
                    return line.split("=", 1)[1].strip().strip("\"'")
    except OSError:
        pass
    return None


def _connect(_socket, deadline):
    """A Unix socket; loopback TCP with the token on Windows (or MEMEVO_TRANSPORT=tcp)."""
    if _env("MEMEVO_TRANSPORT") == "tcp" or sys.platform == "win32":
        with open(_join(_data_dir(), "service-endpoint.json"), encoding="utf-8") as handle:
            text = handle.read()  # {"port": 40123, "token": "<hex>", "pid": 7}, written by the service
        port = int(text.split('"port":', 1)[1].split(",", 1)[0].split("}", 1)[0])
        token = text.split('"token":', 1)[1].split('"', 2)[1]
        conn = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
        address = ("127.0.0.1", port)
    else:
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        token, address = None, _join(_data_dir(), "memevo.sock")
    try:
        conn.settimeout(_remaining(deadline))
        conn.connect(address)
    except BaseException:
        conn.close()
        raise
    return conn, token


def _json_text(text):
    return '"' + text.translate(_ESCAPES) + '"'


def _request(client, event, raw, token):
    build = _build()
    environ = ", ".join(
        f"{_json_text(name)}: {_json_text(_env(name))}" for name in RELAY_ENVIRON if _env(name) is not None
    )
    cwd = _getcwd()
    cwd = "null" if cwd is None else _json_text(cwd)
    parts = [
        f'{{"v": {PROTOCOL_VERSION}, "build": ',
        _json_text(build) if build else "null",
        ', "op": "hook.relay", ',
        "" if token is None else '"token": ' + _json_text(token) + ", ",
        '"params": {"client": ',
        _json_text(client),
        ', "event": ',
        _json_text(event),
        ', "environ": {',
        environ,
        '}, "cwd": ',
        cwd,
        ', "payload": "',
    ]
    head = "".join(parts)
    return b"".join((head.encode("utf-8"), raw.hex().encode("ascii"), b'"}}\n'))


def _parse(reply):
    """The relay's frame out of the service's reply line; anything else: the hook answers itself
    (an error such as `stale`, an older service without the relay, a cut or garbled line)."""
    if not reply.endswith(b"\n"):
        raise _Fallback()
    for key in (b'"relay": "', b'"relay":"'):
        at = reply.find(key)
        if at >= 0:
            break
    else:
        raise _Fallback()
    start = at + len(key)
    parts = reply[start : reply.find(b'"', start)].split(b":")
    if len(parts) != 4 or parts[0] != FRAME.encode():
        raise _Fallback()
    try:
        kind = parts[1].decode("ascii")
        out = bytes.fromhex(parts[2].decode("ascii"))
        logs = [bytes.fromhex(line.decode("ascii")).decode("utf-8") for line in parts[3].split(b".") if line]
    except (ValueError, UnicodeError):
        raise _Fallback() from None
    return kind, out, logs


def registered_home(argv):
    """`memevo_hook.py --home FOLDER CLIENT EVENT`: setup names the data folder when the user moved
    it (installer/hook_command.py). The client starts hooks with its own environment, which rarely
    holds MEMEVO_HOME, so the folder named here wins over it: it goes into this process's
    environment, where _data_dir, hookio and a service this hook starts (inheriting it) find it.
    Returns the arguments without it."""
    if len(argv) < 3 or argv[1] != "--home":
        return argv
    if argv[2]:
        if sys.platform == "win32":
            _os.environ["MEMEVO_HOME"] = argv[2]  # `os` itself there: also the process's
        else:
            folder = argv[2].encode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())
            _os.environ[b"MEMEVO_HOME"] = folder  # what _env reads, and `os.environ` (the same dict)
            _os.putenv(b"MEMEVO_HOME", folder)  # what a process started from here inherits
    return [argv[0], *argv[3:]]


def run(argv):
    """The whole hook: answer, flush, exit 0 at once (the teardown is ~3 ms of a hook)."""
    _os.umask(0o077)  # the hook's log and spawn guard are the user's alone, like all of memevo's files
    args = argv
    try:
        args = registered_home(argv)
        code = main(args)
    except BaseException as exc:
        try:  # noqa: SIM105 - as below
            _hookio().log(f"hook crashed: {exc.__class__.__name__}: {exc}")
        except BaseException:
            pass
        code = 0
    try:  # noqa: SIM105 - contextlib would be one more import on every hook's path
        sys.stdout.flush()
    except Exception:
        pass
    _wait_until_read(args)
    _os._exit(code)
