"""The user's reply to an in-chat memory question, read by the prompt hook (core/service/hookops.py).

A reply that is essentially one of the choices is the answer: written at once, reported to the
model in that prompt's context and told to the user in memevo's own words (the client's
user-visible hook message, with how to undo it). The model words the question, so it could
number the options its own way ("1. 不要 2. 保存"): a choice that saves or changes a memory
counts only when the reply names it in memevo's fixed words (its label, 保存为规则, or its
decision name, create_rule); a bare number answers only a choice that writes nothing (discard).
A bare number pointing at a save writes nothing: the user is told, in memevo's words, what waits
and what to reply, and the question waits for one more reply. A reply that is not an answer ends
the wait, and the proposal stays in `memevo pending`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..clock import Clock
from ..errors import InvalidInput
from ..printable import printable
from ..store.database import Store
from . import jobs, resolve
from .propose import normalised
from .stop import WRITES_NOTHING, describe, label

OLD_DISCARD = "不落成"

ANSWER_CHARS = 40  # a reply with more than this (spaces and punctuation aside) is not just a choice
_PREFIXES = ("我选择", "我选", "选择", "选", "option", "choose")
_CHINESE_DIGITS = dict(zip("一二三四五六七八九", "123456789", strict=True))
_NUMBERED = re.compile(r"第?([0-9一二三四五六七八九]{1,2})(?:个|项|条|号)?(.*)")


def _reply(prompt: str) -> tuple[int | None, str] | None:
    """A reply short enough to be just a choice, as (its number or None, the words after it):
    case, width, spaces and punctuation aside, 「选」 or 「第…个」 around a number. Linear."""
    if len(prompt) > ANSWER_CHARS * 4:
        return None
    said = normalised(prompt)
    if not said or len(said) > ANSWER_CHARS:
        return None
    for prefix in _PREFIXES:
        if said.startswith(prefix) and len(said) > len(prefix):
            said = said[len(prefix) :]
            break
    numbered = _NUMBERED.fullmatch(said)
    if not numbered:
        return None, said
    return int("".join(_CHINESE_DIGITS.get(ch, ch) for ch in numbered[1])), numbered[2]


def _named(words: str, proposal: dict[str, Any]) -> str | None:
    """The offered decision these words name: its label or its decision name (for a
    consolidation's keep:<id> also 「保留 #<id>」)."""
    for decision in resolve.options(proposal):
        names = {normalised(label(decision, proposal)), normalised(decision)}
        if decision == "discard":
            names.add(normalised(OLD_DISCARD))  # the label of earlier versions, still in open chats
        if decision.startswith("keep:"):
            names.add(normalised(f"保留{decision.removeprefix('keep:')}"))
        if words in names:
            return decision
    return None


def chosen(prompt: str, proposal: dict[str, Any]) -> str | None:
    """The decision a reply picks when it is essentially one of the offered choices, else None.
    A choice is named by its label or its decision name (a number before them, as the user
    copies an option, changes nothing: the model numbered them); a bare number counts only for
    a choice that writes nothing (WRITES_NOTHING), since a model could have shown the options
    in another order. Linear in the reply."""
    reply = _reply(prompt)
    if reply is None:
        return None
    number, words = reply
    if words:
        return _named(words, proposal)
    decision = _numbered(number, proposal)
    return decision if decision in WRITES_NOTHING else None


def pointed(prompt: str, proposal: dict[str, Any]) -> str | None:
    """The choice a bare number points at when `chosen` will not take it (a save or a change):
    the reply may have meant it, so the user is told what to reply instead."""
    reply = _reply(prompt)
    if reply is None or reply[1]:
        return None
    decision = _numbered(reply[0], proposal)
    return decision if decision is not None and decision not in WRITES_NOTHING else None


def _numbered(number: int | None, proposal: dict[str, Any]) -> str | None:
    offered = resolve.options(proposal)
    return offered[number - 1] if number is not None and 1 <= number <= len(offered) else None


@dataclass
class Answer:
    """What the prompt hook tells the model about the user's reply, the result written, what
    the user is shown in memevo's own words (the client's user-visible hook message), and the
    question that still waits for the user's next reply (a bare number that did not count)."""

    context: str
    result: dict[str, Any] | None = None
    notice: str | None = None
    waits: str | None = None


def take_answer(
    store: Store, clock: Clock, client: str, session: str | None, job_ids: list[str], prompt: str
) -> Answer | None:
    """The user's prompt, as an answer to the questions of this session that waited for it
    (job_ids): None when it is not one. Otherwise it is kept on the job (`answered`) and
    written at once, exactly once (resolve.resolve claims the job); the model is told the
    result, or why it could not be written, and the user is told in memevo's words (`notice`).
    A bare number pointing at a save writes nothing and says so (`waits`: still asked)."""
    if not job_ids or not session:
        return None
    waiting = [
        j for j in (jobs.get(store, i) for i in job_ids) if j is not None and j.status in ("ready", "shown")
    ]
    picked = [(j, d) for j in waiting for d in [chosen(prompt, j.proposal or {})] if d is not None]
    if not picked:
        return _only_a_number(waiting, prompt)
    if len(picked) > 1:  # one question at a time should prevent it; never guess
        return Answer(
            "memory-self-evolution：用户这句回复对应不止一条等确认的记忆，插件没有替用户决定，什么也没有写入。"
            "请告诉用户：可以在终端运行 `memevo pending` 逐条处理。",
            notice="memevo：你的回复对应不止一条等确认的记忆，什么也没有写入；请在终端运行 `memevo pending` 逐条处理。",
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
    heard = f"memevo（记忆插件）按你的回复「{_quoted(prompt)}」——{named}："
    try:
        result = resolve.resolve(store, clock, job.client, job.id, decision)
    except InvalidInput as exc:
        return Answer(
            f"{head}但这条记忆没有写入：{exc}\n请把这句话告诉用户。", notice=f"{heard}没有写入（{exc}）。"
        )
    except Exception as exc:  # the answer is kept: memory_resolve may carry it out
        return Answer(
            f"{head}用户的选择已记下，但插件这次没能写入（{exc}）。请调用 memory_resolve"
            f'(sessionID="{job.id}", decision="{decision}") 再试一次（只接受用户选的这一项），'
            f"或告诉用户运行 `memevo pending accept {job.id[:8]} --as {decision}`。",
            notice=f"{heard}这次没能写入；可以运行 `memevo pending accept {job.id[:8]} --as {decision}` 再试。",
        )
    message = str(result.get("message", ""))
    return Answer(
        f"{head}插件已经按用户的选择处理好了，请把下面的结果原样告诉用户，不要改写；"
        f"不要调用 memory_resolve，也不要再提交这一条：\n{message}",
        result,
        notice=f"{heard}{message}\n{undo_line(result)}".rstrip(),
    )


def _only_a_number(waiting: list[jobs.Job], prompt: str) -> Answer | None:
    """A bare number where the question's number points at a save or a change: nothing is
    written (the model numbered the options); the user is told, in memevo's words, what waits
    and what to reply, and the question waits for their next reply. None: not that either."""
    pointing = [(j, d) for j in waiting for d in [pointed(prompt, j.proposal or {})] if d is not None]
    if len(pointing) != 1:
        return None
    job, decision = pointing[0]
    proposal = job.proposal or {}
    saves = [label(d, proposal) for d in resolve.options(proposal) if d not in WRITES_NOTHING]
    names = "」或「".join(saves)
    gone = label("discard", proposal)
    return Answer(
        f"memory-self-evolution：用户回复了「{_quoted(prompt)}」，只有编号（插件的列表里它是「{label(decision, proposal)}」），"
        f"插件没有把它当作保存（保存或改动记忆要用户回复选项名称，只回编号只能表示「{gone}」），什么也没有写入。"
        f"这条记忆（sessionID: {job.id}）还在等用户的下一句回复。照常回应用户这句话；如果用户是在回答记忆确认，"
        f"请告诉用户回复选项名称，例如「{saves[0]}」。",
        notice=(
            f"memevo（记忆插件）：你的回复「{_quoted(prompt)}」只有编号，没有保存任何记忆——保存要回复选项名称。"
            f"等你确认的是：{describe(proposal)}\n要保存请回复「{names}」，放弃请回复「{gone}」；"
            f"也可以在终端运行 `memevo pending`。"
        ),
        waits=job.id,
    )


def _quoted(prompt: str) -> str:
    """The user's reply as memevo repeats it (a choice is short; controls as escapes)."""
    return printable(prompt.strip()[:ANSWER_CHARS])


def undo_line(result: dict[str, Any]) -> str:
    """How to undo what an answer did, as commands the user can run (ids are the store's)."""
    action = result.get("action")
    memory = result.get("memory") if isinstance(result.get("memory"), dict) else {}
    memory_id = str((memory or {}).get("id") or "")
    deleted = "、".join(f"`memevo restore {i}`" for i in result.get("deleted") or [])
    if deleted:
        return f"撤销：{deleted}（从回收站恢复）；历史：`memevo history {memory_id}`"
    if not memory_id:
        return ""
    if action == "create":
        return f"撤销：`memevo delete {memory_id}`；历史：`memevo history {memory_id}`"
    if action in ("replace", "merge"):
        return (
            f"撤销：`memevo history {memory_id}` 看旧版本，`memevo restore-version {memory_id} 版本号` 恢复"
        )
    return f"历史：`memevo history {memory_id}`"
