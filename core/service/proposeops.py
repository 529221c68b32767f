"""The `propose` operation: a memory proposed by a client's own model (MCP memory_propose).

The service decides what it can (an equal memory is reinforced), hands similar memories back
to the model to choose, and then asks the user as configured: the tray's native dialog on a
desktop, the in-chat question headless (the instruction comes back in the tool's answer; the
user's own next prompt answers it, learning/reply.py), or writes at once when confirmation is
off — unless the quote is too short, unrelated to the text, or not among what the user said in
that session, in which case it asks all the same (an injected instruction cannot write by
itself). A proposal that changes a memory the user has (replace, merge) always waits for the
user, whatever `confirm` says, and its target must be a live memory about the same thing (one
this tool would name as a candidate for the text). Caps per session and per day bound what any
model can queue.

A proposal is asked in the chat only when the service knows which chat it comes from
(Learner.chat_of): otherwise a "1" typed in another chat of the same client could answer it,
and it waits for the dialog or `memevo pending` instead.

`propose_edit` is memory_update's rewrite of a memory: never written by the model's call, always
a proposal the user confirms the same way, whatever `confirm` says.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from .. import config as config_mod
from ..errors import InvalidInput, NotFound
from ..learning import jobs, propose, readiness, resolve, stop
from ..memories import live as memories
from ..memories import scopes
from ..memories import text as memory_text
from ..ops.table import operation
from ..printable import printable
from ..recall.textfilter import redact_secrets
from .context import ServiceContext
from .learning_worker import Chat

if TYPE_CHECKING:
    from ..recall.engine import RecallEngine

log = logging.getLogger("memevo.service")
MODE_WORDS = {
    readiness.SIDE: "learning is done by the side judge here (learning=side, or auto with a side API): "
    "the plugin analyses the user's words itself; do not propose",
    readiness.OFF: "learning is off (learning=off, paused, or the side API it was set to use is not "
    "configured): tell the user this will not be remembered",
}
# Actions that change a memory the user already has: never written on a model's word alone (a
# prompt-injected model would rewrite the rules it is held to). Reinforce only raises the
# confidence of a memory about the same thing, so with confirmation off it may stay automatic.
CHANGES = ("replace", "merge")
CHANGES_NOTE = "（这条提议会改动一条已有记忆，所以即使关闭了确认也要用户确认。）"
UNVERIFIED_NOTE = (
    "（用户原话太短、与这条记忆无关或没有在本会话的输入里找到，所以即使关闭了确认也要用户确认。）"
)
NAMED_CHARS = 200  # a session id as a client names it (Claude Code: a UUID)
# Taking a chat's one question and keeping the proposal that took it are one step: in a flood of
# concurrent proposals the question went to one the caps then refused while the others had been
# told to wait, and no question was asked at all.
_ASKING = threading.Lock()


@operation("propose", service=True)
def op_propose(
    ctx: ServiceContext,
    client: Any = "",
    instance: Any = "",
    cwd: Any = None,
    text: Any = None,
    category: Any = None,
    words: Any = None,
    scope: Any = "repo",
    cues: Any = None,
    action: Any = None,
    target: Any = None,
    chat: Any = None,
) -> dict[str, Any]:
    """client, instance and chat (the session the client named to its MCP server, if any) come
    from the MCP server's registration, process and environment, never from the model. Returns
    {"status", "message"} (and "sessionID" once a proposal exists):
    candidates | pending | ask | queued | applied | duplicate."""
    config = config_mod.load()
    state = readiness.state(config, ctx.keys.has())
    if not config["enabled"]:
        raise InvalidInput("memevo is paused (enabled=false): nothing is learned; tell the user")
    if state.mode != readiness.CLIENT:
        raise InvalidInput(MODE_WORDS[state.mode])
    proposed = propose.check(text, category, words, scope, cues, action, target)
    who = str(client) or "unknown"
    repo = scopes.repo_of(cwd if isinstance(cwd, str) else None)
    found = ctx.learner.chat_of(who, repo, _named(chat))
    session = _session(found, instance)
    job_id = propose.job_id(who, session, proposed)
    if jobs.get(ctx.store, job_id) is not None:  # asked again: never a second job or award
        return _already(ctx, job_id)
    chosen, target_memory = _decide(ctx, proposed)
    if chosen is None:  # similar memories: the model compares and calls again
        return {"status": "candidates", "message": propose.candidates_text(target_memory or [])}
    verified = propose.quote_supports(proposed.words, proposed.text) and ctx.learner.user_said(
        who, found.sessions, proposed.words
    )
    now = ctx.clock.now_ms()
    made = propose.proposal(proposed, chosen, target_memory, repo, ctx.clock.local_day(now), verified)
    changes = chosen in CHANGES
    status = "running" if not (config["confirm"] or changes or not verified) else "ready"
    if status != "running" and not config["confirm"]:
        why = "it changes a memory" if changes else "its words are not the user's"
        log.info("client proposal %s held for confirmation: %s", job_id[:8], why)
    caps = (int(config["proposalsPerSession"]), int(config["proposalsPerDay"]))
    with _ASKING:  # the chat's one question goes to a proposal that is then kept, not one capped
        if status != "running":
            status = _waiting_status(ctx, who, found.session, job_id)
        created = jobs.create_proposed(
            ctx.store, job_id, who, session, proposed.words, now, made, status, caps, repo
        )
        if created != "created" and status == "shown":
            ctx.learner.forget_asked(who, session, job_id)
    if created == "exists":
        return _already(ctx, job_id)
    if created in ("session", "day"):
        raise _capped(created, config)
    job = jobs.get(ctx.store, job_id)
    assert job is not None
    if status == "running":
        return _apply_now(ctx, job)
    note = CHANGES_NOTE if changes and not config["confirm"] else ""
    if not verified and not config["confirm"]:
        note += UNVERIFIED_NOTE
    return _asked(ctx, job, note, in_chat=found.session is not None)


def _named(chat: Any) -> str | None:
    """The session the client named to its MCP server, if it is one."""
    if isinstance(chat, str) and chat.strip() and len(chat) <= NAMED_CHARS:
        return chat.strip()
    return None


def _session(found: Chat, instance: Any) -> str:
    """The session a proposal is kept under: its chat, else this MCP server process (no chat
    ever answers that one: the dialog or `memevo pending` does)."""
    return found.session or f"mcp-{str(instance)[:40] or 'unknown'}"


def _waiting_status(ctx: ServiceContext, client: str, session: str | None, job_id: str) -> str:
    """How a proposal waits for the user: `ready` for the tray's dialog on a desktop; headless
    `shown` (the tool's answer asks it in the chat now: the user's next prompt answers it), or
    `ready` while another question of this chat still waits for the user's reply (asked at a
    later Stop: one at a time), or when its chat is not known (never asked in a chat)."""
    if not ctx.desktop and session and ctx.learner.ask_first(client, session, job_id):
        return "shown"
    return "ready"


def _asked(ctx: ServiceContext, job: jobs.Job, note: str = "", in_chat: bool = True) -> dict[str, Any]:
    """The tool's answer for a proposal that waits for the user."""
    if job.status == "shown":
        asked = stop.confirm_instruction(job.client, job)
        return {"status": "ask", "sessionID": job.id, "message": f"{asked}\n{note}" if note else asked}
    if ctx.desktop:
        return {
            "status": "pending",
            "sessionID": job.id,
            "message": "已交给用户在 memevo 的确认弹窗里决定，现在还没有写入。不要再次提交这一条，"
            f"也不要自己写到别处；告诉用户：请在弹出的「{ctx.confirm_window}」窗口里选择"
            "（也可以用 `memevo pending` 查看）。" + note,
        }
    if not in_chat:
        short = job.id[:8]
        return {
            "status": "pending",
            "sessionID": job.id,
            "message": "已记下，现在还没有写入。插件不能确定这条提议来自用户的哪个对话（这个客户端最近有不止一个对话，"
            "或这个对话最近没有经过插件的输入），所以这条记忆不在对话里确认：不要在对话里问用户选哪一项，"
            "用户在对话里的回复也不会被当作回答。不要再次提交这一条，也不要自己写到别处；请告诉用户：有一条记忆在等他确认，"
            f"可以在终端运行 `memevo pending` 查看，`memevo pending accept {short}` 保存，"
            f"`memevo pending discard {short}` 放弃。" + note,
        }
    return {
        "status": "queued",
        "sessionID": job.id,
        "message": "已记下，现在还没有写入：用户还没回答上一个记忆确认，这一条排在它后面，"
        "插件会在之后的回合结束时再请你问用户。现在不要问这一条，也不要再次提交或自己写到别处。" + note,
    }


@operation("propose_edit", service=True)
def op_propose_edit(
    ctx: ServiceContext,
    client: Any = "",
    instance: Any = "",
    cwd: Any = None,
    id: Any = None,
    text: Any = None,
    chat: Any = None,
) -> dict[str, Any]:
    """memory_update's rewrite (client, instance and chat from the MCP server, never the model):
    a proposal the user confirms — the dialog, `memevo pending`, or the chat's own reply when
    its chat is known — even with confirmation off, since nothing the user said vouches for it."""
    config = config_mod.load()
    if not isinstance(id, str) or not id.strip() or len(id) > propose.ID_CHARS:
        raise InvalidInput("replace needs id: the memory to rewrite")
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("replace needs text: the memory's new text, 6 to 400 characters")
    body = memories.check_text(redact_secrets(memory_text.remove_unsafe(text[:4000])).strip())
    try:
        target = memories.get(ctx.store, id.strip().lstrip("#"))
    except NotFound:
        raise InvalidInput(f"no memory #{printable(id[: propose.ID_CHARS])}") from None
    who = str(client) or "unknown"
    repo = scopes.repo_of(cwd if isinstance(cwd, str) else None)
    found = ctx.learner.chat_of(who, repo, _named(chat))
    session = _session(found, instance)
    job_id = propose.edit_job_id(who, session, target.id, body)
    if jobs.get(ctx.store, job_id) is not None:
        return _already(ctx, job_id)
    now = ctx.clock.now_ms()
    made = propose.edit_proposal(target, body, ctx.clock.local_day(now))
    caps = (int(config["proposalsPerSession"]), int(config["proposalsPerDay"]))
    with _ASKING:
        status = _waiting_status(ctx, who, found.session, job_id)
        created = jobs.create_proposed(ctx.store, job_id, who, session, "", now, made, status, caps, repo)
        if created != "created" and status == "shown":
            ctx.learner.forget_asked(who, session, job_id)
    if created == "exists":
        return _already(ctx, job_id)
    if created in ("session", "day"):
        raise _capped(created, config)
    job = jobs.get(ctx.store, job_id)
    assert job is not None
    return _asked(ctx, job, in_chat=found.session is not None)


def _decide(ctx: ServiceContext, proposed: propose.Proposed) -> tuple[str | None, Any]:
    """(action, target memory) when decided; (None, candidates) when the model must choose.
    A target the model names must be one this tool would name for the text: live, not
    deprecated, and as close to it as a candidate (SIMILAR_MIN) — so a quote about one thing
    cannot reinforce, merge into or replace an unrelated memory (a pinned rule, one the user
    let decay)."""
    if proposed.action in ("reinforce", "merge", "replace"):
        named = printable(str(proposed.target)[: propose.ID_CHARS])
        try:
            target = memories.get(ctx.store, str(proposed.target))
        except NotFound:
            raise InvalidInput(f"no memory #{named}: use an id this tool named as a candidate") from None
        if target.deprecated or not _close(ctx, proposed.text, target.id):
            raise InvalidInput(
                f"#{named} is not one of the memories this tool names for this text (a live memory about "
                "the same thing); nothing was kept. Call memory_propose again without action and target "
                "to see the candidates, or with action=create"
            )
        return proposed.action, target
    same = _same(ctx, proposed)
    if same is not None:
        return "reinforce", same
    if proposed.action == "create":
        return "create", None
    near = _engine(ctx).nearest(proposed.text, propose.CANDIDATES)
    close = [(i, s) for i, s in near if s >= propose.SIMILAR_MIN]
    found = memories.find(ctx.store, [i for i, _ in close]) if close else {}
    candidates = [(found[i], s) for i, s in close if i in found and not found[i].deprecated]
    if candidates:
        return None, candidates
    return "create", None


def _engine(ctx: ServiceContext) -> RecallEngine:
    engine = ctx.engine
    if engine is None:
        raise InvalidInput(ctx.engine_error or "the model is still loading; try again in a few seconds")
    return engine


def _close(ctx: ServiceContext, text: str, memory_id: str) -> bool:
    """Whether a live memory is as close to `text` as a candidate must be (the candidates'
    measure: cosine of the centred vectors)."""
    engine = _engine(ctx)
    index = engine.index
    score = index.scores_of(index.centre_query(engine.encoder.encode_one(text)), [memory_id]).get(memory_id)
    return score is not None and score >= propose.SIMILAR_MIN


def _same(ctx: ServiceContext, proposed: propose.Proposed) -> memories.Memory | None:
    """A live memory saying exactly this (case, width, spaces and punctuation aside)."""
    wanted = propose.normalised(proposed.text)
    for memory in memories.live(ctx.store):
        if propose.normalised(memory.text) == wanted:
            return memory
    return None


def _apply_now(ctx: ServiceContext, job: jobs.Job) -> dict[str, Any]:
    """Confirmation off and the words are the user's: written now. On a desktop the tray
    notifies it (applied); headless the model is told here and shows it (done)."""
    proposal = job.proposal or {}
    now = ctx.clock.now_ms()
    try:
        result = resolve.apply(
            ctx.store, ctx.clock, proposal, resolve.default_decision(proposal), origin=resolve.origin_of(job)
        )
    except InvalidInput as exc:
        jobs.update(ctx.store, job.id, now, status="refused", error=str(exc))
        raise
    except Exception as exc:  # never left running: Stop would wait for it
        jobs.update(ctx.store, job.id, now, status="failed", error=f"internal: {exc}")
        raise
    jobs.update(
        ctx.store,
        job.id,
        now,
        status="applied" if ctx.desktop else "done",
        result=result,
        shown_ms=None if ctx.desktop else now,
        resolved_ms=now,
    )
    ctx.after_learning(result)
    return {
        "status": "applied",
        "sessionID": job.id,
        "message": f"{stop.NOTICE}。请把下面的结果原样告诉用户：\n{result.get('message', '')}",
    }


def _already(ctx: ServiceContext, job_id: str) -> dict[str, Any]:
    job = jobs.get(ctx.store, job_id)
    state = job.status if job else "handled"
    told = {
        "ready": "它正在等用户在确认弹窗里决定",
        "shown": "它正在等用户确认",
        "running": "它正在处理",
        "applying": "它正在写入",
    }.get(state, f"它已经处理过了（{state}）")
    return {
        "status": "duplicate",
        "sessionID": job_id,
        "message": f"这一条在本会话里已经提交过，{told}；没有重复记下。不要再提交它。",
    }


def _capped(which: str, config: config_mod.Config) -> InvalidInput:
    if which == "session":
        limit, key = config["proposalsPerSession"], "proposalsPerSession"
        scope = "本会话"
    else:
        limit, key = config["proposalsPerDay"], "proposalsPerDay"
        scope = "今天"
    return InvalidInput(
        f"{scope}的记忆提议已达上限（{key}={limit}），这条没有记下；不要再提交，告诉用户可以用 "
        f'`memevo rule add "…"` 或 `memevo project add "…"` 直接写入，或用 `memevo config {key} N` 调高上限。'
    )
