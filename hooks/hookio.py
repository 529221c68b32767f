"""What every hook does the same way: read stdin, talk to the service, fall back, log.

Standard library only. Hooks run as `<python> -I -S hooks/memevo_hook.py <client> <event>`
and must never import memevo's heavy modules: a whole prompt hook is held to a budget
(`hook_prompt_ms` in `memevo bench --json`, docs/performance.md).
"""

import json
import os
import sys
import time

try:  # the service imports this as memevo.hooks.hookio
    from . import wire
except ImportError:  # the hook, run as a script: its folder is on sys.path
    import wire

PROTOCOL_VERSION = wire.PROTOCOL_VERSION
MAX_STDIN = 32 * 1024 * 1024
MAX_JUNK = 4096  # characters a payload may be preceded by (a BOM is dropped by utf-8-sig already)
TRANSCRIPT_TAIL = 256 * 1024  # bytes of a transcript read to find the last answer
ANSWER_CHARS = 4000  # of the previous answer sent to the service (it keeps 2,000 after redaction)


def data_dir():
    return wire.data_dir()


def build():
    return wire.build()


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


def _connect(deadline):
    """wire.connect, with "no service there" told apart (Unavailable: the hook starts one)."""
    try:
        return wire.connect(deadline)
    except (FileNotFoundError, ConnectionRefusedError) as exc:
        raise Unavailable(str(exc)) from exc
    except (ValueError, IndexError) as exc:  # an endpoint file that cannot be read (Windows)
        raise Unavailable(str(exc)) from exc
    except OSError as exc:
        if wire.uses_tcp() and not isinstance(exc, TimeoutError):  # no endpoint file, or refused
            raise Unavailable(str(exc)) from exc
        raise


def ask(op, params, timeout_s):
    """One request to the service, all of it within timeout_s (a service that answers a byte at
    a time cannot stretch it). Raises Unavailable (not running), Stale (old version), TimeoutError."""
    deadline = time.monotonic() + timeout_s
    conn, token = _connect(deadline)
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


_remaining = wire.remaining


def start_service():
    """Start the service detached (wire's rule: the tray app in a desktop session, headless
    otherwise), unless another starter did a moment ago."""
    if wire.quit_by_user():
        log("not starting the service: memevo was quit from its menu (start memevo to have it back)")
        return
    try:
        if wire.tray_died_here():
            log("the tray app died on this display before its window came up; starting `memevo serve`")
        child = wire.start_service()
    except OSError as exc:
        log(f"could not start the service: {exc}")
        return
    if child is not None:
        log(f"started the service ({child.args[4]})")


def cached(name):
    try:
        with open(os.path.join(data_dir(), "cache", name), encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return ""
