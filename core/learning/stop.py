"""At Stop: wait for this session's analyses, then hand the model what it must show or ask.

Only the jobs of the stopping client and session are waited for, shown or voided; other
sessions' jobs stay for their own Stop. Headless (no tray to raise a native dialog) the
seed's in-chat flow applies: a continuation carrying MEMORY_CONFIRM_V1 asks the model to put
the question to the user (with the client's question tool, or in plain words where it has
none) and then call memory_resolve.

A continuation can be dropped: the CodeBuddy CLI ignores it in one-shot `-p`. Where the client
echoes a continuation that did reach its model as the next prompt (`Stop hook: …`, the
CodeBuddy CLI), a question stays `ready` (shown_ms: offered once) until that echo names it
(delivered); one never delivered is asked again at the client's next session start.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from .. import atomic, paths
from ..clock import Clock
from ..service.texts import CONFIRM_MARKER
from ..store import Store
from . import jobs, resolve

TITLE = "记忆确认·插件"
NOTICE = "memory-self-evolution 捕捉到了新的记忆"
ASK_TOOL = {
    "claude": "AskUserQuestion",
    "cursor": "AskQuestion",
    "codebuddy": "ask_followup_question",  # the IDE's; see ASK_IN_WORDS
    "workbuddy": "ask_followup_question",
}
# Clients whose model may have no question tool at all: the CodeBuddy IDE has
# ask_followup_question, the CodeBuddy Code CLI AskUserQuestion in a session driven over
# stream-json, and none in one-shot `-p` (issue 30). There the model asks in its own words and
# resolves on the user's next message.
ASK_IN_WORDS = {
    "codebuddy": "ask_followup_question（CodeBuddy IDE）或 AskUserQuestion（CodeBuddy Code 命令行）",
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


def wait_for_session(store: Store, client: str, session: str, wait_ms: int) -> None:
    deadline = time.monotonic() + wait_ms / 1000
    while time.monotonic() < deadline and jobs.of_session(store, client, session, ("running",)):
        time.sleep(0.1)


def continuation(
    store: Store, clock: Clock, client: str, session: str, wait_ms: int, echoed: bool = False
) -> dict[str, Any]:
    """{"continuation": full text for the model, "notice": one short line for the user} or {}.
    echoed: the client echoes a continuation that reached its model as the next prompt: a
    question counts as asked only then (delivered)."""
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
    ready = jobs.of_session(store, client, session, ("ready",))
    tidy = _next_consolidation(store)
    if tidy is not None:  # headless, a consolidation is put to the user in the next chat that stops
        jobs.update(store, tidy.id, now, status="shown", shown_ms=now)  # asked once; then `memevo pending`
        parts.append(confirm_instruction(client, tidy))
    if ready:
        for stale in jobs.of_session(store, client, session, ("shown",)):
            jobs.update(store, stale.id, now, status="voided")  # a new question voids the unanswered one
        for job in ready:  # offered: asked once it is known to have reached the model
            jobs.update(store, job.id, now, status="ready" if echoed else "shown", shown_ms=now)
        parts += [confirm_instruction(client, job) for job in ready]
    if not parts:
        return {}
    text = "\n\n".join(parts)
    summary = "；".join(_short(j) for j in [*ready, *([tidy] if tidy else [])]) or "；".join(
        str((j.result or {}).get("message", "")).split("\n")[0] for j in results
    )
    return {"continuation": text, "notice": f"{NOTICE}：{summary}"}


def _next_consolidation(store: Store) -> jobs.Job | None:
    """The oldest consolidation proposal (core/consolidation/) never put to the user yet."""
    from ..consolidation.proposals import CLIENT

    waiting = [
        j for j in jobs.pending(store) if j.client == CLIENT and j.status == "ready" and not j.shown_ms
    ]
    return waiting[0] if waiting else None


def confirm_instruction(client: str, job: jobs.Job) -> str:
    proposal = job.proposal or {}
    offered = resolve.options(proposal)
    choices = "、".join(f"「{label(d, proposal)}」（decision={d}）" for d in offered)
    resolve_call = (
        "memory_resolve（有的客户端显示为 mcp__memory-self-evolution__memory_resolve）"
        f'(sessionID="{job.id}", decision="<所选选项对应的 decision>")，并把工具返回的结果原样告诉用户。\n'
    )
    head = (
        f"{CONFIRM_MARKER}\n"
        f"memory-self-evolution 请你向用户确认一条记忆（不要自己判断，也不要改写任何内容）。\n"
        f"sessionID: {job.id}\n"
        + (f"用户原话：{job.words}\n" if job.words else "")  # a consolidation has none
        + f"提议：{describe(proposal)}\n"
    )

    def restart_note(dont: str) -> str:  # "don't ask" in words, "don't raise the dialog" with a tool
        return f"如果 memory_resolve 工具不可用（客户端安装后还没有重启），{dont}，告诉用户：请重启客户端后再说一遍这句话。"

    if client in ASK_IN_WORDS:
        numbered = "；".join(f"{n}. {label(d, proposal)}" for n, d in enumerate(offered, 1))
        return (
            head + f"如果你有提问工具 {ASK_IN_WORDS[client]}，就调用它提一个问题，标题固定为「{TITLE}」，"
            f"把上面的提议给用户看，选项依次为：{choices}；用户点选后调用 "
            + resolve_call
            + "如果提问工具返回 Skipped，"
            "或用户关闭、取消了提问，不要调用 memory_resolve，直接结束。\n"
            f"如果没有提问工具，就直接用文字问用户：以「{TITLE}」开头，把上面的提议原样给用户看，列出编号选项"
            f"（{numbered}），请用户回复编号或选项，然后结束这一轮回答，不要调用 memory_resolve。"
            f"用户下一句回复选了其中一项时，再调用 "
            + resolve_call
            + "用户的回复没有选任何一项时，不要调用 memory_resolve。\n"
            + restart_note("不要提问")
        )
    tool = ASK_TOOL.get(client, "AskUserQuestion")
    return (
        head
        + f"请调用 {tool} 提一个问题，标题固定为「{TITLE}」，把上面的提议给用户看，选项依次为：{choices}。\n"
        "用户点选后调用 "
        + resolve_call
        + "如果提问工具返回 Skipped，或用户关闭、取消了弹窗，不要调用 memory_resolve，直接结束。\n"
        "如果没有可用的提问工具（例如非交互模式），不要调用 memory_resolve，告诉用户这条记忆在等确认，"
        "可以在终端运行 `memevo pending` 处理。\n" + restart_note("不要弹窗")
    )


def delivered(store: Store, clock: Clock, client: str, prompt: str) -> list[str]:
    """A continuation of ours that came back as the next prompt (echoed: it reached the model):
    the questions it names, still `ready`, are asked now (shown). Returns their ids."""
    now = clock.now_ms()
    named = set(_SESSION_IDS.findall(prompt))
    asked = []
    for job_id in named:
        job = jobs.get(store, job_id)
        if job is not None and job.client == client and job.status == "ready" and job.shown_ms:
            jobs.update(store, job.id, now, status="shown", shown_ms=now)
            asked.append(job.id)
    return asked


def undelivered(store: Store, clock: Clock, client: str) -> str | None:
    """The client's questions offered in a continuation that never reached its model (the
    CodeBuddy CLI's one-shot `-p` drops it): asked again, in the next session start's context
    (which always reaches it), from whichever session of that client starts next."""
    waiting = [j for j in jobs.pending(store) if j.client == client and j.status == "ready" and j.shown_ms]
    if not waiting:
        return None
    now = clock.now_ms()
    for job in waiting:
        jobs.update(store, job.id, now, status="shown", shown_ms=now)
    intro = "memory-self-evolution：上一次会话结束时有记忆等用户确认，但那条确认没有送到你这里。"
    return "\n\n".join([intro, *(confirm_instruction(client, job) for job in waiting)])


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
