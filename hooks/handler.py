"""One hook event, payload in, the client's output out: the client's adapter reads the payload,
the service answers, the same adapter writes the answer in the client's format.

It runs in two places with the same code: in the service, behind the relay hook (the service's
core/service/relay.py passes its own `ask` and collects the log lines for the hook to write),
and in the hook itself when the relay cannot answer (service down, slow, stale, or an older
one), with hookio's `ask`, cached texts and the service start. Standard library only.
"""

import os
import time

try:  # the service: memevo.hooks.handler
    from . import hookio
    from .clients import load
except ImportError:  # the hook, run as a script: its folder is on sys.path
    import hookio
    from clients import load


def handle(  # typed: the service calls it
    client: str,
    event: str,
    raw: "bytes | None" = None,
    environ: "dict[str, str] | None" = None,
    ask: "object | None" = None,
    log: "object | None" = None,
    failed: "BaseException | None" = None,
    deadline: "float | None" = None,
    cwd: "str | None" = None,
) -> "tuple[str, str | None]":
    """(text to print, event kind or None when the hook ended early).

    raw: the payload's bytes (None: read stdin). environ: what the adapter may read of the
    hook's environment. failed: the relay's request timed out (answer from the cache without
    asking again). deadline: time.monotonic() by which the service must have answered.
    cwd: the hook's folder, for paths the client gave relative to it (the service runs elsewhere),
    and the project's when the payload names none."""
    environ = os.environ if environ is None else environ
    ask = ask or hookio.ask
    log = log or hookio.log
    adapter = load(client)
    if adapter is None:
        log(f"unknown client {client!r}")
        return "", None
    payload, problem = hookio.read_payload(raw, log)
    if payload is None:
        log(f"{client} {event}: {problem}")
        return "", None
    kind = adapter.event_kind(event, payload)
    if kind is None:
        log(f"{client}: unknown event {event!r}")
        return "", None
    if cwd:
        payload, environ = _anchored(payload, environ, cwd)
    if adapter.silent_reason(payload, environ):
        return "", None
    return answer(adapter, kind, payload, environ, ask, log, failed, deadline, cwd), kind


def _anchored(payload, environ, cwd):
    """A transcript path relative to the hook's folder, made absolute for the service."""
    path = payload.get("transcript_path")
    if isinstance(path, str) and path and not os.path.isabs(path):
        payload = dict(payload, transcript_path=os.path.join(cwd, path))
    path = environ.get("CURSOR_TRANSCRIPT_PATH")
    if isinstance(path, str) and path and not os.path.isabs(path):
        environ = dict(environ, CURSOR_TRANSCRIPT_PATH=os.path.join(cwd, path))
    return payload, environ


def answer(adapter, kind, payload, environ, ask, log, failed=None, deadline=None, here=None):
    """here: the hook's own folder (the client starts it in the project), when known."""
    params = {
        "client": adapter.name,
        "flavor": adapter.flavor,
        "session": adapter.session_key(payload),
        "prompt_id": adapter.prompt_id(payload),
        "max_chars": adapter.max_chars,
        "cwd": adapter.project_dir(payload, environ, here),  # the repository a project fact belongs to
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
        params["after"] = adapter.action_event == "PostToolUse"  # the wording: it has run
    if kind in ("session_start", "stop") and adapter.echoes(payload):
        params["echoes"] = True
    if kind == "stop":
        params.update(adapter.stop_flags(payload))
        # sideContext: the answer the user just read (a subagent's is not it). The service keeps
        # it, redacted, only while sideContext is on.
        answered = None if params["subagent"] else adapter.previous_answer(payload, environ)
        if answered:
            params["last_assistant_message"] = answered
    timeout = adapter.timeouts[kind]
    if deadline is not None:  # the relay tried first: what is left of the same deadline
        timeout = min(timeout, deadline - time.monotonic())
    try:
        if failed is not None:
            raise failed
        if timeout <= 0:
            raise TimeoutError("timed out")
        result = ask(f"hook_{kind}", params, timeout)
    except (hookio.Unavailable, hookio.Stale) as exc:
        log(f"{adapter.name} {kind}: service unavailable ({exc.__class__.__name__}: {exc}); falling back")
        if kind != "action":  # the prompt before it has started one; a tool call only reads
            hookio.start_service()
        return adapter.render(kind, fallback(adapter, kind, params), payload)
    except (TimeoutError, OSError) as exc:
        # A service that is there but does not answer in time (busy, hung, stopped): the
        # cached texts still carry the rules. It is not started again: it holds the store.
        log(f"{adapter.name} {kind}: {exc.__class__.__name__}: {exc}; answering from cache")
        return adapter.render(kind, fallback(adapter, kind, params), payload)
    except (ValueError, RuntimeError) as exc:
        if kind == "session_start":  # the rules are owed at every session start: the cached ones
            log(f"{adapter.name} {kind}: {exc.__class__.__name__}: {exc}; answering from cache")
            return adapter.render(kind, fallback(adapter, kind, params), payload)
        log(f"{adapter.name} {kind}: {exc.__class__.__name__}: {exc}; nothing injected")
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
