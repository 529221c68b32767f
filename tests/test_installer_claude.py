"""`memevo setup --only claude` against the real Claude Code CLI in a throwaway HOME: the MCP
server is registered through `claude mcp add` and connects, the hooks inject the rules into a
`claude -p` run against the fake Messages API, a second setup keeps one entry, and
`uninstall --only claude` removes it through `claude mcp remove`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import servicerun
from deadlines import HANG_S
from fake_anthropic import FakeAnthropic
from test_claude_cli import CLAUDE
from test_service import RULES, _populate

pytestmark = [
    pytest.mark.usefixtures("provisioned_model"),
    pytest.mark.skipif(
        CLAUDE is None, reason="the Claude Code CLI is not installed (.ci/run installs it with npm)"
    ),
]


@pytest.fixture(scope="module")
def memevo_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with servicerun.populated(tmp_path_factory.mktemp("setup-claude-memevo-home"), _populate) as home:
        yield home


def _env(home: Path, memevo_home: Path, **extra: str) -> dict[str, str]:
    assert CLAUDE is not None
    return {
        "PATH": f"{Path(CLAUDE).parent}:/usr/bin:/bin",  # `claude` on PATH, as a user has it
        "HOME": str(home),
        "MEMEVO_HOME": str(memevo_home),
        "MEMEVO_MODELS_DIR": os.environ["MEMEVO_MODELS_DIR"],
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "MEMEVO_LANG": "en",
        **extra,
    }


def _memevo(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memevo.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )


def _servers(home: Path) -> dict[str, object]:
    return json.loads((home / ".claude.json").read_text(encoding="utf-8")).get("mcpServers", {})


def test_setup_only_claude_registers_mcp_and_hooks_for_real(memevo_home: Path, tmp_path: Path) -> None:
    home = tmp_path / "claude-home"
    (home / ".claude").mkdir(parents=True)
    env = _env(home, memevo_home)
    setup = _memevo(env, "setup", "--only", "claude")
    assert setup.returncode == 0, setup.stdout + setup.stderr
    assert "MCP server: claude mcp add --scope user" in setup.stdout
    assert _servers(home)["memory-self-evolution"]["args"][-2:] == ["--client", "claude"]  # type: ignore[index]
    listed = subprocess.run(
        [str(CLAUDE), "mcp", "list"], env=env, capture_output=True, text=True, timeout=HANG_S
    )
    line = next(line for line in listed.stdout.splitlines() if "memory-self-evolution" in line)
    assert "Connected" in line, listed.stdout + listed.stderr

    again = _memevo(env, "setup", "--only", "claude")  # re-adding the same name: still one entry
    assert again.returncode == 0 and list(_servers(home)).count("memory-self-evolution") == 1

    project = tmp_path / "project"
    project.mkdir()
    api = FakeAnthropic()
    # Claude Code started without MEMEVO_HOME (from the dock, say): the hooks setup registered
    # name the moved folder themselves
    claude_env = {k: v for k, v in env.items() if k != "MEMEVO_HOME"}
    try:
        run = subprocess.run(
            [str(CLAUDE), "-p", "帮我写一个快速排序的实现"],
            cwd=project,
            env=claude_env
            | {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "sk-ant-test-not-a-real-key"},
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
    finally:
        api.close()
    assert run.returncode == 0, run.stderr[-2000:]
    assert all(rule in api.texts() for rule in RULES)  # injected by the hooks setup registered
    assert not (home / ".memory-self-evolution").exists()  # never the default folder

    gone = _memevo(env, "uninstall", "--only", "claude")
    assert gone.returncode == 0 and "claude mcp remove" in gone.stdout
    assert "memory-self-evolution" not in _servers(home)
    assert "memevo_hook" not in (home / ".claude" / "settings.json").read_text(encoding="utf-8")
