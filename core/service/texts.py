"""What the service injects, worded per client flavour.

Flavours: "claude" constrains only this plugin and leaves Claude Code's own memory alone;
"codebuddy" also rules out the client's own memory-writing tools; "default" is the seed's.
Injected text is written as facts and a division of duties, not as out-of-band commands.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...hooks.clients import base
from ..memories.text import remove_unsafe
from ..recall import shown

PLUGIN = "memory-self-evolution"
CONFIRM_MARKER = base.CONFIRM_MARKER  # the adapters tell our own continuation by it

# The in-chat question (MEMORY_CONFIRM_V1, core/learning/stop.py) is asked in words and answered
# by the user's own next prompt, which the prompt hook reads: the model never answers it, with a
# question tool or with memory_resolve (docs/learning.md, "Only you confirm a memory").
_ASK = (
    f"只有收到含 {CONFIRM_MARKER} 的插件指令时，才按指令用文字向用户提问（不用提问工具）并结束这一轮回答，"
    "不重新判断或改写提案；用户的下一句回复由插件直接处理，不要调用 memory_resolve 替用户回答。"
)
_ASK_SHORT = (
    f"只有收到含 {CONFIRM_MARKER} 的插件指令时，才按指令用文字向用户提问并结束这一轮；"
    "用户的回复由插件处理，不要调用 memory_resolve 替用户回答。"
)

_DUTIES = {
    "default": (
        f"职责边界：记忆的提取、判重和写入由 {PLUGIN} 在后台完成，包括用户明确说「记住」的情况，记忆只由用户确认。"
        "你专注当前任务：不要判断是否该记，不要自己发起「检测到一条记忆」确认，也不要主动调用记忆写工具；"
        + _ASK
    ),
    "claude": (
        f"职责边界（只针对 {PLUGIN} 插件）：本插件的记忆由后台负责提取、判重和写入，包括用户明确说「记住」的情况，"
        "记忆只由用户确认。对本插件你不需要判断是否该记，不要为本插件自己发起「检测到一条记忆」确认，"
        "也不要主动调用本插件的记忆写工具；" + _ASK + "这不影响 Claude Code 自带的记忆，它照常工作。"
    ),
    "codebuddy": (
        f"职责边界：记忆的提取、判重和写入由 {PLUGIN} 在后台完成，包括用户明确说「记住」的情况，记忆只由用户确认。"
        "你专注当前任务：不要判断是否该记，不要自己发起「检测到一条记忆」确认，不要主动调用本插件的记忆写工具，"
        "也不要用 update_memory 等客户端自带的记忆写入工具记录用户的偏好；" + _ASK
    ),
}

_REMINDER = {
    "default": (
        f"记忆由 {PLUGIN} 插件在后台判断。用户陈述偏好、规范或要求记住时，你只需回应并照做："
        "不要判断是否该记，不要自己发起「检测到一条记忆」确认，也不要主动调用记忆写工具。" + _ASK_SHORT
    ),
    "claude": (
        f"{PLUGIN} 插件的记忆在后台判断。用户陈述偏好、规范或要求记住时，对本插件你只需回应并照做："
        "不要为本插件判断是否该记，不要为本插件自己发起「检测到一条记忆」确认，"
        "也不要主动调用本插件的记忆写工具（Claude Code 自带的记忆不受影响）。" + _ASK_SHORT
    ),
    "codebuddy": (
        f"记忆由 {PLUGIN} 插件在后台判断。用户陈述偏好、规范或要求记住时，你只需回应并照做："
        "不要判断是否该记，不要自己发起「检测到一条记忆」确认，不要主动调用本插件的记忆写工具，"
        "也不要用 update_memory 等客户端自带的记忆写入工具记录。" + _ASK_SHORT
    ),
}


# Client mode (core/learning/propose.py): the client's own model proposes through our MCP tool.
# The tool as each client shows it to its model: Claude Code and the CodeBuddy CLI name MCP
# tools mcp__<server>__<tool> and find deferred ones through their tool search; Cursor and
# WorkBuddy (the default flavour) are told both forms.
PROPOSE_TOOL = "memory_propose"
PROPOSE_QUALIFIED = f"mcp__{PLUGIN}__{PROPOSE_TOOL}"
_PROPOSE_NAMED = {
    "claude": f"{PROPOSE_QUALIFIED}（用工具搜索 select:{PROPOSE_QUALIFIED} 加载）",
    "codebuddy": f"{PROPOSE_QUALIFIED}（MCP 工具，经工具搜索或 DeferExecuteTool 调用）",
    "default": f"{PLUGIN} 的 MCP 工具 {PROPOSE_TOOL}（有的客户端显示为 {PROPOSE_QUALIFIED}）",
}


def propose_tool(flavor: str) -> str:
    return _PROPOSE_NAMED.get(flavor, _PROPOSE_NAMED["default"])


def client_duties(flavor: str) -> str:
    """The session start's division of duties in client mode: the model proposes, the plugin
    compares and the user confirms (in the chat: the user's own next prompt answers)."""
    own = "这不影响 Claude Code 自带的记忆，它照常工作。" if flavor == "claude" else ""
    other = "不要用 update_memory 等客户端自带的记忆写入工具记录用户的偏好；" if flavor == "codebuddy" else ""
    return (
        f"职责边界：{PLUGIN} 的长期记忆由你提议、由插件判重、由用户确认。用户说出应跨会话长期保持的偏好、规范、约定，"
        f"或值得长期查阅的项目事实（名称、开关、地址、目录），或明确要求「记住」时，调用 {propose_tool(flavor)}，"
        "提交一条自包含的记忆正文和用户原话；只在当前任务里成立的内容、需求、假设和提问不要提交。"
        "这次工作查明、以后还用得上的经验（确切的报错和它的修法、定下的决定、本仓库的坑）也可以作为项目事实提议，"
        "正文保留报错原文和标识符，words 填报错原文；这类提议总是由用户确认。"
        f"提交后按工具返回的说明做；{other}不要自己判断写入成功，也不要重复提交同一条。"
        f"{_ASK}{own}"
    )


def client_reminder(flavor: str) -> str:
    """Each prompt's reminder in client mode: the same bytes every time (prompt caches)."""
    return (
        f"{PLUGIN}：如果用户这句话里有应长期保持的偏好、规范、约定或项目事实（或要求「记住」），"
        f"调用 {propose_tool(flavor)} 提议一条自包含的记忆并附上用户原话；这轮工作查明了以后用得上的经验"
        "（确切报错与修法、决定、本仓库的坑）时，也可提议为项目事实，保留报错原文；否则不要调用，也不要提起记忆。"
    )


def learning_off(flavor: str, legacy_blocking: bool, chosen_off: bool = False) -> str:
    """Shown instead of the duties and the reminder while learning is not set up (side mode
    without its API, the legacy blocking mode) or switched off (learning=off)."""
    if chosen_off:
        scope = "本插件" if flavor == "claude" else f"{PLUGIN}"
        return (
            f"记忆沉淀已关闭：{scope}的学习被用户关掉了（learning=off），不会记下新内容；已有的记忆照常注入和召回。"
            "用户陈述偏好、规范或要求记住时，请明确告诉用户：这句话不会被本插件记下。"
            "重新打开：在终端运行 `memevo config learning auto`；"
            '急用时可以直接写入：`memevo rule add "…"` 或 `memevo project add "…"`。'
        )
    why = (
        "配置还停在旧版本的阻塞模式（sideJudge=false），升级后不会自动改走旁路"
        if legacy_blocking
        else "选择了旁路判别（learning=side），但还没有配齐接口（sideApiBase、sideApiModel 和 API key）"
    )
    scope = "本插件" if flavor == "claude" else f"{PLUGIN}"
    return (
        f"记忆沉淀未启用：{scope}{why}，所以不会记下新内容；已有的记忆照常注入和召回。"
        "用户陈述偏好、规范或要求记住时，请明确告诉用户：这句话不会被本插件记下。"
        + (
            "启用方法：在终端运行 `memevo config --unset sideJudge`（接口已配齐时即可生效），"
            "或运行 `memevo setup` 重新填写接口地址、模型和密钥；"
            if legacy_blocking
            else "启用方法：在终端运行 `memevo setup` 填写接口地址、模型和密钥，"
            "或运行 `memevo config learning auto` 改由客户端自己的模型提议；"
        )
        + '急用时可以直接写入：`memevo rule add "…"` 或 `memevo project add "…"`。'
    )


def side_failing() -> str:
    """Added to the per-prompt reminder while the side API's last call failed (a wrong key, the
    daily limit, the endpoint down): learning is set up but nothing is being learned. Fixed words
    (the reason is in `memevo service`), so the model neither promises to remember nor repeats an
    error text."""
    return (
        "记忆沉淀暂时失败：最近一次旁路判别接口调用出错（原因可在终端运行 `memevo service` 查看），"
        "修好之前用户说的偏好和规范不会被记下。用户陈述偏好、规范或要求记住时，请如实告诉用户这一点；"
        '急用时可以直接写入：`memevo rule add "…"` 或 `memevo project add "…"`。'
    )


def duties(flavor: str) -> str:
    return _DUTIES.get(flavor, _DUTIES["default"])


def reminder(flavor: str) -> str:
    return _REMINDER.get(flavor, _REMINDER["default"])


def item(text: str) -> str:
    """A memory as one list item: its lines joined with " / ", so a memory that holds a newline
    (allowed: check_text keeps them) cannot break the numbered list or pass one of its own lines
    off as another rule. Linear in the text (no regex)."""
    return " / ".join(part.strip() for part in remove_unsafe(text).splitlines() if part.strip())


def session_start(flavor: str, rules: Sequence[str], learning: str | None, max_chars: int) -> tuple[str, int]:
    """The rules list (by confidence) and the duties, under max_chars. Returns (text, rules shown)."""
    tail = "\n" + (learning or duties(flavor))
    head = f"{PLUGIN} 记下的用户规则（按置信度排列，本会话持续适用）：\n"
    if not rules:
        head = f"{PLUGIN}：当前没有记下的用户规则。\n"
    lines: list[str] = []
    budget = max_chars - len(head) - len(tail) - 80  # room for the "left out" line
    for rule in rules:
        line = f"{len(lines) + 1}. {item(rule)}\n"
        if budget - len(line) < 0:
            break
        lines.append(line)
        budget -= len(line)
    left_out = len(rules) - len(lines)
    note = f"（另有 {left_out} 条规则因篇幅未列出；与输入相关时会在每轮召回。）\n" if left_out else ""
    return head + "".join(lines) + note + tail, len(lines)


STALE_NOTE_CHARS = 120  # the reason names at most two names; a long path is cut


def with_stale_note(text: str, reason: str) -> str:
    """A memory its repository no longer confirms, as injected: the text, then what may be out
    of date, so the model checks before relying on it."""
    shown = reason if len(reason) <= STALE_NOTE_CHARS else reason[: STALE_NOTE_CHARS - 1] + "…"
    return f"{text}（可能已过时：{shown}）"


# A fact read from a repository's .memevo/facts.md (core/sharing/facts.py) is the repository's word,
# which the user trusted, not something the user said: it goes under a heading of its own. The
# hits' category for it: SHARED.
SHARED = "shared"
SHARED_TITLE = "【仓库共享事实（来自 .memevo/facts.md，非用户本人所说）】"


def recall_block(
    rules: Sequence[str], facts: Sequence[str], left_out: int = 0, shared: Sequence[str] = ()
) -> str:
    parts = _grouped(f"{PLUGIN} 按本轮输入召回的长期记忆：", rules, facts, shared)
    if left_out:
        parts.append(recall_cut_note(left_out))
    return "\n".join(parts)


def recall_block_of(kept: Sequence[tuple[str, str, str]], left_out: int = 0) -> str:
    """The block of fit_recall's (id, category, text) hits, grouped by category."""
    return recall_block(
        [t for _, c, t in kept if c == "rule"],
        [t for _, c, t in kept if c not in ("rule", SHARED)],
        left_out,
        [t for _, c, t in kept if c == SHARED],
    )


def action_block(
    rules: Sequence[str], facts: Sequence[str], after: bool = False, shared: Sequence[str] = ()
) -> str:
    """Before a tool call runs: the rules (and facts) about what it is about to do. after: the
    call has run (a client that honours this context only after it, with the tool's result)."""
    heading = (
        f"{PLUGIN} 针对刚执行的这一步操作召回的长期记忆（请对照检查，不符合的地方在下一步改正）："
        if after
        else f"{PLUGIN} 针对即将执行的这一步操作召回的长期记忆（执行前请对照）："
    )
    return "\n".join(_grouped(heading, rules, facts, shared))


def _grouped(
    heading: str, rules: Sequence[str], facts: Sequence[str], shared: Sequence[str] = ()
) -> list[str]:
    """The heading, then 【规则】, 【项目事实】 and the repositories' shared facts as bullet lists
    (empty groups left out)."""
    parts = [heading]
    for title, texts_ in (("【规则】", rules), ("【项目事实】", facts), (SHARED_TITLE, shared)):
        if texts_:
            parts.append(title)
            parts += [f"- {item(text)}" for text in texts_]
    return parts


def recall_cut_note(left_out: int) -> str:
    return f"（另有 {left_out} 条相关记忆因篇幅未列出，可用 memory_search 查找。）"


def fit_recall(hits: Sequence[tuple[str, str, str]], budget: int) -> tuple[list[tuple[str, str, str]], int]:
    """(id, category, text) hits in the order to keep them: those whose block fits in budget
    characters, and how many were left out (core/recall/shown.py measures)."""
    return shown.fit(hits, budget, recall_block_of)
