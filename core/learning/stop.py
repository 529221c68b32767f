"""At Stop: wait for this session's analyses, then hand the model what it must show or ask.

Only the jobs of the stopping client and session are waited for, shown or voided; other
sessions' jobs stay for their own Stop. Headless (no tray to raise a native dialog) a proposal
is put to the user in the chat: a continuation carrying MEMORY_CONFIRM_V1 asks the model to
show it in words, with numbered options, and end its turn.

Only the user answers it: their next prompt, read by the prompt hook (learning/reply.py). The
model words the question, so the options it must show are memevo's, in memevo's order, and a
choice that saves counts only by its own words (reply.chosen). The model calls no tool for it:
a question tool's answer never passes a hook, and a model that could answer could confirm its
own proposal (memory_resolve from a model carries out only an answer the user gave this way:
resolve.resolve_for_model). One question at a time per session: while one waits for the
user's reply the next waits its turn.

A continuation can be dropped: the CodeBuddy CLI ignores it in one-shot `-p`. Where the client
echoes a continuation that did reach its model as the next prompt (`Stop hook: …`, the
CodeBuddy CLI), a question stays `ready` (shown_ms: offered once) until that echo names it
(delivered); one never delivered is asked again at the client's next session start.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

from ...hooks import client_table
from ...hooks.clients import base
from .. import atomic, paths
from ..clock import Clock
from ..consolidation.proposals import CLIENT as CONSOLIDATION
from ..service.texts import CONFIRM_MARKER
from ..store.database import Store
from . import jobs, resolve

TITLE = "记忆确认·插件"
NOTICE = base.PLUGIN_NOTICE  # the adapters tell our own notice by it
# Each client's question tool, named in the instruction as the one not to use (its row's
# ask_tool in hooks/client_table.py).
ASK_TOOL = {name: row.ask_tool for name, row in client_table.CLIENTS.items()}
_SESSION_IDS = re.compile(r"sessionID: ([0-9A-Za-z_-]{8,80})")
LABELS = {
    "create_rule": "保存为规则",
    "create_project": "保存为项目事实",
    "reinforce": "强化已有记忆",
    "merge": "合并到已有记忆",
    "replace": "替换已有记忆",
    "discard": "不保存",
}
# The choices that write nothing (a consolidation's discard keeps every memory as it is): the
# only ones a bare number may answer, since the model decides how the options are numbered.
WRITES_NOTHING = ("discard",)
Asked = Callable[[str], None]  # told each job id put to the user in the chat (its reply is awaited)


def _none(job_id: str) -> None:
    return None


def wait_for_session(store: Store, client: str, session: str, wait_ms: int) -> None:
    deadline = time.monotonic() + wait_ms / 1000
    while time.monotonic() < deadline and jobs.of_session(store, client, session, ("running",)):
        time.sleep(0.1)


def continuation(
    store: Store,
    clock: Clock,
    client: str,
    session: str,
    wait_ms: int,
    echoed: bool = False,
    asking: bool = False,
    on_asked: Asked = _none,
) -> dict[str, Any]:
    """{"continuation": full text for the model, "notice": one short line for the user} or {}.
    echoed: the client echoes a continuation that reached its model as the next prompt: a
    question counts as asked only then (delivered). asking: a question of this session still
    waits for the user's reply: no other is asked now. on_asked: told each question asked."""
    wait_for_session(store, client, session, wait_ms)
    now = clock.now_ms()
    parts: list[str] = []
    results = jobs.of_session(store, client, session, ("applied",))
    for job in results:
        jobs.update(store, job.id, now, status="done", shown_ms=now)
    refused = jobs.of_session(store, client, session, ("refused",))
    for job in refused:
        jobs.update(store, job.id, now, status="done", shown_ms=now)
    messages = [str((j.result or {}).get("message", "")) for j in results]
    messages += [f"这条记忆没有写入：{j.error}" for j in refused]
    if messages:
        lines = "\n".join(messages)
        parts.append(f"{NOTICE}。请把下面的结果原样展示给用户，不要改写，也不要做别的事：\n{lines}")
    question = None if asking else _next_question(store, client, session)
    if question is not None:
        if question.client != CONSOLIDATION:
            for stale in jobs.of_session(store, client, session, ("shown",)):
                jobs.update(store, stale.id, now, status="voided")  # a new question voids the unanswered one
        # offered: asked once it is known to have reached the model
        jobs.update(store, question.id, now, status="ready" if echoed else "shown", shown_ms=now)
        if not echoed:
            on_asked(question.id)
        parts.append(confirm_instruction(client, question))
    if not parts:
        return {}
    text = "\n\n".join(parts)
    summary = _short(question) if question is not None else ""
    summary = summary or "；".join(str((j.result or {}).get("message", "")).split("\n")[0] for j in results)
    return {"continuation": text, "notice": f"{NOTICE}：{summary}"}


def _next_question(store: Store, client: str, session: str) -> jobs.Job | None:
    """This session's oldest proposal waiting to be asked, else (headless, a consolidation is
    put to the user in the next chat that stops) the oldest consolidation never asked."""
    ready = jobs.of_session(store, client, session, ("ready",))
    return ready[0] if ready else _next_consolidation(store)


def _next_consolidation(store: Store) -> jobs.Job | None:
    """The oldest consolidation proposal (core/consolidation/) never put to the user yet."""
    waiting = [
        j for j in jobs.pending(store) if j.client == CONSOLIDATION and j.status == "ready" and not j.shown_ms
    ]
    return waiting[0] if waiting else None


def confirm_instruction(client: str, job: jobs.Job) -> str:
    """The in-chat question, for every client: in words, numbered, then the turn ends; the
    user's reply is read by the prompt hook (reply.take_answer), never by a tool call of the model."""
    proposal = job.proposal or {}
    offered = resolve.options(proposal)
    numbered = "；".join(f"{n}. {label(d, proposal)}（{d}）" for n, d in enumerate(offered, 1))
    saving = next((label(d, proposal) for d in offered if d not in WRITES_NOTHING), None)
    tool = ASK_TOOL.get(client, "AskUserQuestion")
    how = (
        f"请用户回复选项的名称（例如「{saving}」），并告诉用户：要保存或改动记忆必须写出选项名称，只回编号只能表示放弃，"
        if saving
        else "请用户回复选项名称或编号，"
    )
    return (
        f"{CONFIRM_MARKER}\n"
        f"memory-self-evolution 请你向用户确认一条记忆（不要自己判断，也不要改写任何内容）。\n"
        f"sessionID: {job.id}\n"
        + (f"用户原话：{job.words}\n" if job.words else "")  # a consolidation has none
        + f"提议：{describe(proposal)}\n"
        f"请直接用文字问用户：以「{TITLE}」开头，把上面的提议原样给用户看，按这个顺序原样列出选项（{numbered}），"
        f"{how}然后结束这一轮回答。\n"
        f"不要用 {tool} 之类的提问工具（它的回答插件收不到），不要替用户选择，也不要调用 memory_resolve："
        "只有用户自己的下一句回复算数，插件会直接处理它，并在那一轮的上下文里告诉你结果。\n"
        "用户的回复没有选任何一项时，照常回应用户说的话；这条记忆留着，用户可以在终端运行 `memevo pending` 处理。"
    )


def delivered(store: Store, clock: Clock, client: str, prompt: str, on_asked: Asked = _none) -> list[str]:
    """A continuation of ours that came back as the next prompt (echoed: it reached the model):
    the questions it names, still `ready`, are asked now (shown). Returns their ids."""
    now = clock.now_ms()
    named = set(_SESSION_IDS.findall(prompt))
    asked = []
    for job_id in named:
        job = jobs.get(store, job_id)
        ours = job is not None and job.client in (client, CONSOLIDATION)
        if job is not None and ours and job.status == "ready" and job.shown_ms:
            jobs.update(store, job.id, now, status="shown", shown_ms=now)
            on_asked(job.id)
            asked.append(job.id)
    return asked


def undelivered(store: Store, clock: Clock, client: str, on_asked: Asked = _none) -> str | None:
    """The client's oldest question offered in a continuation that never reached its model
    (the CodeBuddy CLI's one-shot `-p` drops it): asked again, in the next session start's
    context (which always reaches it), from whichever session of that client starts next. The
    model asks it once the user has spoken, so the reply after that one is the answer."""
    waiting = [j for j in jobs.pending(store) if j.client == client and j.status == "ready" and j.shown_ms]
    if not waiting:
        return None
    job = waiting[0]  # one question at a time; the others at the next session starts
    jobs.update(store, job.id, clock.now_ms(), status="shown", shown_ms=clock.now_ms())
    on_asked(job.id)
    intro = "memory-self-evolution：上一次会话结束时有记忆等用户确认，但那条确认没有送到你这里。"
    note = "在回应用户的第一句话时顺便问这个问题。"
    return "\n\n".join([intro + note, confirm_instruction(client, job)])


def label(decision: str, proposal: dict[str, Any] | None = None) -> str:
    """A decision as the in-chat question names it (keep:<id>: a consolidation's choice)."""
    if decision.startswith("keep:"):
        return f"保留 #{decision.removeprefix('keep:')}，其余移到回收站"
    if (proposal or {}).get("origin") == "consolidate":
        return {"merge": "合并为一条", "discard": "都保留，不再提议"}.get(decision, decision)
    return LABELS.get(decision, decision)


def describe(proposal: dict[str, Any]) -> str:
    """One line saying what a proposal would do (the in-chat question and the dialog)."""
    action = proposal.get("action")
    if proposal.get("origin") == "consolidate":
        listed = "；".join(f"#{m.get('id')}「{m.get('text')}」" for m in proposal.get("members", []))
        what = "几条记忆说的是同一件事" if proposal.get("kind") == "duplicate" else "两条记忆互相矛盾"
        merged = f"，合并为「{proposal.get('merged_text')}」" if proposal.get("merged_text") else ""
        return f"整理记忆：{what}：{listed}{merged}"
    group = "规则" if proposal.get("category") == "rule" else "项目事实"
    if action == "reinforce":
        return f"强化已有记忆 #{proposal.get('target')}「{proposal.get('target_text')}」"
    if action == "merge":
        return f"与已有记忆 #{proposal.get('target')}「{proposal.get('target_text')}」合并为「{proposal.get('merged_text')}」"
    if action == "replace":
        return f"用「{proposal.get('replace_text')}」替换已有记忆 #{proposal.get('target')}「{proposal.get('target_text')}」"
    return f"新增{group}「{proposal.get('text')}」"


def _short(job: jobs.Job) -> str:
    return str((job.proposal or {}).get("text", ""))[:60]


# Cursor shows followup_message as a user message: the user sees one short line, the full
# instruction waits in a file per client and session, restored by the next prompt hook.
def _stash_path(client: str, session: str) -> Any:
    import hashlib

    key = hashlib.sha256(f"{client}\x1f{session}".encode()).hexdigest()[:24]
    return paths.data_dir() / "side" / f"confirm-{client}-{key}.json"


def stash(client: str, session: str, notice: str, instruction: str) -> None:
    atomic.write_text(
        _stash_path(client, session),
        json.dumps({"notice": notice, "instruction": instruction}, ensure_ascii=False),
        mode=0o600,
    )


def restore(client: str, session: str) -> str | None:
    path = _stash_path(client, session)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    path.unlink(missing_ok=True)
    return str(data.get("instruction") or "") or None
