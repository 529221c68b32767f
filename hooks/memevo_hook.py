"""The hook executable: `<python> -I -S <this file> <client> <event>`.

Whatever happens it exits 0 and prints nothing it should not: a broken memory is
acceptable, a blocked prompt or a traceback in the user's client is not.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves the script's folder out

import hookio
from clients import load


def main(argv):
    started = time.perf_counter()
    if len(argv) < 3:
        hookio.log(f"usage: memevo_hook.py CLIENT EVENT (got {argv[1:]})")
        return 0
    client, event = argv[1], argv[2]
    adapter = load(client)
    if adapter is None:
        hookio.log(f"unknown client {client!r}")
        return 0
    payload, problem = hookio.read_payload()
    if payload is None:
        hookio.log(f"{client} {event}: {problem}")
        return 0
    kind = adapter.event_kind(event, payload)
    if kind is None:
        hookio.log(f"{client}: unknown event {event!r}")
        return 0
    silent = adapter.silent_reason(payload, os.environ)
    if silent:
        return 0
    out = answer(adapter, kind, payload)
    if out:
        # UTF-8 whatever the locale (-I ignores PYTHONIOENCODING; Windows pipes use the ANSI code page)
        sys.stdout.buffer.write(out.encode("utf-8"))
        sys.stdout.flush()
    if os.environ.get("MEMEVO_HOOK_TIMING"):
        hookio.log(f"{client} {kind} took {(time.perf_counter() - started) * 1000:.1f} ms")
    return 0


def _cwd(payload):
    """The session's folder: Claude Code and CodeBuddy send cwd, Cursor its workspace roots."""
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    roots = payload.get("workspace_roots") if isinstance(payload, dict) else None
    if not cwd and isinstance(roots, list) and roots:
        cwd = roots[0]
    return cwd if isinstance(cwd, str) and cwd else None


def answer(adapter, kind, payload):
    params = {
        "client": adapter.name,
        "flavor": adapter.flavor,
        "session": adapter.session_key(payload),
        "prompt_id": adapter.prompt_id(payload),
        "max_chars": adapter.max_chars,
        "cwd": _cwd(payload),  # the repository a project fact belongs to
    }
    if kind == "prompt":
        text = adapter.prompt_text(payload) or ""
        params["prompt"] = text
        params["kind"] = adapter.prompt_kind(payload, text)
    if kind == "action":
        call = adapter.action_call(payload)
        if call is None:
            return ""
        params["tool"], params["input"] = call
    if kind == "stop":
        params.update(adapter.stop_flags(payload))
        # sideContext: the answer the user just read (a subagent's is not it). The service keeps
        # it, redacted, only while sideContext is on.
        answered = None if params["subagent"] else adapter.previous_answer(payload, os.environ)
        if answered:
            params["last_assistant_message"] = answered
    try:
        result = hookio.ask(f"hook.{kind}", params, adapter.timeouts[kind])
    except (hookio.Unavailable, hookio.Stale) as exc:
        hookio.log(
            f"{adapter.name} {kind}: service unavailable ({exc.__class__.__name__}: {exc}); falling back"
        )
        if kind != "action":  # the prompt before it has started one; a tool call only reads
            hookio.start_service()
        return adapter.render(kind, fallback(adapter, kind, params), payload)
    except (TimeoutError, OSError) as exc:
        # A service that is there but does not answer in time (busy, hung, stopped): the
        # cached texts still carry the rules. It is not started again: it holds the store.
        hookio.log(f"{adapter.name} {kind}: {exc.__class__.__name__}: {exc}; answering from cache")
        return adapter.render(kind, fallback(adapter, kind, params), payload)
    except (ValueError, RuntimeError) as exc:
        hookio.log(f"{adapter.name} {kind}: {exc.__class__.__name__}: {exc}; nothing injected")
        return ""
    return adapter.render(kind, result, payload)


def fallback(adapter, kind, params):
    """While the service starts: session start from its cached text, prompts without recall,
    tool calls without anything."""
    if kind == "session_start":
        return {"context": hookio.cached(f"session-start-{adapter.flavor}.txt")}
    if kind == "prompt" and params.get("kind") != "plugin" and params.get("prompt", "").strip():
        return {"context": hookio.cached(f"prompt-reminder-{adapter.flavor}.txt")}
    return {}


if __name__ == "__main__":
    os.umask(0o077)  # the hook's log and spawn guard are the user's alone, like all of memevo's files
    try:
        code = main(sys.argv)
    except BaseException as exc:
        hookio.log(f"hook crashed: {exc.__class__.__name__}: {exc}")
        code = 0
    # The answer is written; skip the interpreter's teardown (~3 ms of a prompt hook's ~40).
    try:  # noqa: SIM105 - contextlib would be one more import on every hook's path
        sys.stdout.flush()
    except Exception:
        pass
    os._exit(code)
