"""At Stop: wait for this session's analyses, then hand the model what it must show or ask.

Only the jobs of the stopping client and session are waited for, shown or voided; other
sessions' jobs stay for their own Stop. Headless (no tray to raise a native dialog) a proposal
is put to the user in the chat: a continuation carrying MEMORY_CONFIRM_V1 asks the model to
show it in words, with numbered options, and end its turn.

Only the user answers it. Their next prompt reaches the service through the prompt hook, and
`take_answer` reads it: a reply that is essentially one of the choices (its number, its label
or its decision name) is the answer, written at once and reported to the model in that
prompt's context. The model calls no tool for it: a question tool's answer never passes a
hook, and a model that could answer could confirm its own proposal (memory_resolve from a
model carries out only an answer the user gave this way: resolve.resolve_for_model). One
question at a time per session: while one waits for the user's reply the next waits its turn,
so a bare "1" can only mean one thing; a reply that is not an answer ends the wait, and the
proposal stays in `memevo pending`.

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
from dataclasses import dataclass
from typing import Any

from .. import atomic, paths
from ..clock import Clock
from ..consolidation.proposals import CLIENT as CONSOLIDATION
from ..errors import InvalidInput
from ..service.texts import CONFIRM_MARKER
from ..store import Store
from . import jobs, resolve
from .propose import normalised

TITLE = "记忆确认·插件"
NOTICE = "memory-self-evolution 捕捉到了新的记忆"
# Each client's question tool: named in the instruction as the one not to use (its answer goes
# back to the model only, never through a hook, so the user's choice would never reach us).
ASK_TOOL = {
    "claude": "AskUserQuestion",
    "cursor": "AskQuestion",
    "codebuddy": "ask_followup_question 或 AskUserQuestion",
    "workbuddy": "ask_followup_question",
}
_SESSION_IDS = re.compile(r"sessionID: ([0-9A-Za-z_-]{8,80})")
LABELS = {
    "create_rule": "保存为规则",
    "create_project": "保存为项目事实",
    "reinforce": "强化已有记忆",
    "merge": "合并到已有记忆",
    "replace": "替换已有记忆",
    "discard": "不落成",
}
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
    user's reply is read by the prompt hook (take_answer), never by a tool call of the model."""
    proposal = job.proposal or {}
    offered = resolve.options(proposal)
    numbered = "；".join(f"{n}. {label(d, proposal)}（{d}）" for n, d in enumerate(offered, 1))
    tool = ASK_TOOL.get(client, "AskUserQuestion")
    return (
        f"{CONFIRM_MARKER}\n"
        f"memory-self-evolution 请你向用户确认一条记忆（不要自己判断，也不要改写任何内容）。\n"
        f"sessionID: {job.id}\n"
        + (f"用户原话：{job.words}\n" if job.words else "")  # a consolidation has none
        + f"提议：{describe(proposal)}\n"
        f"请直接用文字问用户：以「{TITLE}」开头，把上面的提议原样给用户看，列出编号选项（{numbered}），"
        "请用户回复编号或选项名称，然后结束这一轮回答。\n"
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


# -- the user's reply ----------------------------------------------------------------------------------
ANSWER_CHARS = 40  # a reply with more than this (spaces and punctuation aside) is not just a choice
_PREFIXES = ("我选择", "我选", "选择", "选", "option", "choose")
_CHINESE_DIGITS = dict(zip("一二三四五六七八九", "123456789", strict=True))


def chosen(prompt: str, proposal: dict[str, Any]) -> str | None:
    """The decision a reply picks when it is essentially one of the offered choices — its
    number, its label, its decision name, or number and label together (case, width, spaces
    and punctuation aside; 「选」 or 「第…个」 around it) — else None. Linear in the reply."""
    if len(prompt) > ANSWER_CHARS * 4:
        return None
    said = normalised(prompt)
    if not said or len(said) > ANSWER_CHARS:
        return None
    for prefix in _PREFIXES:
        if said.startswith(prefix) and len(said) > len(prefix):
            said = said[len(prefix) :]
            break
    ordinal = re.fullmatch(r"第?([0-9一二三四五六七八九]{1,2})(?:个|项|条|号)?", said)
    if ordinal:
        said = "".join(_CHINESE_DIGITS.get(ch, ch) for ch in ordinal[1])
    for number, decision in enumerate(resolve.options(proposal), 1):
        names = {normalised(label(decision, proposal)), normalised(decision)}
        forms = {str(number), *names, *(f"{number}{name}" for name in names)}
        if said in forms:
            return decision
    return None


@dataclass
class Answer:
    """What the prompt hook tells the model about the user's reply, and the result written."""

    context: str
    result: dict[str, Any] | None = None


def take_answer(
    store: Store, clock: Clock, client: str, session: str | None, job_ids: list[str], prompt: str
) -> Answer | None:
    """The user's prompt, as an answer to the questions of this session that waited for it
    (job_ids): None when it is not one. Otherwise it is kept on the job (`answered`) and
    written at once, exactly once (resolve.resolve claims the job); the model is told the
    result, or why it could not be written."""
    if not job_ids or not session:
        return None
    waiting = [
        j for j in (jobs.get(store, i) for i in job_ids) if j is not None and j.status in ("ready", "shown")
    ]
    picked = [(j, d) for j in waiting for d in [chosen(prompt, j.proposal or {})] if d is not None]
    if not picked:
        return None
    if len(picked) > 1:  # one question at a time should prevent it; never guess
        return Answer(
            "memory-self-evolution：用户这句回复对应不止一条等确认的记忆，插件没有替用户决定，什么也没有写入。"
            "请告诉用户：可以在终端运行 `memevo pending` 逐条处理。"
        )
    job, decision = picked[0]
    now = clock.now_ms()
    named = label(decision, job.proposal)
    head = (
        f"memory-self-evolution：用户这句话是在回答刚才的记忆确认（sessionID: {job.id}），选了「{named}」。"
    )
    if not jobs.record_answer(
        store, job.id, now, {"decision": decision, "client": client, "session": session, "at": now}
    ):
        return None  # answered meanwhile elsewhere (the dialog, a terminal)
    try:
        result = resolve.resolve(store, clock, job.client, job.id, decision)
    except InvalidInput as exc:
        return Answer(f"{head}但这条记忆没有写入：{exc}\n请把这句话告诉用户。")
    except Exception as exc:  # the answer is kept: memory_resolve may carry it out
        return Answer(
            f"{head}用户的选择已记下，但插件这次没能写入（{exc}）。请调用 memory_resolve"
            f'(sessionID="{job.id}", decision="{decision}") 再试一次（只接受用户选的这一项），'
            f"或告诉用户运行 `memevo pending accept {job.id[:8]} --as {decision}`。"
        )
    message = str(result.get("message", ""))
    return Answer(
        f"{head}插件已经按用户的选择处理好了，请把下面的结果原样告诉用户，不要改写；"
        f"不要调用 memory_resolve，也不要再提交这一条：\n{message}",
        result,
    )


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
