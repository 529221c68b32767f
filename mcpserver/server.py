"""`memevo mcp --client CLIENT`: the stdio MCP server, a thin client of the memory service.

Each client starts its own copy, registered with its own --client, so memory_resolve can
refuse another client's proposals; all share the one service and store. initialize and the
tool list answer at once: nothing here loads the model, and the MCP SDK itself (most of a
second to import) is imported only after mcp_fastpath's front is up, which answers those two
from the SDK's own answers of the last start while it loads.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import webbrowser
from typing import TYPE_CHECKING, Any, Literal

from ..core.errors import InvalidInput, MemevoError
from ..core.service.client import ServiceUnavailable, call, call_or_local, call_service
from ..hooks import client_table

INSTRUCTIONS = (
    "Tools of the memory-self-evolution plugin. memory_propose proposes a memory when the user "
    "says something that should last across sessions (the plugin compares it with what it has "
    "and the user confirms it); the other tools are only for when the user explicitly asks to "
    "list or tidy the memories."
)
PROPOSE_DESCRIPTION = (
    "提议一条长期记忆（不会直接写入：插件判重，用户确认）。用户说出跨会话都适用的偏好和工作规范"
    "（如「回答用中文」「改完代码不要自动 commit」）、值得长期查阅的项目事实（文档、链接、仓库、目录、开关、账号），"
    "或跨项目通用的技术选型结论，或明确说「记住」时调用。不要提议：只在当前任务里成立的方案讨论、"
    "对某个功能或工具提的需求、实验参数和阶段结论、单个需求/MR 的细节、为当前任务交代的背景、假设和提问、带期限的安排。"
    "工作中查明、以后还用得上的经验（确切的报错和它的修法、定下的决定、本仓库的坑）可以作为 project 提议："
    "text 写明报错原文（或标识符）、原因和修法，words 填报错原文；这类提议总是交给用户确认。"
    "text：自包含的记忆正文，脱离对话也能读懂，6 到 400 个字，保留原话里的名称、链接和标识符；"
    "category：rule（偏好、规范、约定）或 project（项目事实）；scope（只对 project）：repo（只属于当前仓库）或 global；"
    "words：用户的原话（照抄）；cues（可选，最多 10 条、每条 60 字内）：这条记忆应当被想起的场景，"
    "写成用户可能说的话，规则还可以写它约束的工具调用（如「加新依赖前先问我」写 pip install …）。"
    "若返回相近的已有记忆，按返回说明带上 action（create、reinforce、merge、replace）和 target 再调用一次；"
    "其余情况按返回的说明做，不要重复提交同一条。"
)


if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

# The SDK's ToolError once build() has imported the SDK (the tools raise it only after that).
ToolError: type[Exception] = Exception


def build(client: str) -> MCPServer:
    global ToolError
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError as SdkToolError

    ToolError = SdkToolError
    server: MCPServer = MCPServer("memory-self-evolution", instructions=INSTRUCTIONS)

    @server.tool(
        structured_output=False,
        description="两组记忆各有多少条；open=true 时刷新 memories.html 并用默认浏览器打开。",
    )
    def memory_list(open: bool = False) -> str:
        counts = _call("counts", {})["counts"]
        lines = [f"{c}: {v['live']} 条有效，{v['deprecated']} 条已废弃" for c, v in counts.items()]
        if open:
            path = _call("snapshot", {})["path"]
            if webbrowser.open(f"file://{path}"):
                lines.append(f"已刷新并打开 {path}")
            else:  # no browser here (a server, a container, SSH): say so, never claim it opened
                lines.append(f"已刷新 {path}，但这里没有能打开它的浏览器：请在能访问这个文件的地方手动打开")
        return "\n".join(lines)

    @server.tool(
        structured_output=False,
        description="按置信度返回某一组的 50 条记忆（从 offset 开始），已废弃的也列出并标注。",
    )
    def memory_read(category: Literal["rule", "project"], offset: int = 0) -> str:
        result = _call("read", {"category": category, "offset": offset, "limit": 50})
        rows = [
            f"#{m['id']} 置信度 {m['confidence']:g}{'（已置顶）' if m.get('pinned') else ''}"
            f"{'（已废弃）' if m['deprecated'] else ''}{_stale_label(m)} 范围 {_scope_label(m)}：{m['text']}"
            for m in result["memories"]
        ]
        more = result["total"] - offset - len(rows)
        if more > 0:
            rows.append(f"（还有 {more} 条，用 offset={offset + len(rows)} 继续）")
        return "\n".join(rows) or f"{category} 组没有记忆"

    @server.tool(
        structured_output=False,
        description="按意思查找记忆（不经召回门槛、不加置信度），返回 id、置信度和范围。"
        "当本轮注入的记忆里没有需要的信息、或用户问「之前记过什么关于…」时使用；category 可选 rule 或 project。",
    )
    def memory_search(query: str, category: Literal["rule", "project"] | None = None, limit: int = 10) -> str:
        params: dict[str, Any] = {"text": query, "limit": limit}
        if category:
            params["category"] = category
        hits = _call("search", params, service_only=True, needs_model=True)["hits"]
        rows = [
            f"#{h['id']} {h['category']} 置信度 {h['confidence']:g}{'（已置顶）' if h['pinned'] else ''} "
            f"范围 {_scope_label(h)} 相似度 {h['score']:.2f}：{h['text']}"
            for h in hits
        ]
        return "\n".join(rows) or "没有找到相关的记忆"

    @server.tool(structured_output=False, description=UPDATE_DESCRIPTION)
    def memory_update(
        action: Literal["delete", "merge", "replace"],
        id: str | None = None,
        ids: list[str] | None = None,
        id2: str | None = None,
        text: str | None = None,
    ) -> str:
        # Nothing here changes a memory: a rewrite is a proposal the user confirms, a delete or a
        # merge is the user's own command (a prompt-injected model must not silently erase or
        # rewrite the rules it is held to).
        if action == "replace":
            if not id or not text:
                raise ToolError("replace needs id and text")
            params = {"client": client, "instance": INSTANCE, "cwd": _cwd(), "id": id, "text": text}
            params["chat"] = _chat(client)
            return str(_call("propose_edit", params, service_only=True).get("message", ""))
        if action == "delete":
            named = " ".join(_shown_id(i) for i in (ids or ([id] if id else []))) or "ID"
            raise ToolError(
                "删除记忆只能由用户自己做，这次没有删除任何记忆。请把命令告诉用户，由用户在终端运行："
                f"`memevo delete {named}`（进回收站，30 天内可用 memevo restore 恢复），或在 memevo 面板里删除。"
            )
        raise ToolError(
            '合并记忆只能由用户确认，这次没有改动任何记忆。可以先用 memory_update(action="replace", '
            f'id="{_shown_id(id)}", text=合并后的正文) 提交改写提案由用户确认，再请用户在终端运行 '
            f"`memevo delete {_shown_id(id2)}` 删除另一条；或请用户在 memevo 面板里合并。"
        )

    @server.tool(
        structured_output=False,
        description="找出近似重复和互相矛盾的记忆，把合并或替换作为提案交给用户确认（本身不改动任何记忆）。"
        "用户要求整理、去重记忆时使用；提案会在 memevo 的确认弹窗、`memevo pending` 或下一次结束时的提问里由用户决定。",
    )
    def memory_consolidate() -> str:
        found = _call("consolidate", {}, service_only=True, needs_model=True)
        return (
            f"找到 {found['duplicates']} 组近似重复、{found['contradictions']} 处矛盾；"
            f"新提交 {len(found['proposed'])} 条提案等用户确认，现在没有改动任何记忆。"
            "告诉用户：请在 memevo 的确认弹窗里选择（也可以用 `memevo pending` 查看）。"
        )

    @server.tool(
        structured_output=False,
        description="记忆提案只由用户确认：用户在对话里回复了插件的确认问题后，插件已直接处理并告诉你结果，"
        "通常不需要调用本工具。只有插件明确让你重试时才调用，且 decision 必须是用户自己选的那一项；"
        "不能替用户回答，也不能确认你自己提交的提案。",
    )
    def memory_resolve(sessionID: str, decision: str) -> str:
        result = _call(
            "side_resolve",
            {"client": client, "sessionID": sessionID, "decision": decision},
            service_only=True,
        )
        return str(result.get("message", ""))

    @server.tool(structured_output=False, description=PROPOSE_DESCRIPTION)
    def memory_propose(
        text: str,
        category: Literal["rule", "project"],
        words: str,
        scope: Literal["repo", "global"] = "repo",
        cues: list[str] | None = None,
        action: Literal["create", "reinforce", "merge", "replace"] | None = None,
        target: str | None = None,
    ) -> str:
        params: dict[str, Any] = {
            "client": client,
            "instance": INSTANCE,
            "chat": _chat(client),
            "cwd": _cwd(),
            "text": text,
            "category": category,
            "words": words,
            "scope": scope,
            "cues": cues,
            "action": action,
            "target": target,
        }
        result = _call("propose", params, service_only=True, needs_model=True)
        return str(result.get("message", ""))

    @server.tool(
        structured_output=False,
        description="查看全部配置（读到的总是当前值）。只有 showRecall 可以由你修改（key 和 value）；"
        "其余设置由用户自己用 `memevo config KEY VALUE` 或面板修改，把命令告诉用户即可。",
    )
    def memory_config(key: str | None = None, value: Any = None) -> str:
        if key is None:
            shown = _call("config_show", {})
            return json.dumps(
                {k: v["value"] for k, v in shown["config"].items()}, ensure_ascii=False, indent=2
            )
        if key not in MODEL_SETTABLE:
            raise ToolError(
                f"{_echo_key(key)} can't be changed by the assistant: it is the user's to change, with "
                f"`memevo config {_echo_key(key)} …` or the panel; tell the user the command"
            )
        if value is None:
            raise ToolError("give a value to change it, or no key to see everything")
        from ..core.config import parse_cli_value

        parsed = parse_cli_value(value) if isinstance(value, str) else value
        result = _call("config_set", {"key": key, "value": parsed})
        return f"{result['key']} = {json.dumps(result['value'], ensure_ascii=False)}"

    return server


def _stale_label(memory: dict[str, Any]) -> str:
    """A stale memory (its repository no longer has what it names): why, so the model asks
    the user whether to update or delete it."""
    return f"（可能已过时：{memory['stale']}）" if memory.get("stale") else ""


def _scope_label(memory: dict[str, Any]) -> str:
    """global, or the repository's folder name (its full path is in memevo read --json)."""
    from ..core.memories.scopes import name

    scope = str(memory.get("scope") or "global")
    return "global" if scope == "global" else f"repo:{name(scope)}"


# The only settings a model may change: what the user is shown, never what is recalled,
# learned, sent or kept. Everything else — whether memevo runs, recall, learning and its
# confirmation, where prompts and keys go, which model loads, decay — is the user's: a
# prompt-injected model could otherwise switch memevo off, silence the rules it is held to,
# confirm its own proposals or send the user's words to any server.
MODEL_SETTABLE = ("showRecall",)
UPDATE_DESCRIPTION = (
    "只在用户明确要求时使用，本身不会改动任何记忆。replace（id、text，正文 6 到 400 个字）：提交一条改写提案，"
    "用户确认后才写入（插件的确认弹窗、`memevo pending`，或按返回的说明在对话里问用户），旧正文留在历史里；"
    "delete（id 或 ids）与 merge（id、id2、text）只能由用户自己做：工具会返回给用户运行的命令。"
)


def _shown_id(value: Any) -> str:
    """A memory id as a command for the user shows it: only an id's own characters (a model's
    value is never pasted into a shell command the user may copy)."""
    text = str(value or "").strip().lstrip("#")
    return text if text and len(text) <= 64 and all(ch.isalnum() or ch in "-_" for ch in text) else "ID"


def _echo_key(key: Any) -> str:
    text = str(key)
    return text if len(text) <= 40 and text.replace("_", "").isalnum() else "KEY"


# This server process, as the service tells one client's sessions apart when no hook has
# named the session (core/service/proposeops.py).
INSTANCE = f"{os.getpid()}-{int(time.time())}"


# Where a client names, in its MCP server's environment, the session (chat) it started the
# server for (its row's chat_env): a proposal is then asked in that chat and no other. A client
# that names none: the service binds a chat only when just one is active.
CHAT_ENV = {name: row.chat_env for name, row in client_table.CLIENTS.items() if row.chat_env}


def _chat(client: str) -> str | None:
    name = CHAT_ENV.get(client)
    value = os.environ.get(name, "").strip() if name else ""
    return value or None


def _cwd() -> str | None:
    """The folder the client started us in (its project): the proposal's repository."""
    try:
        return os.environ.get("CLAUDE_PROJECT_DIR") or os.environ.get("CODEBUDDY_PROJECT_DIR") or os.getcwd()
    except OSError:
        return None


CALL_WAIT_S = 30.0  # the whole tool, within the clients' own tool-call timeouts (60 s and more)
MODEL_POLL_S = 0.25


def _call(
    op: str, params: dict[str, Any], service_only: bool = False, needs_model: bool = False
) -> dict[str, Any]:
    """Waits for a starting or taking-over service and retries, rather than failing the tool;
    needs_model: also for the service's model to load. All within CALL_WAIT_S in total."""
    since = time.monotonic()
    deadline = since + CALL_WAIT_S
    asked_once_ready = False
    while True:
        try:
            if service_only:
                result = call_service(op, params, deadline=deadline, since=since)
            else:
                result = call_or_local(op, params, deadline=deadline, since=since)
            break
        except ServiceUnavailable as exc:
            raise ToolError(f"the memevo service is not answering: {exc}") from exc
        except InvalidInput as exc:
            state = _model_state(deadline) if needs_model else "failed"
            if state == "ready" and not asked_once_ready:
                asked_once_ready = True  # it finished loading between our call and the question
                continue
            if state != "loading":
                raise ToolError(str(exc)) from exc
            if time.monotonic() + MODEL_POLL_S >= deadline:
                raise ToolError(
                    f"the memevo service was still loading its model after {CALL_WAIT_S:g} s; "
                    "try again in a moment"
                ) from exc
            time.sleep(MODEL_POLL_S)
        except MemevoError as exc:
            raise ToolError(str(exc)) from exc
    if result.get("already_applied"):  # a retried write: done once, its answer lost with the service
        raise ToolError(f"{result.get('note')}; it was not done twice — read the memories to see it")
    return result


def _model_state(deadline: float) -> str:
    """ "loading" (not failed, not loaded, or the service does not answer the question: worth
    asking again), "ready" (it may have finished a moment ago: worth one more try), or "failed"."""
    try:
        status = call("ping", {}, timeout_s=max(0.5, min(2.0, deadline - time.monotonic())))
    except (ServiceUnavailable, MemevoError):
        return "loading"
    if status.get("model_error"):
        return "failed"
    return "ready" if status.get("model_ready") else "loading"


def start_service_if_needed() -> None:
    """Like the hooks: a client that starts us may be the first thing the user runs. On a
    desktop that is the tray app (its native dialogs need it), else `memevo serve`. Runs on a
    thread, so initialize and the tool list never wait for it, whatever state the service is in."""
    from ..core.service import spawn

    def check() -> None:
        try:
            if not spawn.lock_held():
                spawn.start_detached()
        except Exception:  # never costs the client its tools
            logging.getLogger("memevo.mcp").warning("could not start the service", exc_info=True)

    threading.Thread(target=check, name="memevo-mcp-start", daemon=True).start()


def main(client: str) -> int:
    from . import fastpath as mcp_fastpath
    from . import stdin_guard as mcp_stdin

    front = mcp_fastpath.start(client)  # initialize and tools/list answered while the SDK loads
    mcp_stdin.install()  # every request answered, even one the SDK cannot parse
    start_service_if_needed()
    try:
        server = build(client)  # imports the SDK
        mcp_stdin.sdk_loaded()
        server.run()  # stdio
    finally:
        if front is not None:
            front.finish()
    return 0
