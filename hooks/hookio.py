"""What every hook does the same way: read stdin, talk to the service, fall back, log.

Standard library only. Hooks run as `<python> -I -S hooks/memevo_hook.py <client> <event>`
and must never import memevo's heavy modules: a whole prompt hook budget is ~60 ms.
"""

import json
import os
import socket
import sys
import time

PROTOCOL_VERSION = 1  # the service's core/service/protocol.py holds the same number
MAX_STDIN = 32 * 1024 * 1024
SPAWN_GUARD_S = 15.0


def data_dir():
    override = os.environ.get("MEMEVO_HOME")
    if override:
        return os.path.expanduser(override)
    return os.path.join(os.path.expanduser("~"), ".memory-self-evolution")


def build():
    """The installed version, read from core/__init__.py beside this hooks folder."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "core", "__init__.py")
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("__version__"):
                    return line.split("=", 1)[1].strip().strip("\"'")
    except OSError:
        pass
    return None


def log(message):
    """Reasons go to a log file in the data dir, never to the client."""
    try:
        folder = os.path.join(data_dir(), "logs")
        os.makedirs(folder, exist_ok=True)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        with open(os.path.join(folder, "hooks.log"), "a", encoding="utf-8") as handle:
            handle.write(f"{stamp} {message}\n")
    except OSError:
        pass


def read_payload():
    """The JSON object on stdin, or (None, reason)."""
    try:
        raw = sys.stdin.buffer.read(MAX_STDIN + 1)
    except (OSError, ValueError) as exc:
        return None, f"cannot read stdin: {exc}"
    if len(raw) > MAX_STDIN:
        return None, f"stdin larger than {MAX_STDIN} bytes"
    if not raw.strip():
        return None, "empty stdin"
    try:
        payload = json.loads(raw.decode("utf-8", errors="replace"))
    except ValueError as exc:
        return None, f"stdin is not JSON: {exc}"
    if not isinstance(payload, dict):
        return None, "stdin JSON is not an object"
    return payload, None


class Unavailable(Exception):
    pass


class Stale(Exception):
    pass


def _connect(timeout_s):
    """A Unix socket on Linux and macOS; loopback TCP with a token on Windows (or MEMEVO_TRANSPORT=tcp)."""
    if os.environ.get("MEMEVO_TRANSPORT") == "tcp" or sys.platform == "win32":
        try:
            with open(os.path.join(data_dir(), "service-endpoint.json"), encoding="utf-8") as handle:
                endpoint = json.load(handle)
            return socket.create_connection(
                ("127.0.0.1", int(endpoint["port"])), timeout=timeout_s
            ), endpoint["token"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise Unavailable(str(exc)) from exc
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(timeout_s)
    try:
        conn.connect(os.path.join(data_dir(), "memevo.sock"))
    except (FileNotFoundError, ConnectionRefusedError) as exc:
        conn.close()
        raise Unavailable(str(exc)) from exc
    return conn, None


def ask(op, params, timeout_s):
    """One request to the service. Raises Unavailable (not running) or Stale (old version)."""
    conn, token = _connect(timeout_s)
    conn.settimeout(timeout_s)
    try:
        body = {"v": PROTOCOL_VERSION, "build": build(), "op": op, "params": params}
        if token:
            body["token"] = token
        conn.sendall((json.dumps(body) + "\n").encode("utf-8"))
        chunks = []
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            if chunk.endswith(b"\n"):
                break
    finally:
        conn.close()
    reply = json.loads(b"".join(chunks).decode("utf-8"))
    if reply.get("ok"):
        return reply["result"]
    if reply.get("code") == "stale":
        raise Stale(reply.get("service_build"))
    raise RuntimeError(reply.get("error"))


def start_service():
    """Start the service detached: the tray app in a desktop session, headless otherwise."""
    import subprocess  # only on this rare path: it costs a prompt hook several milliseconds

    guard = os.path.join(data_dir(), "service.spawned")
    try:
        if time.time() - os.path.getmtime(guard) < SPAWN_GUARD_S:
            return  # another hook started one a moment ago
    except OSError:
        pass
    try:
        os.makedirs(data_dir(), exist_ok=True)
        with open(guard, "w", encoding="utf-8") as handle:
            handle.write(str(os.getpid()))
        desktop = (
            sys.platform in ("darwin", "win32")
            or os.environ.get("DISPLAY")
            or os.environ.get("WAYLAND_DISPLAY")
        )
        mode = "tray" if desktop and os.environ.get("MEMEVO_HEADLESS") != "1" else "serve"
        logs = os.path.join(data_dir(), "logs")
        os.makedirs(logs, exist_ok=True)
        with open(os.path.join(logs, "service-start.log"), "ab") as out:
            subprocess.Popen(
                [sys.executable, "-m", "memevo.core.cli", mode, "--wait-lock", "15"],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                start_new_session=True,
                close_fds=True,
            )
        log(f"started the service ({mode})")
    except OSError as exc:
        log(f"could not start the service: {exc}")


def cached(name):
    try:
        with open(os.path.join(data_dir(), "cache", name), encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return ""
