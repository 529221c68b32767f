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
MAX_JUNK = 4096  # characters a payload may be preceded by (a BOM is dropped by utf-8-sig already)
TRANSCRIPT_TAIL = 256 * 1024  # bytes of a transcript read to find the last answer
ANSWER_CHARS = 4000  # of the previous answer sent to the service (it keeps 2,000 after redaction)


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


def read_payload(raw=None, note=None):
    """The JSON object on stdin (or in `raw`, the bytes the relay already read), or (None, reason).

    Tolerant of what Windows puts before it — a UTF-8 BOM (Cursor's Windows builds), a stray
    banner — as long as the object starts within the first 4,096 characters; one pass, no retry.
    `note` takes the log line about skipped characters (the relay sends it back to the hook)."""
    if raw is None:
        try:
            raw = sys.stdin.buffer.read(MAX_STDIN + 1)
        except (OSError, ValueError) as exc:
            return None, f"cannot read stdin: {exc}"
    if len(raw) > MAX_STDIN:
        return None, f"stdin larger than {MAX_STDIN} bytes"
    if not raw.strip():
        return None, "empty stdin"
    text = raw.decode("utf-8-sig", errors="replace")
    start = text.find("{", 0, MAX_JUNK)
    if start < 0:
        return None, "stdin holds no JSON object"
    try:
        payload, end = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError) as exc:
        return None, f"stdin is not JSON: {exc}"
    if not isinstance(payload, dict) or text[end:].strip():
        return None, "stdin is not one JSON object"
    if start:
        (note or log)(f"skipped {start} characters before the JSON payload")
    return payload, None


# -- the previous answer (sideContext) -----------------------------------------------------------------
def bounded_answer(text):
    """The end of an assistant message, cut where a word starts: the service redacts it and keeps
    its last 2,000 characters, so a little more than that crosses the socket, never a whole log."""
    if not isinstance(text, str) or not text.strip():
        return None
    if len(text) <= ANSWER_CHARS:
        return text
    tail = text[-ANSWER_CHARS:]
    for index, char in enumerate(tail[:200]):
        if char.isspace():
            return tail[index + 1 :]
    return tail


def answer_in_transcript(path):
    """The last assistant text in a JSONL transcript (Claude Code, Cursor, the CodeBuddy engine),
    read from the file's last 256 KB only: a transcript grows to many megabytes."""
    if not isinstance(path, str) or not path.endswith(".jsonl") or not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            start = max(0, handle.seek(0, os.SEEK_END) - TRANSCRIPT_TAIL)
            handle.seek(start)
            lines = handle.read(TRANSCRIPT_TAIL).split(b"\n")
    except OSError:
        return None
    if start:
        lines = lines[1:]  # cut in the middle
    for line in reversed(lines):
        if b'"assistant"' not in line:
            continue
        try:
            text = _assistant_text(json.loads(line))
        except (ValueError, RecursionError):
            continue
        if text:
            return text
    return None


def _assistant_text(entry):
    """Claude Code: {type: assistant, message: {role, content: [{type: text, text}]}};
    Cursor: {role: assistant, message: {content: [...]}}; the CodeBuddy engine: {type: message,
    role: assistant, content: [...]}. Tool calls, thinking, subagents and meta rows are not text."""
    if not isinstance(entry, dict) or entry.get("isSidechain") or entry.get("isMeta"):
        return None
    message = entry.get("message") if isinstance(entry.get("message"), dict) else entry
    if (message.get("role") or entry.get("role") or entry.get("type")) != "assistant":
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content.strip() or None
    if not isinstance(content, list):
        return None
    parts = [
        item["text"]
        for item in content
        if isinstance(item, dict)
        and item.get("type") in ("text", "output_text")
        and isinstance(item.get("text"), str)
        and item["text"].strip()
    ]
    return "\n".join(parts) or None


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
    """One request to the service, all of it within timeout_s (a service that answers a byte at
    a time cannot stretch it). Raises Unavailable (not running), Stale (old version), TimeoutError."""
    deadline = time.monotonic() + timeout_s
    conn, token = _connect(timeout_s)
    try:
        body = {"v": PROTOCOL_VERSION, "build": build(), "op": op, "params": params}
        if token:
            body["token"] = token
        conn.settimeout(_remaining(deadline))
        conn.sendall((json.dumps(body) + "\n").encode("utf-8"))
        chunks = []
        while True:
            conn.settimeout(_remaining(deadline))
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


def _remaining(deadline):
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("timed out")
    return left


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
        if mode == "tray" and tray_died_here():
            mode = "serve"
            log("the tray app died on this display before its window came up; starting `memevo serve`")
        logs = os.path.join(data_dir(), "logs")
        os.makedirs(logs, exist_ok=True)
        with open(os.path.join(logs, "service-start.log"), "ab") as out:
            # -P: the hook runs in the user's project; a `memevo/` or `memevo.py` there must
            # not be imported in place of memevo (the hook itself runs with -I)
            subprocess.Popen(
                [sys.executable, "-P", "-m", "memevo.cli", mode, "--wait-lock", "15"],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                start_new_session=True,
                close_fds=True,
            )
        log(f"started the service ({mode})")
    except OSError as exc:
        log(f"could not start the service: {exc}")


TRAY_START_RECORD = "tray-start.json"  # in the data dir; core/process/display.py writes it


def this_display():
    """The display a tray start record is for (core/process/display.py records the same key)."""
    return f"{os.environ.get('DISPLAY', '')}|{os.environ.get('WAYLAND_DISPLAY', '')}"


def tray_died_here():
    """The tray app's start record: left by a tray app on this display that Qt killed before
    its GUI came up, e.g. for a missing system library. Without it, every hook would start a
    tray app that dies, and recall nothing. The one reader: core/process/display.py calls it too."""
    if sys.platform in ("darwin", "win32"):  # os.kill(pid, 0) is no probe on Windows
        return False
    try:
        with open(os.path.join(data_dir(), TRAY_START_RECORD), encoding="utf-8") as handle:
            record = json.load(handle)
        if record.get("display") != this_display():
            return False
        os.kill(int(record["pid"]), 0)
    except ProcessLookupError:
        return True
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return False
    return False  # still starting


def cached(name):
    try:
        with open(os.path.join(data_dir(), "cache", name), encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return ""
