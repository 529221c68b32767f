"""End to end with the real Claude Code CLI (npm @anthropic-ai/claude-code), headless, offline,
against a local fake Messages API, with our hooks registered in a throwaway HOME."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import servicerun
from fake_anthropic import FakeAnthropic
from memevo.core.service import texts
from memevo.installer.registration import snippet
from test_service import FACT, RULES, _populate

REPO = Path(__file__).resolve().parents[1]


def claude_binary() -> str | None:
    local = REPO / ".cache" / "npm" / "node_modules" / ".bin" / "claude"
    if local.exists():
        return str(local)
    return shutil.which("claude")


CLAUDE = claude_binary()
pytestmark = [
    pytest.mark.usefixtures("provisioned_model"),
    pytest.mark.skipif(
        CLAUDE is None, reason="the Claude Code CLI is not installed (.ci/run installs it with npm)"
    ),
]


@pytest.fixture(scope="module")
def memevo_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("claude-memevo-home")
    saved = os.environ.get("MEMEVO_HOME")
    _populate(home)
    if saved is not None:
        os.environ["MEMEVO_HOME"] = saved
    with servicerun.service(home):
        yield home


def run_claude(
    prompt: str, memevo_home: Path, tmp_path: Path
) -> tuple[subprocess.CompletedProcess[str], FakeAnthropic]:
    home = tmp_path / "claude-home"
    (home / ".claude").mkdir(parents=True)
    os.environ["MEMEVO_HOME"] = str(memevo_home)  # print-config reads nothing of it, but be explicit
    (home / ".claude" / "settings.json").write_text(json.dumps(snippet("claude"), indent=2), encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    api = FakeAnthropic()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "MEMEVO_HOME": str(memevo_home),
        "MEMEVO_MODELS_DIR": os.environ["MEMEVO_MODELS_DIR"],
        "ANTHROPIC_BASE_URL": api.url,
        "ANTHROPIC_API_KEY": "sk-ant-test-not-a-real-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "MEMEVO_HEADLESS": "1",
    }
    try:
        result = subprocess.run(
            [str(CLAUDE), "-p", prompt], cwd=project, env=env, capture_output=True, text=True, timeout=180
        )
    finally:
        api.close()
    return result, api


def test_related_prompt_sends_the_model_rules_and_the_recalled_fact(
    memevo_home: Path, tmp_path: Path
) -> None:
    result, api = run_claude("支付页新流程要在测试环境打开，开关叫什么来着", memevo_home, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    sent = api.texts()
    assert api.bodies, "Claude Code never called the fake API"
    for rule in RULES:
        assert rule in sent  # session start
    assert FACT in sent  # recalled for this prompt
    assert "【项目事实】" in sent


def test_unrelated_prompt_sends_only_the_reminder(memevo_home: Path, tmp_path: Path) -> None:
    result, api = run_claude("帮我写一个快速排序的实现", memevo_home, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    sent = api.texts()
    assert RULES[0] in sent  # the session start still lists the rules
    assert FACT not in sent
    reminder = texts.learning_off("claude", False)
    assert json.dumps(reminder, ensure_ascii=False)[1:-1] in sent


def test_claude_mcp_list_reports_our_server_connected(memevo_home: Path, tmp_path: Path) -> None:
    import sys

    home = tmp_path / "claude-home"
    home.mkdir()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "MEMEVO_HOME": str(memevo_home),
        "MEMEVO_MODELS_DIR": os.environ["MEMEVO_MODELS_DIR"],
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    added = subprocess.run(
        [
            str(CLAUDE),
            "mcp",
            "add",
            "--scope",
            "user",
            "memory-self-evolution",
            "--",
            sys.executable,
            "-m",
            "memevo.core.cli",
            "mcp",
            "--client",
            "claude",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert added.returncode == 0, added.stderr
    registered = json.loads((home / ".claude.json").read_text(encoding="utf-8"))["mcpServers"][
        "memory-self-evolution"
    ]
    assert registered["args"][-2:] == ["--client", "claude"]
    listed = subprocess.run(
        [str(CLAUDE), "mcp", "list"], env=env, capture_output=True, text=True, timeout=120
    )
    line = next(line for line in listed.stdout.splitlines() if "memory-self-evolution" in line)
    assert "Connected" in line, listed.stdout + listed.stderr
