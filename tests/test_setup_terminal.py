"""`memevo setup` on a real terminal (a pseudo-terminal): the questions, Enter for the default,
the key read without echo and kept out of every file, `skip`, and the Claude permission."""

from __future__ import annotations

import json
import os
import pty
import select
import sys
import time
from pathlib import Path

import pytest
from test_installer import seed_clients


def _run_on_a_terminal(answers: list[tuple[str, str]], env: dict[str, str]) -> tuple[int, str]:
    """Answer each prompt (matched by a fragment) as a user typing at a terminal."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: memevo on the terminal's slave side
        os.execve(sys.executable, [sys.executable, "-m", "memevo.core.cli", "setup"], env)
    seen = ""
    pending = list(answers)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 4096).decode("utf-8", "replace")
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        while pending and pending[0][0] in seen.split("\n")[-1] + seen[-200:]:
            fragment, reply = pending.pop(0)
            os.write(fd, (reply + "\n").encode())
            seen += f"<<{fragment}>>"
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), seen


# what the answers "2", the example base URL and model leave in config.json
DIRECT_WITH_AN_API = {
    "confirm": False,
    "sideApiBase": "https://api.example.com/v1",
    "sideApiModel": "gpt-4o-mini",
}


def _config(env: dict[str, str]) -> object:
    return json.loads((Path(env["MEMEVO_HOME"]) / "config.json").read_text(encoding="utf-8"))


@pytest.fixture
def env(isolated_home: Path) -> dict[str, str]:
    home = Path(os.environ["HOME"])
    seed_clients(home)
    return dict(os.environ) | {"PATH": "/usr/bin:/bin", "MEMEVO_LANG": "en", "TERM": "dumb"}


def test_questions_answers_and_a_hidden_key(env: dict[str, str]) -> None:
    from memevo.core import secrets

    key = "sk-typed-at-a-terminal-0123456789"
    code, screen = _run_on_a_terminal(
        [
            ("ask me in a native dialog", "2"),
            ("base URL", "https://api.example.com/v1"),
            ("model:", "gpt-4o-mini"),
            ("API key", key),
            ("memory_resolve run without asking", "y"),
        ],
        env,
    )
    assert code == 0, screen[-3000:]
    assert _config(env) == DIRECT_WITH_AN_API
    assert key not in screen  # read without echo
    for root in (Path(env["HOME"]), Path(env["MEMEVO_HOME"])):
        for path in root.rglob("*"):
            if path.is_file():
                assert key.encode() not in path.read_bytes(), path
    claude = json.loads((Path(env["HOME"]) / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert "mcp__memory-self-evolution__memory_resolve" in claude["permissions"]["allow"]
    if "The side API key is in the OS keyring." in screen:  # CI runs under dbus with gnome-keyring
        assert secrets.get_api_key() == key
        secrets.clear_api_key()
    else:
        assert "Set it later with `memevo secret set`" in screen


def test_enter_takes_the_defaults_and_skip_skips(env: dict[str, str]) -> None:
    code, screen = _run_on_a_terminal(
        [("ask me in a native dialog", ""), ("base URL", "skip"), ("memory_resolve run without asking", "")],
        env,
    )
    assert code == 0, screen[-3000:]
    config = json.loads((Path(env["MEMEVO_HOME"]) / "config.json").read_text(encoding="utf-8"))
    assert config == {"confirm": True}
    claude = json.loads((Path(env["HOME"]) / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert "mcp__memory-self-evolution__memory_resolve" not in json.dumps(claude)
    assert "Restart Cursor, CodeBuddy, WorkBuddy so they load memevo's MCP server" in screen
    assert "Claude Code: the hooks work from the next session" in screen  # no claude binary here


def test_a_wrong_answer_is_asked_again_at_once(env: dict[str, str]) -> None:
    """An invalid choice was silently taken as the default, and a base URL that is not one was
    accepted, the model and key asked, and setup then failed at the end having registered nothing."""
    code, screen = _run_on_a_terminal(
        [
            ("ask me in a native dialog", "3"),
            ("answer 1 or 2", "2"),
            ("base URL", "notaurl"),
            ("must be an http", "https://api.example.com/v1"),
            ("model:", "gpt-4o-mini"),
            ("API key", "skip"),
            ("memory_resolve run without asking", ""),
        ],
        env,
    )
    assert code == 0, screen[-3000:]
    assert _config(env) == DIRECT_WITH_AN_API
