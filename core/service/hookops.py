"""What the service answers to each hook: session start, each prompt, stop."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import config as config_mod
from .. import learning, maintenance
from . import caches, texts

if TYPE_CHECKING:
    from .host import ServiceHost

log = logging.getLogger("memevo.service")
DEFAULT_MAX_CHARS = caches.DEFAULT_MAX_CHARS


@dataclass(frozen=True)
class Ask:
    client: str
    flavor: str
    session: str | None
    prompt_id: str | None
    max_chars: int

    @classmethod
    def of(cls, params: dict[str, Any]) -> Ask:
        return cls(
            client=str(params.get("client") or "unknown"),
            flavor=str(params.get("flavor") or "default"),
            session=_opt(params.get("session")),
            prompt_id=_opt(params.get("prompt_id")),
            max_chars=int(params.get("max_chars") or DEFAULT_MAX_CHARS),
        )


def _opt(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def learning_text(host: ServiceHost, config: config_mod.Config, flavor: str) -> str | None:
    """The 「记忆沉淀未启用」 text while learning is not active, else None."""
    return caches.learning_text(config, host.has_api_key(), flavor)


def session_start_text(
    host: ServiceHost, config: config_mod.Config, flavor: str, max_chars: int
) -> tuple[str, list[str]]:
    return caches.session_start_text(host.store, config, host.has_api_key(), flavor, max_chars)


def prompt_reminder(host: ServiceHost, config: config_mod.Config, flavor: str) -> str:
    return caches.prompt_reminder(config, host.has_api_key(), flavor)


def on_session_start(host: ServiceHost, params: dict[str, Any]) -> dict[str, Any]:
    ask = Ask.of(params)
    started = time.perf_counter()
    config = config_mod.load()
    _run_maintenance(host, config)
    if not config["enabled"]:
        return _done(host, ask, "session_start", started, None, [])
    text, ids = session_start_text(host, config, ask.flavor, ask.max_chars)
    return _done(host, ask, "session_start", started, text, ids)


def on_prompt(host: ServiceHost, params: dict[str, Any]) -> dict[str, Any]:
    """kind: "user" (the user's own words), "other" (not the user's words: no recall, no
    judging, reminder still), "plugin" (our own continuation or notice: nothing at all)."""
    ask = Ask.of(params)
    started = time.perf_counter()
    config = config_mod.load()
    kind = str(params.get("kind") or "user")
    prompt = str(params.get("prompt") or "")
    if kind == "plugin" and ask.session:
        from ..side import stop

        restored = stop.restore(ask.client, ask.session)  # Cursor: the hidden half of a follow-up
        if restored:
            return _done(host, ask, "prompt", started, restored, [])
    if not config["enabled"] or kind == "plugin" or not prompt.strip():
        return _done(host, ask, "prompt", started, None, [])
    block, ids, skipped = "", list[str](), None
    if kind == "user":
        block, ids, skipped = _recall(host, prompt)
        _maybe_learn(host, config, params, prompt)
    parts = [p for p in (block, prompt_reminder(host, config, ask.flavor)) if p]
    result = _done(host, ask, "prompt", started, "\n\n".join(parts), ids)
    if block and config["showRecall"]:
        result["system_message"] = block
    if skipped:
        result["recall_skipped"] = skipped
    return result


def _maybe_learn(host: ServiceHost, config: config_mod.Config, params: dict[str, Any], prompt: str) -> None:
    if not learning.state(config, host.has_api_key()).active:
        return
    try:
        context = (
            host.previous_answer(str(params.get("client")), params.get("session"))
            if config["sideContext"]
            else None
        )
        host.learn(params, prompt, context)
    except Exception:  # learning never costs the user their prompt
        log.exception("could not start the side analysis")


def on_stop(host: ServiceHost, params: dict[str, Any]) -> dict[str, Any]:
    """Shows this session's learning results, or asks the user to confirm (headless)."""
    from ..side import stop

    ask = Ask.of(params)
    started = time.perf_counter()
    config = config_mod.load()
    host.remember_answer(
        ask.client, ask.session, params.get("last_assistant_message"), bool(config["sideContext"])
    )
    quiet = params.get("continuation") or params.get("subagent") or not ask.session
    # On a desktop the tray app confirms in native dialogs and notifies results itself.
    if (
        quiet
        or host.desktop
        or not config["enabled"]
        or not learning.state(config, host.has_api_key()).active
    ):
        return _done(host, ask, "stop", started, None, [], log_injection=False)
    found = stop.continuation(host, ask.client, ask.session or "", int(config["sideWaitMs"]))
    result = _done(host, ask, "stop", started, found.get("continuation"), [], log_injection=bool(found))
    if found:
        result["notice"] = found["notice"]
        if ask.client == "cursor":
            stop.stash(ask.client, ask.session or "", found["notice"], found["continuation"])
    return result


def _recall(host: ServiceHost, prompt: str) -> tuple[str, list[str], str | None]:
    engine = host.engine
    if engine is None:
        return "", [], host.engine_error or "the model is still loading"
    result = engine.recall(prompt)
    if not result.hits:
        return "", [], result.skipped
    block = texts.recall_block([h.text for h in result.rules], [h.text for h in result.projects])
    return block, [h.id for h in result.hits], None


def _run_maintenance(host: ServiceHost, config: config_mod.Config) -> None:
    try:
        report = maintenance.run_if_due(host.store, host.clock, config)
    except Exception:  # retried by the next session start; never blocks the hook
        log.exception("daily maintenance failed; it will be retried at the next session start")
        return
    if report is not None:
        log.info("daily maintenance: %s", report.as_json())
        host.after_maintenance()


def _done(
    host: ServiceHost,
    ask: Ask,
    event: str,
    started: float,
    text: str | None,
    ids: list[str],
    log_injection: bool = True,
) -> dict[str, Any]:
    elapsed_ms = (time.perf_counter() - started) * 1000
    host.record_hook(ask.client, event, elapsed_ms)
    if text and log_injection:
        host.log_injection(ask.client, ask.session, event, ask.prompt_id, ids, len(text))
    return {"context": text or None}
