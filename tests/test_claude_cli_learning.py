"""Client-mode learning end to end with the real Claude Code CLI (headless `claude -p`, offline):
no side API is configured, so the client's own model proposes memories through the MCP tool
memory_propose. A local fake Messages API plays the model: it loads the deferred tool with the
built-in ToolSearch, calls it, and reads the tool_result the CLI sends back; a real `memevo serve`
checks, compares and writes (or holds) the proposal. With confirmation on, the model asks in
words and the user's next prompt (the same session, resumed) answers by the option's name, and
the user is shown what memevo wrote in its own words; the model's own memory_resolve is refused
even where an older install allowed it without asking. Another chat of Claude Code in the same
project does not make the proposal's chat ambiguous: Claude Code names its MCP server's session
(CLAUDE_CODE_SESSION_ID)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import servicerun
from deadlines import HANG_S
from fake_anthropic import FakeAnthropic
from memevo.core.service import texts
from memevo.installer.clients import snippet
from test_claude_cli import CLAUDE
from test_service import _populate

pytestmark = [
    pytest.mark.usefixtures("provisioned_model"),
    pytest.mark.skipif(
        CLAUDE is None, reason="the Claude Code CLI is not installed (.ci/run installs it with npm)"
    ),
]

SERVER = "memory-self-evolution"
PROPOSE_TOOL = f"mcp__{SERVER}__memory_propose"
RESOLVE_TOOL = f"mcp__{SERVER}__memory_resolve"
MCP_COMMAND = [sys.executable, "-m", "memevo.cli", "mcp", "--client", "claude"]

COMMIT_WORDS = "以后提交信息都用英文写"
COMMIT_RULE = "提交信息（commit message）一律用英文写"
COMMIT_ARGS = {"text": COMMIT_RULE, "category": "rule", "words": COMMIT_WORDS, "cues": ["git commit -m …"]}
INDENT_WORDS = "以后 Python 代码都用四个空格缩进，别用 tab"
INDENT_RULE = "Python 代码统一用 4 个空格缩进，不要用 tab"
INDENT_ARGS = {"text": INDENT_RULE, "category": "rule", "words": INDENT_WORDS}


# -- the played model ----------------------------------------------------------------------------
def _tool_results(message: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The tool_result blocks of one message, by tool_use_id: {"text", "is_error"}."""
    content = message.get("content")
    if message.get("role") != "user" or not isinstance(content, list):
        return {}
    found: dict[str, dict[str, Any]] = {}
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        inner = block.get("content")
        if isinstance(inner, list):
            text = "\n".join(
                str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in inner
            )
        else:
            text = str(inner or "")
        found[str(block.get("tool_use_id"))] = {
            "text": _unwrapped(text),
            "raw": text,
            "is_error": bool(block.get("is_error")),
        }
    return found


def _unwrapped(text: str) -> str:
    """Before memevo turned structured output off, a tool returning text reached the model as
    {"result": "…"} (Claude Code sends the MCP structured result); the message either way."""
    try:
        parsed = json.loads(text)
    except ValueError:
        return text
    return str(parsed["result"]) if isinstance(parsed, dict) and set(parsed) == {"result"} else text


SIMILAR = "已有相近的记忆"


def _since_last_turn(messages: list[dict[str, Any]]) -> dict[str, dict[str, Any]] | None:
    """The tool results sent after the model's latest turn (None before its first turn). The CLI
    may put other entries after them (a system "The user hasn't heard from you in a while")."""
    turns = [i for i, message in enumerate(messages) if message.get("role") == "assistant"]
    if not turns:
        return None
    found: dict[str, dict[str, Any]] = {}
    for message in messages[turns[-1] + 1 :]:
        found |= _tool_results(message)
    return found


@dataclass
class PlayedModel:
    """Plays the conversation's model: each tool call in `calls` once, in order, each after the
    previous one's tool_result came back; then a closing text. Requests without the built-in
    ToolSearch among their tools (the CLI's side requests) get the fake API's default answer.

    When memory_propose answers with similar memories (here they are about other things), it
    calls again as that answer says, with action=create, before going on."""

    calls: list[
        dict[str, Any] | Callable[[PlayedModel], dict[str, Any]]
    ]  # a callable: made from what came back
    closing: str = "好的，已处理。"
    issued: list[dict[str, Any]] = field(default_factory=list)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    compared: list[str] = field(default_factory=list)  # ids answered with similar memories
    closed: bool = False

    def __call__(self, body: dict[str, Any]) -> list[dict[str, Any]] | None:
        tools = {tool.get("name") for tool in body.get("tools") or [] if isinstance(tool, dict)}
        messages = body.get("messages") or []
        if "ToolSearch" not in tools or not messages:
            return None
        for message in messages:
            self.results |= _tool_results(message)
        answered = _since_last_turn(messages)
        if answered is None:  # the user's prompt: the first call
            return [self._send(self.calls[0])] if self.calls and not self.issued else None
        if not self.issued or self.issued[-1]["id"] not in answered:
            return None
        previous = self.issued[-1]
        said = answered[previous["id"]]["text"]
        if previous["name"] == PROPOSE_TOOL and SIMILAR in said and "action" not in previous["input"]:
            self.compared.append(previous["id"])
            return [self._send(previous, action="create")]
        planned = len([c for c in self.issued if c["id"] not in self.compared])
        if planned < len(self.calls):
            return [self._send(self.calls[planned])]
        self.closed = True
        return [{"type": "text", "text": self.closing}]

    def _send(
        self, call: dict[str, Any] | Callable[[PlayedModel], dict[str, Any]], action: str | None = None
    ) -> dict[str, Any]:
        sent = dict(call(self) if callable(call) else call, type="tool_use")
        if action is not None:
            sent |= {"id": f"{call['id']}_{action}", "input": call["input"] | {"action": action}}
        self.issued.append(sent)
        return sent

    def result(self, tool_use_id: str) -> dict[str, Any]:
        assert tool_use_id in self.results, f"no tool_result for {tool_use_id}: {sorted(self.results)}"
        return self.results[tool_use_id]

    def final(self, tool_use_id: str) -> dict[str, Any]:
        """The answer to a planned call: to its action=create repeat when it was compared first."""
        return self.result(f"{tool_use_id}_create" if tool_use_id in self.compared else tool_use_id)


def _search(tool_use_id: str, tool: str = PROPOSE_TOOL) -> dict[str, Any]:
    return {"id": tool_use_id, "name": "ToolSearch", "input": {"query": f"select:{tool}"}}


def _resolve_own(tool_use_id: str, proposed: str) -> Callable[[PlayedModel], dict[str, Any]]:
    """The model answering its own proposal at once: memory_resolve with the sessionID the
    proposal's answer just gave it, the first option."""

    def made(model: PlayedModel) -> dict[str, Any]:
        said = model.final(proposed)["text"]
        session_id = said.split("sessionID: ")[1].split()[0]
        return {
            "id": tool_use_id,
            "name": RESOLVE_TOOL,
            "input": {"sessionID": session_id, "decision": "create_rule"},
        }

    return made


def _propose(tool_use_id: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": tool_use_id, "name": PROPOSE_TOOL, "input": args}


# -- the data dir, its service and the client -----------------------------------------------------
@contextmanager
def _no_side_key() -> Iterator[None]:
    """No side API anywhere: not in the config (never written) and not in the environment."""
    saved = os.environ.pop("MEMEVO_SIDE_API_KEY", None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ["MEMEVO_SIDE_API_KEY"] = saved


@dataclass
class Memevo:
    home: Path  # MEMEVO_HOME
    root: Path  # the throwaway HOMEs and projects of the claude runs

    def cli(self, *args: str) -> Any:
        env = {k: v for k, v in os.environ.items() if k != "MEMEVO_SIDE_API_KEY"}
        done = subprocess.run(
            [sys.executable, "-m", "memevo.cli", *args, "--json"],
            env=env | {"MEMEVO_HOME": str(self.home), "HOME": str(self.root / "cli-home")},
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)

    def rules(self) -> list[dict[str, Any]]:
        return list(self.cli("read", "rule")["memories"])

    def log(self) -> str:
        log = self.home / "logs" / "service.log"
        return log.read_text(encoding="utf-8", errors="replace")[-4000:] if log.exists() else "(no log)"


@contextmanager
def _memevo(root: Path, config: dict[str, Any]) -> Iterator[Memevo]:
    home = root / "memevo"
    saved = os.environ.get("MEMEVO_HOME")
    with _no_side_key():
        try:
            _populate(home)
        finally:
            if saved is None:
                os.environ.pop("MEMEVO_HOME", None)
            else:
                os.environ["MEMEVO_HOME"] = saved
        (home / "config.json").write_text(json.dumps(config), encoding="utf-8")
        (root / "cli-home").mkdir()
        with servicerun.service(home, env={"HOME": str(root / "cli-home")}):
            yield Memevo(home, root)


@dataclass
class Run:
    result: subprocess.CompletedProcess[str]
    api: FakeAnthropic
    model: PlayedModel

    @property
    def sent(self) -> str:
        return self.api.texts()

    def evidence(self) -> str:
        return f"stderr: {self.result.stderr[-1500:]}\nresults: {self.model.results}\nbodies: {self.sent[-3000:]}"


def run_claude(
    memevo: Memevo,
    name: str,
    prompt: str,
    model: PlayedModel,
    allow: tuple[str, ...] = (PROPOSE_TOOL,),
    session: tuple[str, ...] | None = None,
) -> Run:
    """One `claude -p` session in a fresh HOME with memevo's hooks, its MCP server and the allow
    rules. session: (flag, uuid, more flags…) — `--session-id` to start a session of that id,
    `--resume` to go on with it (the same HOME and project: the user's next prompt in that
    conversation). Runs of one name share its HOME and project (another chat there)."""
    home = memevo.root / name / "home"
    project = memevo.root / name / "project"
    fresh = not (home / ".claude").exists()
    if fresh:
        (home / ".claude").mkdir(parents=True)
        project.mkdir()
    saved = os.environ.get("MEMEVO_HOME")
    os.environ["MEMEVO_HOME"] = str(memevo.home)  # setup for this data folder, as its user runs it
    try:
        settings = snippet("claude") | {"permissions": {"allow": list(allow)}}
    finally:
        if saved is None:
            os.environ.pop("MEMEVO_HOME", None)
        else:
            os.environ["MEMEVO_HOME"] = saved
    (home / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "MEMEVO_HOME": str(memevo.home),
        "MEMEVO_MODELS_DIR": os.environ["MEMEVO_MODELS_DIR"],
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "MEMEVO_HEADLESS": "1",
    }
    if fresh:
        added = subprocess.run(
            [str(CLAUDE), "mcp", "add", "--scope", "user", SERVER, "--", *MCP_COMMAND],
            env=env,
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
        assert added.returncode == 0, added.stdout + added.stderr
    api = FakeAnthropic(script=model)
    env |= {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "sk-ant-test-not-a-real-key"}
    try:
        result = subprocess.run(
            [str(CLAUDE), "-p", *(session or ()), prompt],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
    finally:
        api.close()
    return Run(result, api, model)


# -- confirmation off: written at once -----------------------------------------------------------
@dataclass
class OffRuns:
    memevo: Memevo
    once: Run
    rules_after_once: list[dict[str, Any]]
    history: dict[str, Any] | None
    next_session: Run
    twice: Run
    rules_after_twice: list[dict[str, Any]]


@pytest.fixture(scope="module")
def confirm_off(tmp_path_factory: pytest.TempPathFactory, provisioned_model: Any) -> Iterator[OffRuns]:
    root = tmp_path_factory.mktemp("claude-learning-off")
    with _memevo(root, {"confirm": False}) as memevo:
        once = run_claude(
            memevo,
            "once",
            COMMIT_WORDS,
            PlayedModel([_search("toolu_search"), _propose("toolu_propose", COMMIT_ARGS)]),
        )
        rules = memevo.rules()
        stored = [m for m in rules if m["text"] == COMMIT_RULE]
        history = memevo.cli("history", stored[0]["id"]) if stored else None
        next_session = run_claude(memevo, "next", "帮我写一个快速排序的实现", PlayedModel([]))
        twice = run_claude(
            memevo,
            "twice",
            INDENT_WORDS,
            PlayedModel(
                [
                    _search("toolu_search"),
                    _propose("toolu_propose_1", INDENT_ARGS),
                    _propose("toolu_propose_2", INDENT_ARGS),
                ]
            ),
        )
        yield OffRuns(memevo, once, rules, history, next_session, twice, memevo.rules())


def test_confirm_off_the_proposal_is_written_and_the_model_told(confirm_off: OffRuns) -> None:
    run = confirm_off.once
    assert run.result.returncode == 0, run.evidence()
    assert run.model.closed, run.evidence()
    if "toolu_propose" in run.model.compared:  # a similar rule exists: compared first, nothing written
        assert "这次没有记下任何内容" in run.model.result("toolu_propose")["text"]
    answer = run.model.final("toolu_propose")
    assert not answer["is_error"], answer
    assert "新增记忆" in answer["text"] and COMMIT_RULE in answer["text"], answer["text"]
    assert answer["raw"] == answer["text"]  # plain text, not a JSON-wrapped structured result
    stored = [m for m in confirm_off.rules_after_once if m["text"] == COMMIT_RULE]
    assert len(stored) == 1, (confirm_off.rules_after_once, confirm_off.memevo.log())
    assert f"#{stored[0]['id']}" in answer["text"]


def test_confirm_off_the_memory_keeps_its_origin(confirm_off: OffRuns) -> None:
    history = confirm_off.history
    assert history is not None, confirm_off.memevo.log()
    origins = history["origins"]
    assert origins, history
    assert origins[0]["proposer"] == "client" and origins[0]["client"] == "claude", origins
    assert origins[0]["words"] == COMMIT_WORDS, origins
    assert history["cues"] and "git commit -m …" in history["cues"], history


def test_confirm_off_the_next_session_starts_with_the_new_rule(confirm_off: OffRuns) -> None:
    run = confirm_off.next_session
    assert run.result.returncode == 0, run.evidence()
    conversation = [
        b for b in run.api.bodies if "ToolSearch" in {t.get("name") for t in b.get("tools") or []}
    ]
    assert conversation, run.evidence()
    first = json.dumps(conversation[0], ensure_ascii=False)
    assert COMMIT_RULE in first, first[-3000:]


def test_the_same_proposal_twice_in_a_session_is_one_memory(confirm_off: OffRuns) -> None:
    run = confirm_off.twice
    assert run.result.returncode == 0, run.evidence()
    assert run.model.closed, run.evidence()
    first = run.model.final("toolu_propose_1")
    second = run.model.final("toolu_propose_2")
    assert "新增记忆" in first["text"] and INDENT_RULE in first["text"], first
    assert not second["is_error"], second
    assert "已经提交过" in second["text"] and "没有重复记下" in second["text"], second
    assert [m["text"] for m in confirm_off.rules_after_twice].count(INDENT_RULE) == 1


def test_the_per_prompt_reminder_names_the_tool_and_learning_is_on(confirm_off: OffRuns) -> None:
    for run in (confirm_off.once, confirm_off.next_session, confirm_off.twice):
        sent = run.sent
        assert json.dumps(texts.client_reminder("claude"), ensure_ascii=False)[1:-1] in sent, sent[-3000:]
        assert PROPOSE_TOOL in texts.client_reminder("claude")
        assert "记忆沉淀未启用" not in sent
    # the session start's division of duties, too
    assert json.dumps(texts.client_duties("claude"), ensure_ascii=False)[1:-1] in confirm_off.once.sent


# -- confirmation on (the default), headless: asked in the chat, answered by the user -----------------
SESSION = "6f1c2a4e-0b7d-4c39-9a55-3e2d1f0a8b71"
OTHER_SESSION = "0c9e7d21-5a43-4b6f-8e12-7f3a9b2c4d55"
ASKED = (
    "「记忆确认·插件」我想记下一条规则：提交信息（commit message）一律用英文写。"
    "请回复选项名称（只回编号不会保存）：1. 保存为规则；2. 保存为项目事实；3. 不保存"
)
ANSWER = "保存为规则"  # the user's reply: option 1, by its name


@dataclass
class OnRun:
    memevo: Memevo
    other: Run
    run: Run
    rules: list[dict[str, Any]]
    pending: list[dict[str, Any]]
    answer: Run
    rules_after_answer: list[dict[str, Any]]
    pending_after_answer: list[dict[str, Any]]


@pytest.fixture(scope="module")
def confirm_on(tmp_path_factory: pytest.TempPathFactory, provisioned_model: Any) -> Iterator[OnRun]:
    """Another chat of Claude Code in the project first; then, in its own chat, the model
    proposes, answers its own proposal at once with memory_resolve (allowed without asking, as
    an install from before allowed it), then asks the user in words and ends its turn; the
    user's next prompt in that session is the first option's name (its output as stream-json,
    where Claude Code prints what a hook shows the user)."""
    root = tmp_path_factory.mktemp("claude-learning-on")
    with _memevo(root, {}) as memevo:
        allow = (PROPOSE_TOOL, RESOLVE_TOOL)
        other = run_claude(
            memevo,
            "on",
            "帮我看看这个仓库的测试怎么跑",
            PlayedModel([]),
            allow,
            ("--session-id", OTHER_SESSION),
        )
        run = run_claude(
            memevo,
            "on",
            COMMIT_WORDS,
            PlayedModel(
                [
                    _search("toolu_search"),
                    _propose("toolu_propose", COMMIT_ARGS),
                    _search("toolu_search_resolve", RESOLVE_TOOL),
                    _resolve_own("toolu_resolve", "toolu_propose"),
                ],
                closing=ASKED,
            ),
            allow,
            ("--session-id", SESSION),
        )
        rules, pending = memevo.rules(), list(memevo.cli("pending")["pending"])
        answer = run_claude(
            memevo,
            "on",
            ANSWER,
            PlayedModel([], closing="已保存为规则。"),
            allow,
            ("--resume", SESSION, "--output-format", "stream-json", "--verbose"),
        )
        yield OnRun(
            memevo, other, run, rules, pending, answer, memevo.rules(), list(memevo.cli("pending")["pending"])
        )


def test_confirm_on_the_proposal_waits_and_the_model_is_told_to_ask(confirm_on: OnRun) -> None:
    """Asked in its own chat although another chat of Claude Code is active in the project: the
    MCP server Claude Code started for it names its session."""
    assert confirm_on.other.result.returncode == 0, confirm_on.other.evidence()
    run = confirm_on.run
    assert run.result.returncode == 0, run.evidence()
    answer = run.model.final("toolu_propose")
    assert not answer["is_error"], answer
    assert texts.CONFIRM_MARKER in answer["text"], answer["text"]
    assert "sessionID: " in answer["text"] and COMMIT_WORDS in answer["text"], answer["text"]
    assert "直接用文字问用户" in answer["text"] and "不要调用 memory_resolve" in answer["text"]
    assert COMMIT_RULE not in [m["text"] for m in confirm_on.rules]
    waiting = [p for p in confirm_on.pending if p["text"] == COMMIT_RULE]
    assert len(waiting) == 1, (confirm_on.pending, confirm_on.memevo.log())
    assert waiting[0]["client"] == "claude" and waiting[0]["words"] == COMMIT_WORDS, waiting
    assert waiting[0]["action"] == "create" and waiting[0]["category"] == "rule", waiting
    assert waiting[0]["session"] == SESSION, waiting
    assert f"sessionID: {waiting[0]['sessionID']}" in answer["text"]


def test_the_model_cannot_confirm_its_own_proposal_even_where_it_was_allowed(confirm_on: OnRun) -> None:
    run = confirm_on.run
    assert run.model.closed, run.evidence()
    refused = run.model.result("toolu_resolve")
    assert refused["is_error"] and "只能由用户自己确认" in refused["text"], refused
    assert COMMIT_RULE not in [m["text"] for m in confirm_on.rules]  # still only waiting


def test_the_users_next_prompt_answers_it_and_the_model_is_told_the_result(confirm_on: OnRun) -> None:
    answer = confirm_on.answer
    assert answer.result.returncode == 0, answer.evidence()
    sent = answer.sent
    assert "选了「保存为规则」" in sent and "新增记忆" in sent and COMMIT_RULE in sent, sent[-3000:]
    assert [m["text"] for m in confirm_on.rules_after_answer].count(COMMIT_RULE) == 1, confirm_on.memevo.log()
    assert [p for p in confirm_on.pending_after_answer if p["text"] == COMMIT_RULE] == []


def test_the_user_is_shown_what_memevo_wrote_in_its_own_words(confirm_on: OnRun) -> None:
    """Claude Code prints a prompt hook's systemMessage for the user (never for the model): the
    memory memevo wrote, the reply it read, and how to undo it."""
    answer = confirm_on.answer
    events = [json.loads(line) for line in answer.result.stdout.splitlines() if line.startswith("{")]
    shown = [
        str(e.get("content"))
        for e in events
        if e.get("type") == "system" and "memevo" in str(e.get("content"))
    ]
    [stored] = [m for m in confirm_on.rules_after_answer if m["text"] == COMMIT_RULE]
    assert len(shown) == 1, (events, answer.evidence())
    assert f"「{ANSWER}」" in shown[0] and COMMIT_RULE in shown[0], shown
    assert f"memevo delete {stored['id']}" in shown[0], shown
    assert "memevo（记忆插件）" not in answer.sent  # the user's to read, not the model's


# -- lessons from the work: the model proposes what a session resolved --------------------------
LESSON_ERROR = "KeyError: 'user_id' in orders/sync.py"
LESSON = {
    "text": f"订单同步报 {LESSON_ERROR} 时，是上游 webhook 少了 user_id：在 sync.py 里先用 order.customer_id 补上",
    "category": "project",
    "words": LESSON_ERROR,
    "scope": "repo",
}


def test_a_lesson_the_model_proposes_waits_for_the_user_even_with_confirmation_off(
    tmp_path_factory: pytest.TempPathFactory, provisioned_model: Any
) -> None:
    """The real CLI's model (scripted) reads the reminder that asks for lessons, proposes the
    error and its fix as a project fact with the error text as its words: memevo keeps it for the
    user to confirm (the words are not the user's), it is not written."""
    root = tmp_path_factory.mktemp("claude-lesson")
    with _memevo(root, {"confirm": False}) as memevo:
        run = run_claude(
            memevo,
            "lesson",
            "订单同步又挂了，帮我查一下",
            PlayedModel([_search("toolu_search"), _propose("toolu_propose", LESSON)]),
        )
        assert run.result.returncode == 0, run.evidence()
        assert json.dumps(texts.client_reminder("claude"), ensure_ascii=False)[1:-1] in run.sent
        answer = run.model.final("toolu_propose")
        assert not answer["is_error"] and "新增记忆" not in answer["text"], answer
        pending = memevo.cli("pending")
        assert any(LESSON_ERROR in json.dumps(p, ensure_ascii=False) for p in pending["pending"]), pending
        assert not any(LESSON_ERROR in m["text"] for m in memevo.cli("read", "project")["memories"])
