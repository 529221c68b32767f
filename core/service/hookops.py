"""What the service answers to each hook: session start, each prompt, each tool call, stop."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

from ...hooks import client_table
from .. import config as config_mod
from ..errors import InvalidInput, StoreBusy
from ..learning import readiness
from ..memories import live as memories
from ..memories import maintenance, scopes
from ..ops import table as optable
from ..ops.table import operation
from ..recall import shown
from ..sharing import facts as sharing
from . import fallback_texts, injection_log, sharework, texts
from .context import ServiceContext

log = logging.getLogger("memevo.service")
DEFAULT_MAX_CHARS = fallback_texts.DEFAULT_MAX_CHARS
# A memory injected into a session (by its prompt's recall or a tool call's) is not injected
# again before a tool call for this long: it is still in the model's context.
ACTION_REPEAT_S = 600.0
_SESSIONS_KEPT = 256
_injected: dict[tuple[str, str], dict[str, float]] = {}
_injected_lock = threading.Lock()


@dataclass(frozen=True)
class HookRequest:
    """What every hook request says: which client and chat, the prompt's id, the injection
    limit, and where the session is."""

    client: str
    flavor: str
    session: str | None
    prompt_id: str | None
    max_chars: int
    repo: str | None = None  # the session's repository: its identity (core/repos/identity.py)
    folder: str | None = None  # where it is: the git top-level of the session's cwd, else the cwd

    @classmethod
    def of(cls, params: dict[str, Any]) -> HookRequest:
        return cls(
            client=str(params.get("client") or "unknown"),
            flavor=str(params.get("flavor") or "default"),
            session=_opt(params.get("session")),
            prompt_id=_opt(params.get("prompt_id")),
            max_chars=int(params.get("max_chars") or DEFAULT_MAX_CHARS),
            repo=scopes.repo_of(params.get("cwd")),
            folder=scopes.folder_of(params.get("cwd")),
        )


def _opt(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def learning_text(ctx: ServiceContext, config: config_mod.Config, flavor: str) -> str | None:
    """The 「记忆沉淀未启用」 text while learning is not active, else None."""
    return fallback_texts.learning_text(config, ctx.keys.has(), flavor)


def session_start_text(
    ctx: ServiceContext, config: config_mod.Config, flavor: str, max_chars: int, repo: str | None = None
) -> tuple[str, list[str]]:
    """From memory while nothing changed (every change clears it): no query before the reply."""
    has_key = ctx.keys.has()
    key = ctx.session_starts.key(flavor, max_chars, repo, has_key, config.values)
    kept = ctx.session_starts.get(key)
    if kept is not None:
        return kept
    generation = ctx.session_starts.generation
    made = fallback_texts.session_start_text(ctx.store, config, has_key, flavor, max_chars, repo)
    ctx.session_starts.put(key, made, generation)
    return made


def prompt_reminder(ctx: ServiceContext, config: config_mod.Config, flavor: str) -> str:
    return fallback_texts.prompt_reminder(config, ctx.keys.has(), flavor, ctx.learner.side_error is not None)


@operation("hook_session_start", service=True)
def on_session_start(ctx: ServiceContext, **params: Any) -> dict[str, Any]:
    ask = HookRequest.of(params)
    started = time.perf_counter()
    config = config_mod.load()
    _run_maintenance(ctx, config)
    if off_here(config, ask.repo):  # not even git: the user switched memevo off in this repository
        return _done(ctx, ask, "session_start", started, None, [])
    ctx.anchor_checks.want(ask.repo, ask.folder)  # a queue put: git runs on the checks' own thread
    sharework.want(ctx, ask.folder)  # a stat; a changed .memevo/facts.md is read on its own thread
    if not config["enabled"]:
        return _done(ctx, ask, "session_start", started, None, [])
    text, ids = session_start_text(ctx, config, ask.flavor, ask.max_chars, ask.repo)
    if params.get("echoes") and not ctx.desktop and readiness.state(config, ctx.keys.has()).active:
        from ..learning import stop

        # a dropped continuation's question: the model asks it once the user has spoken
        unasked = stop.undelivered(
            ctx.store, ctx.clock, ask.client, ctx.learner.asker(ask.client, ask.session, 1)
        )
        text = "\n\n".join(p for p in (text, unasked) if p)
    return _done(ctx, ask, "session_start", started, text, ids)


@operation("hook_prompt", service=True)
def on_prompt(ctx: ServiceContext, **params: Any) -> dict[str, Any]:
    """kind: "user" (the user's own words), "other" (not the user's words: no recall, no
    judging, reminder still), "plugin" (our own continuation or notice: nothing at all)."""
    ask = HookRequest.of(params)
    started = time.perf_counter()
    config = config_mod.load()
    kind = str(params.get("kind") or "user")
    prompt = str(params.get("prompt") or "")
    if kind == "plugin" and ask.session:
        from ..learning import stop

        restored = stop.restore(ask.client, ask.session)  # Cursor: the hidden half of a follow-up
        if restored:
            return _done(ctx, ask, "prompt", started, restored, [], asked=prompt)
        asker = ctx.learner.asker(ask.client, ask.session)
        stop.delivered(ctx.store, ctx.clock, ask.client, prompt, asker)  # CodeBuddy: our continuation's echo
    if not config["enabled"] or kind == "plugin" or not prompt.strip() or off_here(config, ask.repo):
        return _done(ctx, ask, "prompt", started, None, [])
    answer = _answer(ctx, ask, prompt) if kind == "user" else None
    if answer is not None:  # the user's reply to our question: answered, nothing else to do with it
        ctx.learner.note_prompt(ask.client, ask.session, ask.repo, prompt)
        if answer.waits:  # a bare number that did not count: the next reply may answer it
            ctx.learner.asked(ask.client, ask.session, answer.waits)
        parts = [answer.context, prompt_reminder(ctx, config, ask.flavor)]
        done = _done(ctx, ask, "prompt", started, "\n\n".join(p for p in parts if p), [], asked=prompt)
        if answer.notice:  # what memevo did, in its own words, where the user sees it (not the model's)
            done["user_notice"] = answer.notice
        return done
    block, ids, skipped, why = "", list[str](), None, None
    if kind == "user":
        block, ids, skipped, why = _recall(ctx, prompt, config, ask.repo)
        _remember_injected(ask, ids)  # a tool call of this turn does not repeat them
        ctx.learner.note_prompt(ask.client, ask.session, ask.repo, prompt)  # client mode's proposals
        _maybe_learn(ctx, config, params, prompt)
    waiting = sharework.waiting_note(ask.folder) if kind == "user" else None
    parts = [p for p in (block, waiting, prompt_reminder(ctx, config, ask.flavor)) if p]
    result = _done(ctx, ask, "prompt", started, "\n\n".join(parts), ids, asked=prompt, why=why)
    if waiting:  # said to the user too, where the client shows memevo's own words
        result["user_notice"] = waiting
    if kind == "user":  # a stat: the facts file changed mid-session (a pull) is read for the next prompts
        sharework.want(ctx, ask.folder)
    if block and config["showRecall"]:
        result["system_message"] = block
    if skipped:
        result["recall_skipped"] = skipped
    return result


@operation("hook_action", service=True)
def on_action(ctx: ServiceContext, **params: Any) -> dict[str, Any]:
    """A tool call about to run (Claude Code PreToolUse; Cursor beforeShellExecution /
    beforeMCPExecution): the rules that govern it, as context for that step. Never blocks:
    the answer only ever adds context, and any failure answers nothing. Memories of other
    repositories are left out as for a prompt; one already injected into this session in the
    last ACTION_REPEAT_S (by the prompt's recall or an earlier call) is not repeated."""
    ask = HookRequest.of(params)
    started = time.perf_counter()
    config = config_mod.load()
    engine = ctx.engine
    if not config["enabled"] or not config["actionRecall"] or engine is None or off_here(config, ask.repo):
        return _done(ctx, ask, "action", started, None, [])
    found: dict[str, memories.Memory] = {}
    try:
        result = engine.recall_action(
            str(params.get("tool") or ""),
            params.get("input"),
            award=False,
            settings=engine.settings(config.values),  # config is read once per request
        )
        hits = result.hits
        if hits:
            try:
                found = ctx.rows.find(ctx.store, [h.id for h in hits], shown.AWARD_LOCK_WAIT_S)
            except StoreBusy:
                found = {}
            hits = shown.applying(hits, found, ask.repo, len(hits))
    except Exception:  # a tool call is never held up by recall
        log.exception("action recall failed")
        return _done(ctx, ask, "action", started, None, [])
    fresh = _not_recently_injected(ask, [h.id for h in hits])
    hits = [h for h in hits if h.id in fresh]
    if not hits:
        return _done(ctx, ask, "action", started, None, [])
    ids = [h.id for h in hits]
    _remember_injected(ask, ids)
    _award(ctx, ids, found, "action recall")
    grouped = [(h.id, _group(ctx, h), _noted(h.text, found.get(h.id))) for h in hits]
    block = texts.action_block(
        [t for _, c, t in grouped if c == "rule"],
        [t for _, c, t in grouped if c == "project"],
        after=bool(params.get("after")),  # CodeBuddy: PostToolUse, with the tool's result
        shared=[t for _, c, t in grouped if c == texts.SHARED],
    )
    asked = tool_call(params.get("tool"), params.get("input"))
    why = _receipt("action", hits, found)
    return _done(ctx, ask, "action", started, block, ids, asked=asked, why=why)


# Where a tool call says what it does: a shell command, the file it edits, else its whole input.
_TOOL_DETAIL = ("command", "file_path", "path", "notebook_path", "target_file", "filePath", "tool_name")


def tool_call(tool: Any, tool_input: Any) -> str:
    """A tool call as the injection log shows what it answered ("Bash: git push"). Only its
    head is kept (the log cuts it further and redacts it), so a large input costs little."""
    name = str(tool or "").strip() or "tool"
    data = tool_input
    if isinstance(data, str) and data.lstrip().startswith("{"):  # some clients send it as JSON
        with contextlib.suppress(ValueError):
            data = json.loads(data)
    detail: Any = data
    if isinstance(data, dict):
        detail = next((data[k] for k in _TOOL_DETAIL if data.get(k)), None)
        if detail is None:  # an MCP tool's arguments: their first values, as words
            detail = " ".join(
                str(v)[: injection_log.EXCERPT_CHARS] for v in itertools.islice(data.values(), 8)
            )
    text = str(detail)[: injection_log.EXCERPT_CHARS * 2] if detail is not None else ""
    return f"{name}: {text}" if text.strip() else name


def _not_recently_injected(ask: HookRequest, ids: list[str]) -> set[str]:
    if not ask.session:
        return set(ids)
    now = time.monotonic()
    with _injected_lock:
        seen = _injected.get((ask.client, ask.session), {})
        return {i for i in ids if now - seen.get(i, -ACTION_REPEAT_S) >= ACTION_REPEAT_S}


def _remember_injected(ask: HookRequest, ids: list[str]) -> None:
    if not ask.session or not ids:
        return
    now = time.monotonic()
    with _injected_lock:
        seen = _injected.pop((ask.client, ask.session), {})
        seen.update(dict.fromkeys(ids, now))
        _injected[(ask.client, ask.session)] = seen  # most recent session last
        while len(_injected) > _SESSIONS_KEPT:
            _injected.pop(next(iter(_injected)))


def _answer(ctx: ServiceContext, ask: HookRequest, prompt: str) -> Any:
    """The user's prompt read as the reply to the questions of this chat that awaited it (the
    store is asked only when one did): reply.Answer, or None when it is not one."""
    waiting = ctx.learner.reply_to(ask.client, ask.session)
    if not waiting:  # the usual prompt: nothing imported, nothing read
        return None
    from ..learning import reply

    try:
        answer = reply.take_answer(ctx.store, ctx.clock, ask.client, ask.session, waiting, prompt)
    except Exception:  # an ordinary prompt then; the proposal stays in `memevo pending`
        log.exception("could not read the reply to a memory question")
        return None
    if answer is not None and answer.result is not None:
        ctx.after_learning(answer.result)
    return answer


def _maybe_learn(ctx: ServiceContext, config: config_mod.Config, params: dict[str, Any], prompt: str) -> None:
    if not readiness.state(config, ctx.keys.has()).side:
        return
    try:
        context = (
            ctx.learner.previous_answer(str(params.get("client")), params.get("session"))
            if config["sideContext"]
            else None
        )
        ctx.learner.learn(params, prompt, context)
    except Exception:  # learning never costs the user their prompt
        log.exception("could not start the side analysis")


def _maybe_learn_lesson(ctx: ServiceContext, config: config_mod.Config, params: dict[str, Any]) -> None:
    """The side judge, at the end of a turn: what the work taught (an error and its fix, a
    decision, a gotcha), from the user's last words and the assistant's answer — only with
    sideContext on (the answer leaves the machine redacted and cut, as the judge's context)."""
    if not config["sideContext"] or not readiness.state(config, ctx.keys.has()).side:
        return
    client, session = str(params.get("client") or ""), params.get("session")
    answer = ctx.learner.previous_answer(client, session)
    said = ctx.learner.last_said(client, session if isinstance(session, str) else None)
    if not answer or not said:
        return
    try:
        ctx.learner.learn(params, said, None, lesson=answer)
    except Exception:  # learning never costs the user their turn
        log.exception("could not start the side analysis of the turn")


@operation("hook_stop", service=True)
def on_stop(ctx: ServiceContext, **params: Any) -> dict[str, Any]:
    """Shows this session's learning results, or asks the user to confirm (headless)."""
    from ..learning import stop

    ask = HookRequest.of(params)
    started = time.perf_counter()
    config = config_mod.load()
    if off_here(config, ask.repo):  # nothing of this session is kept or asked
        return _done(ctx, ask, "stop", started, None, [])
    ctx.learner.remember_answer(
        ask.client, ask.session, params.get("last_assistant_message"), bool(config["sideContext"])
    )
    quiet = params.get("continuation") or params.get("subagent") or not ask.session
    if not quiet and config["enabled"]:
        _maybe_learn_lesson(ctx, config, params)
    # On a desktop the tray app confirms in native dialogs and notifies results itself.
    if quiet or ctx.desktop or not config["enabled"] or not readiness.state(config, ctx.keys.has()).active:
        return _done(ctx, ask, "stop", started, None, [], log_injection=False)
    found = stop.continuation(
        ctx.store,
        ctx.clock,
        ask.client,
        ask.session or "",
        int(config["sideWaitMs"]),
        bool(params.get("echoes")),
        asking=ctx.learner.asking(ask.client, ask.session),  # one question at a time per chat
        on_asked=ctx.learner.asker(ask.client, ask.session),
    )
    result = _done(ctx, ask, "stop", started, found.get("continuation"), [], log_injection=bool(found))
    if found:
        result["notice"] = found["notice"]
        row = client_table.get(ask.client)
        if row is not None and row.stop_notice_waits:
            stop.stash(ask.client, ask.session or "", found["notice"], found["continuation"])
    return result


def off_here(config: config_mod.Config, repo: str | None) -> bool:
    """The user switched memevo off in this repository (`memevo off`): no recall, no learning,
    no staleness checks, nothing kept of its sessions."""
    return repo is not None and repo in config["offRepositories"]


def answer(ctx: ServiceContext, op: str, params: dict[str, Any]) -> dict[str, Any]:
    """A hook operation called directly: what the relayed adapter asks for (core/service/relay.py)."""
    handler = _BY_OP.get(optable.RENAMED.get(op, op))
    if handler is None:
        raise InvalidInput(f"unknown hook operation {op!r}")
    return handler(ctx, **params)


_BY_OP = {
    "hook_session_start": on_session_start,
    "hook_prompt": on_prompt,
    "hook_action": on_action,
    "hook_stop": on_stop,
}


def _recall(
    ctx: ServiceContext, prompt: str, config: config_mod.Config, repo: str | None = None
) -> tuple[str, list[str], str | None, dict[str, Any] | None]:
    """What recall shows for this prompt (core/recall/shown.py): the gate's hits that apply
    here, in order, cut to the recallChars budget; only what is shown is awarded (and logged).
    The gate looks at more candidates than it keeps, so other repositories' facts do not crowd
    out this one's."""
    engine = ctx.engine
    if engine is None:
        return "", [], ctx.engine_error or "the model is still loading", None
    settings = engine.settings(config.values)  # config is read once per request
    wide = dataclasses.replace(settings, top_k=settings.top_k * shown.SCOPE_WIDEN)
    result = engine.recall(prompt, award=False, settings=wide)
    if not result.hits:
        return "", [], result.skipped, None
    try:
        found = ctx.rows.find(ctx.store, [h.id for h in result.hits], shown.AWARD_LOCK_WAIT_S)
    except StoreBusy:  # the gate's own order then
        found = {}
    hits = shown.applying(result.hits, found, repo, settings.top_k)
    if not hits:
        return "", [], "only other repositories' memories matched", None
    ordered = shown.ranked(hits, found)
    kept, left_out = texts.fit_recall(  # a stale memory's note counts toward the budget
        [(h.id, _group(ctx, h), _noted(h.text, found.get(h.id))) for h in ordered], int(config["recallChars"])
    )
    if not kept:
        return "", [], f"no recalled memory fits recallChars={config['recallChars']}", None
    block = texts.recall_block_of(kept, left_out)
    ids = [i for i, _, _ in kept]
    _award(ctx, ids, found, "recall")
    on_show = set(ids)
    why = _receipt("recall", [h for h in ordered if h.id in on_show], found)
    why["left_out"] = [h.id for h in ordered if h.id not in on_show]  # passed the gate, no room
    why["other_repositories"] = len(result.hits) - len(hits)
    return block, ids, None, why


def _receipt(kind: str, hits: list[Any], found: dict[str, memories.Memory]) -> dict[str, Any]:
    """Why each memory was injected, for the injection log (`memevo why`): the signals it passed
    the gate with, and whether it was stale. References only: the books' thread writes it."""
    return {
        "kind": kind,
        "memories": {
            h.id: {**(h.signals or {}), "stale": found[h.id].stale if h.id in found else None} for h in hits
        },
    }


def _group(ctx: ServiceContext, hit: Any) -> str:
    """A hit's group in the block: a fact as a repository's file gave it is the repository's
    (texts.SHARED), not the user's. The labels are kept in memory (sharing.from_files)."""
    if hit.category == "project" and sharing.is_from_file(sharing.from_files(ctx.store), hit.id, hit.text):
        return texts.SHARED
    return str(hit.category)


def _noted(text: str, memory: memories.Memory | None) -> str:
    """A stale memory's text with what may be out of date (its flag, read with its row)."""
    return texts.with_stale_note(text, memory.stale) if memory is not None and memory.stale else text


def _award(ctx: ServiceContext, ids: list[str], found: dict[str, memories.Memory], what: str) -> None:
    """Only what was shown is awarded (core/recall/shown.py, with today's memo: the usual case,
    the same rules recalled again today, decides without the store); the rows and texts kept
    for the next hook then follow."""
    gained = shown.award(ctx.store, ctx.clock, ids, found=found, awards=ctx.awards, what=what)
    if gained is None:
        return
    ctx.rows.drop(list(gained))  # their confidence and award day changed
    if gained:
        ctx.session_starts.clear()  # confidence orders the session start's rules


def _run_maintenance(ctx: ServiceContext, config: config_mod.Config) -> None:
    """Once a day, at the day's first session start; the day it last ran (or was not due) is
    remembered, so later session starts ask the store nothing."""
    today = ctx.clock.local_day(ctx.clock.now_ms())
    if ctx.session_starts.maintained_day == today:
        return
    try:
        report = maintenance.run_if_due(ctx.store, ctx.clock, config)
    except Exception:  # retried by the next session start; never blocks the hook
        log.exception("daily maintenance failed; it will be retried at the next session start")
        return
    ctx.session_starts.maintained_day = today
    if report is not None:
        log.info("daily maintenance: %s", report.as_json())
        ctx.after_maintenance(report.newly_deprecated)


def _done(
    ctx: ServiceContext,
    ask: HookRequest,
    event: str,
    started: float,
    text: str | None,
    ids: list[str],
    log_injection: bool = True,
    asked: str | None = None,
    why: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """asked: the prompt or tool call the text answers; the log keeps a redacted excerpt."""
    elapsed_ms = (time.perf_counter() - started) * 1000
    ctx.books.record_hook(ask.client, event, elapsed_ms)
    if text and log_injection:
        ctx.books.log_injection(ask.client, ask.session, event, ask.prompt_id, ids, len(text), asked, why)
    return {"context": text or None}
