"""End to end with the real CodeBuddy Code CLI (npm @tencent-ai/agent-sdk@0.3.201, its bundled
cli/bin/codebuddy run with node), headless (`-p … -y`), offline, against a local fake OpenAI
chat/completions API (also the refusing HTTPS proxy), with memevo registered the way a user
registers it: `memevo setup --only codebuddy` in a throwaway HOME.

Observed on this CLI (2.117.0), relied on below:
- MCP tools are deferred: the ToolSearch description lists them by name only,
  `mcp__memory-self-evolution__memory_propose` etc.; the model loads a schema with
  ToolSearch({tool_names}) and calls the tool with DeferExecuteTool({toolName, params}).
- MCP_TIMEOUT (30 s by default) is the MCP settle wait. A one-shot `-p` run goes on once the
  servers connect; a stream-json session waits it out whole (measured: 30 s made each session
  ~25 s longer than 6 s did), and a server not connected by its end has no tools in the run
  (with 6 s, three tests lost memevo's tools on a machine at load 10). The tests set 10 s:
  room for our server's start on a busy machine, a few idle seconds a session.
- The request header X-Conversation-ID is the CLI's session id (the hooks' session_id).
- In a session driven over stream-json a Stop hook's continuation happens, and the CLI prints
  the turn's `result` before its Stop hooks have ended (run_session waits for them).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import servicerun
from deadlines import HANG_S
from fake_openai_chat import FakeOpenAIChat, text_of, tool_results
from memevo.core.learning import stop as stop_texts
from memevo.core.service import texts
from test_claude_cli_learning import LESSON, LESSON_ERROR  # the same lesson each client's model proposes
from test_service import FACT, RELATED, RULES, UNRELATED, _populate

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / ".cache" / "npm" / "node_modules" / "@tencent-ai" / "agent-sdk" / "cli" / "bin" / "codebuddy"
NODE = shutil.which("node")
pytestmark = [
    pytest.mark.usefixtures("provisioned_model"),
    pytest.mark.skipif(
        not CLI.exists() or NODE is None,
        reason="the CodeBuddy Code CLI is not installed (tests/setup-and-test.sh installs "
        "@tencent-ai/agent-sdk@0.3.201 into .cache/npm with npm; it needs node)",
    ),
]

SERVER = "memory-self-evolution"
# The names as the real CLI shows them to its model (observed, not derived from memevo's code).
PROPOSE = "mcp__memory-self-evolution__memory_propose"
SEARCH = "mcp__memory-self-evolution__memory_search"
USER_WORDS = "以后提交信息都用英文写"
PROPOSAL = {"text": "提交信息（commit message）一律用英文写", "category": "rule", "words": USER_WORDS}
MCP_SETTLE_MS = "10000"


# -- registering memevo and running the CLI --------------------------------------------------------------
def register(home: Path, memevo_home: Path) -> None:
    """What the user runs: `memevo setup --only codebuddy`, with ~/.codebuddy there to be detected."""
    (home / ".codebuddy").mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "MEMEVO_SIDE_API_KEY"}
    env |= {"HOME": str(home), "MEMEVO_HOME": str(memevo_home), "MEMEVO_HEADLESS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "memevo.cli", "setup", "--only", "codebuddy"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def new_project(home: Path) -> Path:
    project = home.parent / f"project-{len(list(home.parent.glob('project-*')))}"
    project.mkdir()
    return project


def cli_env(api: FakeOpenAIChat, home: Path, memevo_home: Path) -> dict[str, str]:
    """The CLI's environment, as in client-protocols.md Appendix C §1 (offline, API-key mode)."""
    proxy = api.url
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "TERM": "dumb",
        "LANG": "C.UTF-8",
        "CODEBUDDY_API_KEY": "fake-key-not-a-real-one",
        "CODEBUDDY_BASE_URL": api.base,
        "HTTP_PROXY": proxy,
        "HTTPS_PROXY": proxy,
        "http_proxy": proxy,
        "https_proxy": proxy,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CODEBUDDY_SKIP_BUILTIN_MARKETPLACE": "1",
        "MCP_TIMEOUT": MCP_SETTLE_MS,
        "MEMEVO_HOME": str(memevo_home),
        "MEMEVO_MODELS_DIR": os.environ["MEMEVO_MODELS_DIR"],
        "MEMEVO_HEADLESS": "1",
    }


def run_codebuddy(
    prompt: str,
    home: Path,
    memevo_home: Path,
    script: Callable[[dict[str, Any]], Any] | None = None,
    project: Path | None = None,
    carry_home: bool = True,
) -> tuple[subprocess.CompletedProcess[str], FakeOpenAIChat]:
    """`codebuddy -p PROMPT -y` in a project folder (a fresh one by default). One-shot `-p`
    drops any Stop continuation (Appendix C §6): see run_session for a session that keeps them.
    carry_home=False: the CLI's environment has no MEMEVO_HOME, as when the user's shell does
    not set it; the folder setup named in the hooks and the MCP entry is all there is."""
    project = project or new_project(home)
    api = FakeOpenAIChat(reply="好的。", script=script)
    env = cli_env(api, home, memevo_home)
    if not carry_home:
        del env["MEMEVO_HOME"]
    try:
        result = subprocess.run(
            [str(NODE), str(CLI), "-p", prompt, "-y"],
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
    finally:
        api.close()
        api.client_log = hooks_logged(home, memevo_home)
    # rc is 0 even when a hook blocked the prompt (Appendix C §1): check stderr and the requests too
    assert result.returncode == 0, result.stderr[-2000:]
    assert "hook error" not in result.stderr, result.stderr[-2000:]
    assert api.bodies, f"the CLI never called the fake model: {result.stdout[-500:]} {result.stderr[-1500:]}"
    assert not api.errors, api.errors
    return result, api


@dataclass
class Session:
    """A persistent CLI session's run: the stream-json events it printed, its stderr, the fake model."""

    events: list[dict[str, Any]]
    stderr: str
    api: FakeOpenAIChat

    def results(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("type") == "result"]


def run_session(
    prompts: list[str],
    home: Path,
    memevo_home: Path,
    script: Callable[[dict[str, Any]], Any] | None = None,
    env: dict[str, str] | None = None,
) -> Session:
    """`codebuddy -p --input-format stream-json --output-format stream-json -y` with stdin held
    open: the way an IDE or the SDK drives it, where a Stop hook's continuation really happens
    (Appendix C §6). The CLI prints a turn's `result` before its Stop hooks end (and closing
    stdin ends them), so each prompt, and the end, waits until every turn the model ended has
    had its Stop hook answer (memevo's hook logs each with MEMEVO_HOOK_TIMING) and nothing
    new has started for a moment."""
    api = FakeOpenAIChat(reply="好的。", script=script)
    events: list[dict[str, Any]] = []
    log = memevo_home / "logs" / "hooks.log"

    def stops_answered() -> int:
        text = log.read_text(encoding="utf-8") if log.exists() else ""
        return text.count("codebuddy stop took")

    def settle() -> None:
        deadline, held = time.monotonic() + HANG_S, 0.0
        while time.monotonic() < deadline and held < 2.0 and proc.poll() is None and not api.errors:
            done = stops_answered() >= api.turns_ended > 0
            held = held + 0.25 if done else 0.0
            time.sleep(0.25)

    with subprocess.Popen(
        [str(NODE), str(CLI), "-p", "--input-format", "stream-json", "--output-format", "stream-json", "-y"],
        cwd=new_project(home),
        env=cli_env(api, home, memevo_home) | {"MEMEVO_HOOK_TIMING": "1"} | (env or {}),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        guard = threading.Timer(HANG_S, proc.kill)  # a hang guard, never a timing assertion
        guard.start()
        errors: list[str] = []
        reader = threading.Thread(target=lambda: errors.append(proc.stderr.read() if proc.stderr else ""))
        reader.start()
        try:
            assert proc.stdin is not None and proc.stdout is not None
            for prompt in prompts:
                message = {"type": "user", "message": {"role": "user", "content": prompt}}
                proc.stdin.write(json.dumps(message, ensure_ascii=False) + "\n")
                proc.stdin.flush()
                for line in proc.stdout:
                    if line.strip().startswith("{"):
                        events.append(json.loads(line))
                        if events[-1].get("type") == "result":
                            break
                settle()
            proc.stdin.close()
            events += [json.loads(line) for line in proc.stdout if line.strip().startswith("{")]
            proc.wait()
        finally:
            guard.cancel()
            api.close()
            reader.join()
            api.client_log = hooks_logged(home, memevo_home)
    session = Session(events, "".join(errors), api)
    assert not api.errors, api.errors
    assert len(session.results()) >= len(prompts), (events[-3:], session.stderr[-2000:])
    assert "hook error" not in session.stderr, session.stderr[-2000:]
    return session


def memevo(memevo_home: Path, home: Path, *args: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "memevo.cli", *args, "--json"],
        env=os.environ | {"HOME": str(home), "MEMEVO_HOME": str(memevo_home)},
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def hook_texts(body: dict[str, Any]) -> list[str]:
    """The hooks' injections in a request: `<system-reminder data-role="hook">` parts."""
    found = []
    for message in body.get("messages") or []:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        for part in content if isinstance(content, list) else [{"type": "text", "text": content}]:
            text = text_of([part])
            if text.startswith('<system-reminder data-role="hook">'):
                found.append(text)
    return found


def session_start(api: FakeOpenAIChat) -> str:
    """The SessionStart hook's injection in the run's first request (the CLI holds that request
    until the hook has answered); on failure, what the CLI and memevo logged of the hooks."""
    starts = [t for t in hook_texts(api.bodies[0]) if "记下的用户规则" in t or "当前没有记下的用户规则" in t]
    assert len(starts) == 1, (hook_texts(api.bodies[0]), api.client_log)
    return starts[0]


def hooks_logged(home: Path, memevo_home: Path) -> str:
    """The CLI's log lines on hooks (spawned, timed out, context given) and memevo's hook and
    service logs: what a failure's message needs to say why an injection is missing."""
    lines = []
    runs = sorted((home / ".codebuddy" / "logs").glob("*/*.log"), key=lambda log: log.stat().st_mtime)
    for log in runs[-1:]:  # the run's own (a log per project folder; each run has its own folder)
        text = log.read_text(encoding="utf-8", errors="replace")
        lines += [line[:400] for line in text.splitlines() if re.search(r"[Hh]ook|SessionStart", line)]
    for name in ("hooks.log", "service.log"):
        log = memevo_home / "logs" / name
        if log.exists():
            lines += [f"{name}: {line}" for line in log.read_text(encoding="utf-8").splitlines()[-40:]]
    return "\n".join(lines[-120:])


def deferred_tools(body: dict[str, Any]) -> list[str]:
    """The deferred tools the ToolSearch description lists (one name, or `name: summary`, a line)."""
    search = next(t["function"] for t in body.get("tools") or [] if t["function"]["name"] == "ToolSearch")
    listed = (
        search["description"].split("<available_deferred_tools>")[1].split("</available_deferred_tools>")[0]
    )
    return [line.split(":")[0].strip() for line in listed.splitlines() if line.strip()]


def has_tool(body: dict[str, Any], name: str) -> bool:
    return any(t.get("function", {}).get("name") == name for t in body.get("tools") or [])


# -- the shared, read-only setup: memories populated, a service, memevo registered ---------------------------
REPO_RULE = "这个仓库的 Python 代码统一用 4 个空格缩进"


def the_repository(home: Path) -> Path:
    """A git repository (a `.git` folder is all memevo looks for) holding a rule of its own."""
    return home.parent / "shop-repo"


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    root = tmp_path_factory.mktemp("codebuddy-cli")
    home, memevo_home = root / "home", root / "memevo"
    register(home, memevo_home)
    repository = the_repository(home)
    (repository / ".git").mkdir(parents=True)
    with servicerun.populated(memevo_home, _populate):
        added = subprocess.run(
            [sys.executable, "-m", "memevo.cli", "rule", "add", "--here", REPO_RULE],
            cwd=repository,
            env=os.environ | {"HOME": str(home), "MEMEVO_HOME": str(memevo_home)},
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
        assert added.returncode == 0, added.stdout + added.stderr
        yield home, memevo_home


def searches_for_the_fact(body: dict[str, Any]) -> Any:
    """A model that looks memory_search up and calls it for the fact, as the CLI lets it."""
    if not has_tool(body, "DeferExecuteTool"):
        return None
    results = tool_results(body)
    if "call_search_schema" not in results:
        return [{"id": "call_search_schema", "name": "ToolSearch", "arguments": {"tool_names": [SEARCH]}}]
    if "call_search" not in results:
        params = {"query": "支付页新流程 灰度开关"}
        args = {"toolName": SEARCH, "params": params}
        return [{"id": "call_search", "name": "DeferExecuteTool", "arguments": args}]
    return "开关是 pay_new_flow_v2。"


@pytest.fixture(scope="module")
def related(shared: tuple[Path, Path]) -> tuple[subprocess.CompletedProcess[str], FakeOpenAIChat]:
    """A related prompt; the model searches for the fact."""
    home, memevo_home = shared
    return run_codebuddy(RELATED, home, memevo_home, searches_for_the_fact)


def test_setup_registers_the_hooks_and_the_mcp_file_the_cli_reads(shared: tuple[Path, Path]) -> None:
    home, _ = shared
    settings = json.loads((home / ".codebuddy" / "settings.json").read_text(encoding="utf-8"))
    for event in ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"):
        commands = [h["command"] for group in settings["hooks"][event] for h in group["hooks"]]
        assert any("memevo_hook.py" in c and c.endswith(f"codebuddy {event}") for c in commands), commands
    assert "PreToolUse" not in settings["hooks"]  # the CLI ignores its context
    # the CLI reads the first existing of ~/.codebuddy/.mcp.json, ~/.codebuddy/mcp.json, ~/.codebuddy.json
    assert not (home / ".codebuddy" / ".mcp.json").exists()
    entry = json.loads((home / ".codebuddy" / "mcp.json").read_text(encoding="utf-8"))["mcpServers"][SERVER]
    assert entry["args"][-4:] == ["memevo.cli", "mcp", "--client", "codebuddy"]


def test_a_related_prompt_sends_the_model_the_rules_and_the_recalled_fact(
    related: tuple[subprocess.CompletedProcess[str], FakeOpenAIChat],
) -> None:
    _, api = related
    first = api.bodies[0]  # before any tool ran: only the hooks can have put these here
    start = session_start(api)
    for rule in RULES:
        assert rule in start
    assert REPO_RULE not in start  # another repository's rule
    assert FACT not in start  # project facts are recalled, never listed at session start
    recalled = [t for t in hook_texts(first) if "【项目事实】" in t]
    assert len(recalled) == 1 and FACT in recalled[0], hook_texts(first)
    assert f"<user_query>{RELATED}</user_query>" in api.texts()


def test_without_memevo_home_the_cli_still_reaches_the_folder_setup_named(shared: tuple[Path, Path]) -> None:
    """Issue 31, item 15: setup ran with MEMEVO_HOME (a moved data folder); the CLI, started
    without it, runs the hooks with `--home` and the MCP server with the entry's env, so the
    rules (hooks) and the recalled fact (memory_search through the MCP server) come from the
    service in that folder, and nothing is made in the default one."""
    home, memevo_home = shared

    _, api = run_codebuddy(RELATED, home, memevo_home, searches_for_the_fact, carry_home=False)
    assert all(rule in session_start(api) for rule in RULES)
    assert FACT in tool_results(api.bodies[-1])["call_search"]
    assert not (home / ".memory-self-evolution").exists()


def test_an_unrelated_prompt_gets_the_rules_and_only_the_reminder(shared: tuple[Path, Path]) -> None:
    """Run in a repository: its own rule is among the session start's (the
    CLI's SessionStart names no cwd; the hook's folder and CODEBUDDY_PROJECT_DIR do)."""
    home, memevo_home = shared
    _, api = run_codebuddy(UNRELATED, home, memevo_home, project=the_repository(home))
    first = api.bodies[0]
    assert RULES[0] in session_start(api) and REPO_RULE in session_start(api)
    assert FACT not in api.texts()
    # no side API here: learning is the client's (learning=auto), so the client-mode texts
    assert texts.client_duties("codebuddy") in session_start(api)
    prompt_parts = [t for t in hook_texts(first) if t != session_start(api)]
    assert prompt_parts == [
        f'<system-reminder data-role="hook">{texts.client_reminder("codebuddy")}</system-reminder>'
    ]


def test_our_mcp_server_is_connected_and_its_tools_are_deferred(
    related: tuple[subprocess.CompletedProcess[str], FakeOpenAIChat],
) -> None:
    result, api = related
    listed = deferred_tools(api.bodies[0])
    for tool in ("memory_search", "memory_propose", "memory_resolve", "memory_list"):
        assert f"mcp__{SERVER}__{tool}" in listed, listed
    assert not any(
        has_tool(api.bodies[0], f"mcp__{SERVER}__{t}") for t in ("memory_search", "memory_propose")
    )
    answers = tool_results(api.bodies[-1])
    assert "memory_searchArguments" in answers["call_search_schema"]  # the schema, from our server
    assert FACT in answers["call_search"], answers["call_search"]  # a real tools/call through the service
    assert "开关是 pay_new_flow_v2。" in result.stdout


def test_a_tool_calls_rules_come_with_its_result_once(shared: tuple[Path, Path]) -> None:
    """Issue 30, item 5: the rules about a tool call reach the model appended to the tool's
    result (PostToolUse; PreToolUse's context never did), once, worded for a call that ran."""

    def model(body: dict[str, Any]) -> Any:
        if not has_tool(body, "Bash"):
            return None
        if "call_commit" not in tool_results(body):
            args = {"command": "git commit -m wip", "description": "commit the change"}
            return [{"id": "call_commit", "name": "Bash", "arguments": args}]
        return "提交失败了：这里不是 git 仓库。"

    home, memevo_home = shared
    _, api = run_codebuddy("看一下这个目录里有什么文件", home, memevo_home, model)
    first = api.bodies[0]
    recalled = [t for t in hook_texts(first) if t != session_start(api)]
    assert RULES[1] not in "".join(recalled)  # not recalled by the prompt already (it would not repeat)
    result = tool_results(api.bodies[-1])["call_commit"]
    assert result.count('<system-reminder data-role="tool-hint">') == 1, result
    assert "针对刚执行的这一步操作召回的长期记忆" in result and RULES[1] in result, result
    assert "即将执行" not in api.texts()


# -- learning in client mode: the client's model proposes through memory_propose -------------------------------
class Proposer:
    """Plays a model that follows memevo's reminder: loads memory_propose's schema with ToolSearch,
    calls it through DeferExecuteTool (answering a list of similar memories, should one come back,
    with action=create as the tool asks), proposes the same `times` times, then answers the user."""

    def __init__(self, times: int = 1, proposal: dict[str, Any] | None = None) -> None:
        self.times = times
        self.proposal = proposal or PROPOSAL
        self.sent: dict[str, dict[str, Any]] = {}  # call id → the params proposed

    def __call__(self, body: dict[str, Any]) -> Any:
        if not has_tool(body, "DeferExecuteTool"):
            return None
        results = tool_results(body)
        if "call_schema" not in results:
            return [{"id": "call_schema", "name": "ToolSearch", "arguments": {"tool_names": [PROPOSE]}}]
        params = dict(self.proposal)  # a repeated proposal is the first one again, word for word
        if self.sent:
            last = list(self.sent)[-1]
            if _asks_for_action(results.get(last, "")):
                params = self.sent[last] | {"action": "create"}
            elif len(self.answers(body)) >= self.times or len(self.sent) > 5:
                return "好的，以后提交信息都用英文写。"
        call_id = f"call_propose_{len(self.sent) + 1}"
        self.sent[call_id] = params
        return [
            {
                "id": call_id,
                "name": "DeferExecuteTool",
                "arguments": {"toolName": PROPOSE, "params": params},
            }
        ]

    def answers(self, body: dict[str, Any]) -> list[str]:
        """The tool's answers to each proposal, similar-memory lists left out."""
        results = tool_results(body)
        return [results[i] for i in self.sent if i in results and not _asks_for_action(results[i])]


def _asks_for_action(answer: str) -> bool:
    return "action=create" in answer


@contextmanager
def learning_home(
    tmp_path: Path, config: dict[str, Any] | None, side_key: str | None = None
) -> Iterator[tuple[Path, Path]]:
    """memevo registered, memories populated and a service running; side_key: the side API's
    key, given to the service only (config then names the side API), else client mode."""
    home, memevo_home = tmp_path / "home", tmp_path / "memevo"
    register(home, memevo_home)
    path = memevo_home / "config.json"
    current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if config is not None:
        path.write_text(json.dumps(current | config), encoding="utf-8")
    chosen = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if side_key is None:
        assert not any(k.startswith("sideApi") for k in chosen), chosen  # no side API at all
    saved = os.environ.get("MEMEVO_HOME")
    try:
        _populate(memevo_home)
    finally:
        if saved is None:
            os.environ.pop("MEMEVO_HOME", None)
        else:
            os.environ["MEMEVO_HOME"] = saved
    key = {"MEMEVO_SIDE_API_KEY": side_key} if side_key else {}
    with servicerun.service(memevo_home, env={"MEMEVO_HEADLESS": "1"} | key):
        yield home, memevo_home


def assert_the_reminder_names_the_tool_the_cli_lists(body: dict[str, Any]) -> None:
    reminder = texts.client_reminder("codebuddy")
    # the prompt hook's part: what it recalled for this prompt (if anything), then the reminder
    assert any(t.endswith(f"{reminder}</system-reminder>") for t in hook_texts(body)), hook_texts(body)
    assert PROPOSE in reminder and PROPOSE in deferred_tools(body)
    assert texts.PROPOSE_QUALIFIED == PROPOSE


def rules_of(memevo_home: Path, home: Path) -> list[str]:
    return [m["text"] for m in memevo(memevo_home, home, "read", "rule")["memories"] if not m["deprecated"]]


@pytest.fixture
def no_side_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMEVO_SIDE_API_KEY", raising=False)


@pytest.mark.usefixtures("no_side_key")
def test_confirmation_off_the_proposal_is_stored_and_the_next_session_starts_with_it(
    tmp_path: Path,
) -> None:
    with learning_home(tmp_path, {"confirm": False}) as (home, memevo_home):
        model = Proposer()
        result, api = run_codebuddy(USER_WORDS, home, memevo_home, model)
        assert_the_reminder_names_the_tool_the_cli_lists(api.bodies[0])
        [answer] = model.answers(api.bodies[-1])
        assert PROPOSAL["text"] in answer and texts.CONFIRM_MARKER not in answer, answer
        assert "好的，以后提交信息都用英文写。" in result.stdout
        rules = rules_of(memevo_home, home)
        assert rules.count(PROPOSAL["text"]) == 1 and len(rules) == len(RULES) + 1, rules
        assert memevo(memevo_home, home, "pending")["pending"] == []

        _, later = run_codebuddy(UNRELATED, home, memevo_home)
        assert PROPOSAL["text"] in session_start(later)


@pytest.mark.usefixtures("no_side_key")
def test_confirmation_on_nothing_is_stored_the_model_is_told_to_ask_and_it_is_pending(
    tmp_path: Path,
) -> None:
    with learning_home(tmp_path, None) as (home, memevo_home):  # confirm: the default (true)
        model = Proposer()
        _, api = run_codebuddy(USER_WORDS, home, memevo_home, model)
        assert_the_reminder_names_the_tool_the_cli_lists(api.bodies[0])
        [answer] = model.answers(api.bodies[-1])
        assert texts.CONFIRM_MARKER in answer and USER_WORDS in answer, answer
        assert PROPOSAL["text"] not in rules_of(memevo_home, home)
        [waiting] = memevo(memevo_home, home, "pending")["pending"]
        assert waiting["client"] == "codebuddy"
        assert waiting["words"] == USER_WORDS and waiting["text"] == PROPOSAL["text"]
        assert f"sessionID: {waiting['sessionID']}" in answer
        # the proposal belongs to the CLI session the hooks saw (the X-Conversation-ID)
        assert waiting["session"] == api.headers[0]["X-Conversation-ID"]


@pytest.mark.usefixtures("no_side_key")
def test_the_same_proposal_twice_in_a_session_is_one_memory(tmp_path: Path) -> None:
    with learning_home(tmp_path, {"confirm": False}) as (home, memevo_home):
        model = Proposer(times=2)
        _, api = run_codebuddy(USER_WORDS, home, memevo_home, model)
        first, second = model.answers(api.bodies[-1])
        assert PROPOSAL["text"] in first
        assert "没有重复记下" in second, second
        assert rules_of(memevo_home, home).count(PROPOSAL["text"]) == 1


# -- the side judge, and the CLI's Stop continuations (a persistent session) ----------------------------
SIDE_KEY = "sk-test-local-only-0000000000"
JUDGED_RULE = "提交信息（commit message）一律用英文写"


@contextmanager
def side_judge() -> Iterator[Any]:
    from fake_openai import FakeOpenAI

    def judged(body: dict[str, Any]) -> tuple[str, Any]:
        said = text_of([{"text": str(m.get("content"))} for m in body.get("messages") or []])
        if USER_WORDS in said and "捕捉到了新的记忆" not in said:
            return "json", {"remember": True, "text": JUDGED_RULE, "category": "rule"}
        return "json", {"remember": False}

    judge = FakeOpenAI(judged)
    try:
        yield judge
    finally:
        judge.close()


def user_queries(api: FakeOpenAIChat) -> list[str]:
    """The `<user_query>` texts of the last request: the conversation's user turns, in order."""
    return queries_of(api.bodies[-1])


def queries_of(body: dict[str, Any]) -> list[str]:
    found = []
    for message in body.get("messages") or []:
        if message.get("role") == "user":
            text = text_of(message.get("content") if isinstance(message.get("content"), list) else [message])
            found += [part.split("</user_query>")[0] for part in text.split("<user_query>")[1:]]
    return found


@pytest.mark.usefixtures("no_side_key")
def test_our_result_notice_in_the_stop_continuation_is_not_learned_again(tmp_path: Path) -> None:
    """Issue 30, item 1: with confirmation off, Stop shows the result in a continuation; the CLI
    then fires UserPromptSubmit with `Stop hook: <our notice>`. That is ours: not judged, not
    remembered again, no 「已存在，强化了」 later."""
    with side_judge() as judge:
        config = {"sideApiBase": judge.base, "sideApiModel": "judge", "confirm": False, "sideWaitMs": 15000}
        with learning_home(tmp_path, config, side_key=SIDE_KEY) as (home, memevo_home):
            session = run_session([USER_WORDS, "好的，继续"], home, memevo_home)
            rules = rules_of(memevo_home, home)
    queries = user_queries(session.api)
    assert queries[0] == USER_WORDS, queries
    continued = [q for q in queries if q.startswith("Stop hook: ")]
    assert len(continued) == 1 and texts.PLUGIN in continued[0] and "捕捉到了新的记忆" in continued[0], (
        queries
    )
    assert JUDGED_RULE in continued[0]
    # only the user's two prompts went to the judge; the notice behind `Stop hook: ` never did
    judged = [
        str(r["messages"][-1]["content"]).split("\n", 1)[-1]
        for r in judge.requests
        if str(r["messages"][0]["content"]).startswith("你是一个长期记忆的判别器")
    ]
    assert judged == [USER_WORDS, "好的，继续"], judged
    assert rules.count(JUDGED_RULE) == 1, rules
    assert "强化" not in "".join(queries), queries


def test_a_hung_service_never_makes_the_cli_loop_on_our_stop_hook(tmp_path: Path) -> None:
    """Issue 30, item 6: a Stop hook that hits its registered timeout is a block to the CLI,
    which continues with `Stop hook: Hook timed out…` and loops. With the service hung, ours
    gives up on it well inside its timeout, answers nothing, and the turn ends once."""
    from hookrun import FakeService

    home, memevo_home = tmp_path / "home", tmp_path / "memevo"
    register(home, memevo_home)
    settings = json.loads((home / ".codebuddy" / "settings.json").read_text(encoding="utf-8"))
    [stop_hook] = [h for group in settings["hooks"]["Stop"] for h in group["hooks"]]
    hung = FakeService(memevo_home, hang=True)  # accepts, reads, never answers
    try:
        with open(memevo_home / "service.lock", "a+") as lock:  # as a live service holds it:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # nobody starts another in its place
            session = run_session([UNRELATED], home, memevo_home)
    finally:
        hung.close()
    assert len(session.api.bodies) == 1, user_queries(session.api)
    assert "Stop hook:" not in session.api.texts()
    log = (memevo_home / "logs" / "hooks.log").read_text(encoding="utf-8")
    gave_up = [
        line for line in log.splitlines() if "codebuddy stop:" in line and "answering from cache" in line
    ]
    assert len(gave_up) == 1, log[-3000:]
    assert stop_hook["timeout"] >= 30


# -- in-chat confirmation: asked in words, answered by the user's next message --------------------------
RESOLVE = "mcp__memory-self-evolution__memory_resolve"
ANSWER = "保存为规则"  # the user's reply: the first option, by its name (a bare number saves nothing)


class AsksInWords:
    """Plays a model given memevo's in-chat confirmation (an instruction carrying
    MEMORY_CONFIRM_V1 in front of it): it first tries to answer the question itself, loading
    memory_resolve and calling it with the instruction's sessionID (the CLI runs with -y: every
    tool allowed), then asks in words and ends its turn; when the user's next message picks
    option 1 by its name, it tells the user the result the plugin put in that prompt's context."""

    def __init__(self) -> None:
        self.asked_in: list[str] = []  # the user turn each question answered
        self.refused: list[str] = []  # what its own memory_resolve got back
        self.told: list[str] = []  # the plugin's word on the user's answer, as the model read it

    def __call__(self, body: dict[str, Any]) -> Any:
        if not has_tool(body, "DeferExecuteTool"):
            return None
        said = "\n".join(text_of(m.get("content")) for m in body.get("messages") or [])
        named = re.findall(texts.CONFIRM_MARKER + r"\n.*\nsessionID: ([0-9a-f]{32})", said)
        if not named:  # (the duties name the marker in every request; the instruction is this)
            return None
        queries = queries_of(body)
        results = tool_results(body)
        if queries[-1] == ANSWER:
            self.told = [t for t in hook_texts(body) if "选了「" in t]
            return "已按你的选择处理：" + (self.told[-1] if self.told else "（插件没有告诉我结果）")
        if "call_resolve_schema" not in results:
            return [
                {"id": "call_resolve_schema", "name": "ToolSearch", "arguments": {"tool_names": [RESOLVE]}}
            ]
        if "call_resolve" not in results:
            params = {"sessionID": named[-1], "decision": "create_rule"}
            return [
                {
                    "id": "call_resolve",
                    "name": "DeferExecuteTool",
                    "arguments": {"toolName": RESOLVE, "params": params},
                }
            ]
        self.refused.append(results["call_resolve"])
        self.asked_in.append(queries[-1])
        return (
            f"「{stop_texts.TITLE}」我想记下一条记忆，请回复选项名称（只回编号不会保存）："
            "1. 保存为规则；2. 保存为项目事实；3. 不保存"
        )


def waiting_jobs(memevo_home: Path, home: Path) -> list[dict[str, Any]]:
    return list(memevo(memevo_home, home, "pending")["pending"])


@pytest.mark.usefixtures("no_side_key")
def test_a_question_the_cli_delivered_is_asked_in_words_and_answered_by_the_users_next_message(
    tmp_path: Path,
) -> None:
    """A session driven over stream-json: the Stop continuation reaches the model (the CLI echoes
    it as `Stop hook: …`, so the question counts as asked); the model's own memory_resolve is
    refused, it asks in words, the user answers with the option's name: the memory is written,
    the model told so, and the user shown memevo's own words on it (the CLI's hook message,
    which skips the model)."""
    with side_judge() as judge:
        config = {"sideApiBase": judge.base, "sideApiModel": "judge", "confirm": True, "sideWaitMs": 15000}
        with learning_home(tmp_path, config, side_key=SIDE_KEY) as (home, memevo_home):
            model = AsksInWords()
            session = run_session([USER_WORDS, ANSWER], home, memevo_home, model)
            rules = rules_of(memevo_home, home)
            left = waiting_jobs(memevo_home, home)
            _, later = run_codebuddy(UNRELATED, home, memevo_home)
    queries = user_queries(session.api)
    asked = [q for q in queries if q.startswith("Stop hook: ")]
    assert len(asked) == 1 and texts.CONFIRM_MARKER in asked[0], queries
    assert "直接用文字问用户" in asked[0] and "不要调用 memory_resolve" in asked[0]
    assert [q for q in model.asked_in] == [asked[0]], model.asked_in  # asked once, in the continuation
    assert len(model.refused) == 1 and "只能由用户自己确认" in model.refused[0], model.refused
    assert model.told and JUDGED_RULE in model.told[-1] and "新增记忆" in model.told[-1], model.told
    assert rules.count(JUDGED_RULE) == 1 and left == [], (rules, left)
    assert "请你向用户确认一条记忆" not in later.texts()  # delivered once: never asked again
    shown = [
        line
        for line in session.api.client_log.splitlines()
        if "UserPromptSubmit hook message: memevo" in line
    ]
    assert len(shown) == 1 and JUDGED_RULE in shown[0], session.api.client_log
    assert "memevo（记忆插件）" not in session.api.texts()  # the user's to read, not the model's


@pytest.mark.usefixtures("no_side_key")
def test_a_question_one_shot_dropped_is_asked_at_the_next_session_start(tmp_path: Path) -> None:
    """One-shot `-p` drops the Stop continuation unseen: the question stays waiting (not
    "shown" forever) and the next session's start hands it over; the model asks it after the
    user's first message, and the user's answer to that writes it."""
    with side_judge() as judge:
        config = {"sideApiBase": judge.base, "sideApiModel": "judge", "confirm": True, "sideWaitMs": 15000}
        with learning_home(tmp_path, config, side_key=SIDE_KEY) as (home, memevo_home):
            _, first = run_codebuddy(USER_WORDS, home, memevo_home)
            [offered] = waiting_jobs(memevo_home, home)
            model = AsksInWords()
            session = run_session(["你好", ANSWER], home, memevo_home, model)
            rules = rules_of(memevo_home, home)
            left = waiting_jobs(memevo_home, home)
    assert len(first.bodies) == 1 and "请你向用户确认一条记忆" not in first.texts()  # dropped unseen
    assert offered["status"] == "ready" and offered["text"] == JUDGED_RULE, offered
    start = session_start(session.api)
    assert texts.CONFIRM_MARKER in start and f"sessionID: {offered['sessionID']}" in start, start
    assert model.asked_in == ["你好"], model.asked_in
    assert len(model.refused) == 1 and "只能由用户自己确认" in model.refused[0], model.refused
    assert model.told and JUDGED_RULE in model.told[-1], model.told
    assert rules.count(JUDGED_RULE) == 1 and left == [], (rules, left)


# -- another tool's prompt hook: only the last context reaches the model --------------------------------
OTHER_CONTEXT = "OTHER-TOOL-CONTEXT-7f3a"


def test_another_tools_prompt_hook_after_ours_is_reported_and_ours_put_back_last(tmp_path: Path) -> None:
    """Another tool's installer appends its UserPromptSubmit hook after ours: the CLI then gives
    its model only that hook's context, memevo's reminder is gone. `memevo setup --repair` (what
    the tray's watcher runs on a stale registration) says so and puts ours back last."""
    home, memevo_home = tmp_path / "home", tmp_path / "memevo"
    register(home, memevo_home)
    other = tmp_path / "other_tool.py"
    answer = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": OTHER_CONTEXT}}
    other.write_text(
        f"import sys\nsys.stdin.read()\nprint({json.dumps(json.dumps(answer))})\n", encoding="utf-8"
    )
    path = home / ".codebuddy" / "settings.json"
    settings = json.loads(path.read_text(encoding="utf-8"))
    command = f"{sys.executable} {other}"
    settings["hooks"]["UserPromptSubmit"].append(
        {"matcher": "", "hooks": [{"type": "command", "command": command}]}
    )
    path.write_text(json.dumps(settings), encoding="utf-8")
    reminder = texts.client_reminder("codebuddy")
    with servicerun.service(memevo_home, env={"MEMEVO_HEADLESS": "1"}):
        _, before = run_codebuddy(UNRELATED, home, memevo_home)
        env = {k: v for k, v in os.environ.items() if k != "MEMEVO_SIDE_API_KEY"}
        repaired = subprocess.run(
            [sys.executable, "-m", "memevo.cli", "setup", "--repair", "--only", "codebuddy"],
            env=env | {"HOME": str(home), "MEMEVO_HOME": str(memevo_home), "MEMEVO_HEADLESS": "1"},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
        _, after = run_codebuddy(UNRELATED, home, memevo_home)
    # the CLI as observed: the last hook's context only (ours lost)
    assert OTHER_CONTEXT in before.texts() and reminder not in before.texts()
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert (
        "only the last UserPromptSubmit hook's context" in repaired.stdout and command[:40] in repaired.stdout
    )
    last = json.loads(path.read_text(encoding="utf-8"))["hooks"]["UserPromptSubmit"][-1]["hooks"][-1]
    assert last["command"].endswith("codebuddy UserPromptSubmit")
    assert reminder in after.texts() and OTHER_CONTEXT not in after.texts()


def test_backfill_reads_the_real_clis_transcripts(tmp_path: Path) -> None:
    """Two sessions of the real CLI, one preference said in each in other words: backfill reads
    the CLI's own transcripts (~/.codebuddy/projects/…) and proposes it once."""
    home, memevo_home = tmp_path / "home", tmp_path / "data"
    (home / ".codebuddy").mkdir(parents=True)
    project = new_project(home)
    for prompt in ("以后回答都用中文。然后帮我看看 main.py", "记住：回答一律用中文"):
        run_codebuddy(prompt, home, memevo_home, project=project)
    assert list((home / ".codebuddy" / "projects").glob("*/*.jsonl"))
    found = memevo(memevo_home, home, "backfill")
    assert found["sessions"] == 2, found
    (candidate,) = found["candidates"]
    assert "中文" in candidate["text"] and candidate["category"] == "rule"
    assert set(candidate["evidence"]["words"]) == {"记住：回答一律用中文", "以后回答都用中文。"}
    assert candidate["evidence"]["clients"] == ["codebuddy"]


@pytest.mark.usefixtures("no_side_key")
def test_a_lesson_from_the_work_waits_for_the_user_even_with_confirmation_off(tmp_path: Path) -> None:
    """The CLI's model (scripted) proposes what the work resolved, the exact error as its words:
    not the user's words, so memevo keeps it for the user's yes; nothing is written."""
    with learning_home(tmp_path, {"confirm": False}) as (home, memevo_home):
        model = Proposer(proposal=LESSON)
        _, api = run_codebuddy("订单同步又挂了，帮我查一下", home, memevo_home, model)
        assert "报错" in texts.client_reminder("codebuddy")  # the reminder the model read asks for lessons
        [answer] = model.answers(api.bodies[-1])
        assert "新增记忆" not in answer, answer
        projects = memevo(memevo_home, home, "read", "project")["memories"]
        assert not any(LESSON_ERROR in m["text"] for m in projects)
        pending = memevo(memevo_home, home, "pending")["pending"]
        assert any(LESSON_ERROR in json.dumps(p, ensure_ascii=False) for p in pending), pending
