"""The resolve operation: turn a proposal into a memory, under the seed's rules.

Decisions: create_rule, create_project, reinforce, merge, replace, discard. Create and
discard are always allowed; the others only when the proposal offered them. Text and target
come from the proposal only (the confirmation dialog's edit is the user's own, and only the
dialog may pass one). Invalid, cross-client, already-handled or mismatched ids are refused.

Only the user answers a proposal: `resolve` is what the user's own surfaces call (the dialog,
`memevo pending`, the user's reply in the chat, read by the prompt hook); a model's
memory_resolve goes through `resolve_for_model`, which carries out only the answer the user
gave in the chat and refuses anything else — a model that proposes cannot confirm.
"""

from __future__ import annotations

from typing import Any

from ..clock import Clock
from ..consolidation import proposals as consolidation
from ..errors import InvalidInput, NotFound
from ..memories import cues, origins
from ..memories import live as memories
from ..printable import printable
from ..store.database import Store
from . import jobs

DECISIONS = ("create_rule", "create_project", "reinforce", "merge", "replace", "discard")
GROUP_LABEL = {"rule": "归类：rule（规则与偏好）", "project": "归类：project（项目事实）"}


class ResolveRejected(InvalidInput):
    pass


def options(proposal: dict[str, Any], by_hand: bool = False) -> list[str]:
    """The decisions a proposal offers. by_hand: asked by the tray's dialog, where the user
    can write a text — a consolidation's near-duplicates may then be merged without a side
    model's merged text (the user picks a member's text or edits one)."""
    if consolidation.is_consolidation(proposal):  # merge, keep:<id> for each member, discard
        offered = [str(d) for d in proposal.get("options") or ["discard"]]
        if by_hand and consolidation.mergeable_by_hand(proposal) and "merge" not in offered:
            offered.insert(0, "merge")
        return offered
    if proposal.get("edit") and proposal.get("target"):  # memory_update's rewrite: that, or nothing
        return [str(proposal.get("action")), "discard"]
    offered = ["create_rule", "create_project"]
    if proposal.get("action") in ("reinforce", "merge", "replace") and proposal.get("target"):
        offered.append(str(proposal["action"]))
    return [*offered, "discard"]


def default_decision(proposal: dict[str, Any]) -> str:
    if consolidation.is_consolidation(proposal):  # the first offered: merge, else keep the first
        return options(proposal)[0]
    action = str(proposal.get("action") or "create")
    return f"create_{proposal.get('category', 'rule')}" if action == "create" else action


ECHO_CHARS = 80  # what a refusal repeats of the caller's words (a model may send megabytes)


def _echo(value: str) -> str:
    """The caller's value as a refusal quotes it: whole when short, else its start and length;
    its control characters as escapes (a client may print the error on a terminal)."""
    shown = printable(value[:ECHO_CHARS])
    return shown if len(value) <= ECHO_CHARS else f"{shown}… ({len(value)} characters)"


def _client_job(store: Store, client: str, job_id: str) -> tuple[jobs.Job, str]:
    """The job a client may answer, and its id as a refusal quotes it."""
    job = jobs.get(store, job_id)
    shown = _echo(job_id)
    if job is None:
        raise ResolveRejected(f"unknown sessionID {shown}")
    # a consolidation proposal is no client's own: any client's chat may put it to the user
    if job.client != client and job.client != consolidation.CLIENT:
        raise ResolveRejected(f"sessionID {shown} belongs to another client ({job.client})")
    return job, shown


def resolve(
    store: Store, clock: Clock, client: str, job_id: str, decision: str, edited_text: str | None = None
) -> dict[str, Any]:
    job, shown = _client_job(store, client, job_id)
    if job.status not in ("ready", "shown") or job.proposal is None:
        raise ResolveRejected(f"sessionID {shown} is already handled ({job.status})")
    ours = consolidation.is_consolidation(job.proposal)
    offered = options(job.proposal, by_hand=edited_text is not None)  # a text comes only from the dialog
    if (decision not in DECISIONS and not ours) or decision not in offered:
        raise ResolveRejected(
            f"decision {_echo(decision)!r} was not offered for {shown} (offered: {', '.join(offered)})"
        )
    was = jobs.claim(store, job_id)
    if was is None:  # answered meanwhile (the dialog, a terminal, the chat)
        raise ResolveRejected(f"sessionID {shown} is already handled")
    try:
        if ours:
            result = consolidation.apply(store, clock, job.proposal, decision, edited_text)
        else:
            result = apply(store, clock, job.proposal, decision, edited_text, origin_of(job))
    except InvalidInput as exc:
        if ours:  # a member changed meanwhile: this proposal is void
            jobs.update(store, job_id, clock.now_ms(), status="voided", error=str(exc))
            raise ResolveRejected(str(exc)) from exc
        jobs.release(store, job_id, was)  # e.g. an edited text out of range: the user may try again
        raise
    except BaseException:
        jobs.release(store, job_id, was)
        raise
    jobs.update(store, job_id, clock.now_ms(), status="done", result=result, resolved_ms=clock.now_ms())
    return result


ONLY_THE_USER = (
    "这条记忆只能由用户自己确认，不能由你代为回答，所以没有写入。请按插件给的顺序用文字把问题和选项给用户看"
    "（要保存，用户须回复选项名称），然后结束这一轮回答、等用户回复；用户的下一句回复由插件直接处理。"
    "用户也可以在终端运行 `memevo pending`。"
)


def resolve_for_model(store: Store, clock: Clock, client: str, job_id: str, decision: str) -> dict[str, Any]:
    """memory_resolve, called by a client's model: accepted only as the answer the user gave
    in this client's chat (kept on the job by the prompt hook, `answered`). The prompt hook
    writes that answer at once; a call after it reports it, a call without it is refused."""
    job, shown = _client_job(store, client, job_id)
    answered = (job.proposal or {}).get("answered")
    by_user = isinstance(answered, dict) and answered.get("client") == client
    if not by_user:
        if job.status in ("ready", "shown"):
            raise ResolveRejected(ONLY_THE_USER)
        raise ResolveRejected(f"sessionID {shown} is already handled ({job.status})")
    assert isinstance(answered, dict)
    chosen = str(answered.get("decision"))
    if decision != chosen:
        raise ResolveRejected(
            f"用户选的是 {chosen}，不是 {_echo(decision)}：只能按用户自己的回答处理，没有改动任何记忆。"
        )
    if job.status in ("ready", "shown"):  # the hook could not write it: the user's answer, now
        return resolve(store, clock, client, job_id, chosen)
    if job.status == "done" and job.result is not None:
        message = str(job.result.get("message", ""))
        return dict(job.result) | {
            "message": f"用户已经在对话里回答过，插件已按用户的选择处理（没有重复处理）：\n{message}"
        }
    raise ResolveRejected(f"sessionID {shown} is already handled ({job.status})")


def origin_of(job: jobs.Job) -> dict[str, Any]:
    """Where a job's proposal came from, as a memory's history keeps it (core/memories/origins.py)."""
    proposer = str((job.proposal or {}).get("origin") or origins.SIDE)
    return {"client": job.client, "session": job.session, "proposer": proposer, "words": job.words}


def apply(
    store: Store,
    clock: Clock,
    proposal: dict[str, Any],
    decision: str,
    edited_text: str | None = None,
    origin: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The decision applied; the memory it lands in keeps `origin` in its history and the
    proposal's recall cues (the client's model writes them with its proposal)."""
    result = _apply(store, clock, proposal, decision, edited_text)
    memory = result.get("memory")
    if isinstance(memory, dict) and isinstance(memory.get("id"), str):
        now = clock.now_ms()
        if origin is not None:
            origins.record(store, memory["id"], now, origin, str(result.get("action")))
        written = cues.clean(proposal.get("cues"))
        if written:
            cues.save(store, memory["id"], str(memory["text"]), written, now)
    return result


def _apply(
    store: Store, clock: Clock, proposal: dict[str, Any], decision: str, edited_text: str | None = None
) -> dict[str, Any]:
    if decision == "discard":
        return {"action": "discard", "message": "已放弃这条记忆，没有写入。"}
    text = edited_text.strip() if edited_text else None
    target = proposal.get("target")
    if decision in ("reinforce", "merge", "replace") and not _live(store, str(target)):
        decision = f"create_{proposal.get('category', 'rule')}"  # the target went away meanwhile
    if decision.startswith("create_"):
        category = decision.removeprefix("create_")
        scope = proposal.get("scope") if category == "project" else None  # rules stay global
        return _create(store, clock, category, text or str(proposal["text"]), scope)
    if decision == "reinforce":
        memory, gained = memories.reinforce(store, str(target), clock)
        return _result(
            "reinforce",
            memory,
            f"强化了已有记忆 #{memory.id}（置信度 +{gained / 100:g}）：{memory.text}",
            gained=gained / 100,
        )
    if decision == "merge":
        memory, gained = memories.merge_learned(
            store, str(target), text or str(proposal["merged_text"]), clock
        )
        return _result(
            "merge",
            memory,
            f"合并进已有记忆 #{memory.id}（置信度 +{gained / 100:g}）：{memory.text}",
            gained=gained / 100,
        )
    memory = memories.replace_learned(store, str(target), text or str(proposal["replace_text"]), clock)
    return _result("replace", memory, f"替换了已有记忆 #{memory.id}：{memory.text}")


def _create(store: Store, clock: Clock, category: str, text: str, scope: Any = None) -> dict[str, Any]:
    duplicate = _same_text(store, text)
    if duplicate is not None:  # another session wrote it meanwhile: reinforce, never duplicate
        memory, gained = memories.reinforce(store, duplicate.id, clock)
        return _result(
            "reinforce",
            memory,
            f"这条记忆已存在，强化了 #{memory.id}（置信度 +{gained / 100:g}）：{memory.text}",
            gained=gained / 100,
            existed=True,
        )
    memory = memories.create(store, category, text, clock, scope if isinstance(scope, str) else None)
    return _result("create", memory, f"新增记忆 #{memory.id}（置信度 0.5）：{memory.text}")


def _result(action: str, memory: memories.Memory, message: str, **fields: Any) -> dict[str, Any]:
    """What was done: `message` in Chinese for the chat and the command line; the structured
    fields (action, memory, gained: the confidence added, existed: another session had written
    the same text) for a surface that words it in its own language (the tray's notification)."""
    return {
        "action": action,
        "memory": memory.as_json(),
        **fields,
        "message": f"{message}\n{GROUP_LABEL[memory.category]}",
    }


def _live(store: Store, memory_id: str) -> bool:
    """Still in the store (a deprecated target may be revived by reinforce or merge)."""
    try:
        memories.get(store, memory_id)
    except NotFound:
        return False
    return True


def _same_text(store: Store, text: str) -> memories.Memory | None:
    rows = store.query("SELECT id FROM memories WHERE text = ? AND NOT deprecated LIMIT 1", [text.strip()])
    return memories.get(store, rows[0][0]) if rows else None
