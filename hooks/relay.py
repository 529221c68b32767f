"""The relay hook, run by hooks/memevo_hook.py: the hook's whole path when the service is up.

It imports the wire (wire.py: `_socket`, `posix`, not even `os`, a millisecond of every hook)
and the client table (client_table.py: the event's kind and deadline) and nothing else, hands
stdin's bytes to the service (op hook_relay; the client's adapter runs there,
core/service/relay.py) and prints the bytes that come back, then exits without the
interpreter's teardown (for a client that takes the output at the exit, once it has read
them: _wait_until_read). When the service is down, slow, stale, older or answers nonsense, the
hook answers on its own as it always has (handler.py: the adapter, the service's hook_* operations,
the cached texts, starting the service), within the same deadline.

Wire format (no json module on this path): the request is one JSON line built by hand, the
payload in hex; the reply is the service's usual JSON line whose result is
{"relay": "1:<kind>:<hex of the output>:<hex of each hooks.log line, joined by dots>"}.
Standard library only; this folder is on sys.path (memevo_hook.py puts it there).
"""

import sys
import time

if __package__:  # memevo.hooks.relay, imported by tests
    from . import client_table, wire
else:  # the hook: this folder is on sys.path (memevo_hook.py puts it there)
    import client_table
    import wire

_os = wire._os  # `posix` (what `os` wraps) or, on Windows, `os`
_env = wire.env
MAX_STDIN = 32 * 1024 * 1024  # as hookio.MAX_STDIN
RELAY_MAX = 16 * 1024 * 1024  # a larger payload (hex doubles it) is not relayed: the hook reads it itself
FRAME = "1"
_ESCAPES = {i: f"\\u{i:04x}" for i in range(32)} | {34: '\\"', 92: "\\\\"}


class _Fallback(Exception):
    """The relay did not answer: the hook answers itself (failed: the reason, if a timeout)."""

    def __init__(self, failed=None):
        super().__init__()
        self.failed = failed


def main(argv):
    started = time.perf_counter()
    # (kind, deadline) from the client's row; an event not listed is answered by the hook itself
    route = client_table.route(argv[1], argv[2]) if len(argv) >= 3 else None
    if route is not None and any(_env(name) for name in client_table.muted_by(argv[1])):
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
# rules missing from the first request, once in CI). Reproduced with that executor's logic in
# node beside other children exiting: some outputs are lost when the hook exits at once, none when
# it waits until its output has been read. Linux: node's stdio pipes are socketpairs, whose
# unread bytes SIOCOUTQ counts (FIONREAD on our end says 0); on a pipe FIONREAD counts them.
# The wait costs a round trip with the reader, so only for the clients whose executor is known
# to read at exit.
_SIOCOUTQ, _FIONREAD = 0x5411, 0x541B
READ_WAIT_S = 0.5  # a client that reads only after the exit costs at most this


def _wait_until_read(argv):
    if not _printed or len(argv) < 2 or not sys.platform.startswith("linux"):
        return
    row = client_table.get(argv[1])
    if row is None or not row.reads_output_at_exit:
        return
    try:
        import fcntl  # only here, on the one path that needs it

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
        conn, token = wire.connect(deadline)
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


_remaining = wire.remaining


def _json_text(text):
    return '"' + text.translate(_ESCAPES) + '"'


def _request(client, event, raw, token):
    build = wire.build()
    row = client_table.get(client)
    names = row.environ if row is not None else ()  # what the client's adapter reads
    environ = ", ".join(
        f"{_json_text(name)}: {_json_text(_env(name))}" for name in names if _env(name) is not None
    )
    cwd = _getcwd()
    cwd = "null" if cwd is None else _json_text(cwd)
    parts = [
        f'{{"v": {wire.PROTOCOL_VERSION}, "build": ',
        _json_text(build) if build else "null",
        ', "op": "hook_relay", ',
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
    environment, where wire.data_dir, hookio and a service this hook starts (inheriting it) find it.
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
    """The whole hook: answer, flush, exit 0 at once (the interpreter's teardown would be part of
    `hook_prompt_ms`)."""
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
