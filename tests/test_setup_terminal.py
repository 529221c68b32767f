"""`memevo setup` on a real terminal (a pseudo-terminal): the questions, Enter for the default,
the key read without echo and kept out of every file, `skip`, the learning mode (the side API
asked only for auto and side) and the Claude permission rules."""

from __future__ import annotations

import json
import os
import pty
import select
import sys
import time
from pathlib import Path

import pytest
from deadlines import HANG_S


def _run_on_a_terminal(answers: list[tuple[str, str]], env: dict[str, str]) -> tuple[int, str]:
    """Answer each prompt (matched by a fragment) as a user typing at a terminal."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: memevo on the terminal's slave side
        os.execve(sys.executable, [sys.executable, "-m", "memevo.cli", "setup"], env)
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


PERMISSION_QUESTION = "memory_propose (your assistant proposes a memory) run without asking"
RESOLVE_RULE = "mcp__memory-self-evolution__memory_resolve"
PROPOSE_RULE = "mcp__memory-self-evolution__memory_propose"
LEARNING_QUESTION = "Learning [1 auto]"

# what the answers Enter (auto), "2", the example base URL and model leave in config.json
DIRECT_WITH_AN_API = {
    "learning": "auto",
    "confirm": False,
    "sideApiBase": "https://api.example.com/v1",
    "sideApiModel": "gpt-4o-mini",
}


def _config(env: dict[str, str]) -> object:
    return json.loads((Path(env["MEMEVO_HOME"]) / "config.json").read_text(encoding="utf-8"))


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return dict(os.environ) | {"PATH": "/usr/bin:/bin", "MEMEVO_LANG": "en", "TERM": "dumb"}


@pytest.mark.keyring  # stores the key it is given in the test keyring
@pytest.mark.usefixtures("clean_keyring")  # unlocked, no key before, and none left after a failure
def test_questions_answers_and_a_hidden_key(env: dict[str, str]) -> None:
    from memevo.core.privacy import side_api_key as secrets

    key = "sk-typed-at-a-terminal-0123456789"
    code, screen = _run_on_a_terminal(
        [
            (LEARNING_QUESTION, ""),
            ("ask me in a native dialog", "2"),
            ("base URL", "https://api.example.com/v1"),
            ("model:", "gpt-4o-mini"),
            ("API key", key),
            (PERMISSION_QUESTION, "y"),
        ],
        env,
    )
    assert code == 0, screen[-3000:]
    assert _config(env) == DIRECT_WITH_AN_API
    assert "Optional: a side API" in screen  # for auto it is optional, and said so
    assert key not in screen  # read without echo
    for root in (Path(env["HOME"]), Path(env["MEMEVO_HOME"])):
        for path in root.rglob("*"):
            if path.is_file():
                assert key.encode() not in path.read_bytes(), path
    claude = json.loads((Path(env["HOME"]) / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert claude["permissions"]["allow"] == ["Bash(ls:*)", PROPOSE_RULE]  # never memory_resolve
    # "in the OS keyring" only when the key reads back from it (setup had said so for a keyring
    # that kept nothing); under tests/setup-and-test.sh the test keyring must be the one used,
    # not the else branch passing quietly.
    if os.environ.get("MEMEVO_TEST_KEYRING") or "The side API key is in the OS keyring." in screen:
        assert "The side API key is in the OS keyring." in screen, screen[-3000:]
        assert secrets.get_api_key() == key
    else:
        assert "Set it later with `memevo secret set`" in screen


def test_enter_takes_the_defaults_and_skip_skips(env: dict[str, str]) -> None:
    code, screen = _run_on_a_terminal(
        [
            (LEARNING_QUESTION, ""),
            ("ask me in a native dialog", ""),
            ("base URL", "skip"),
            (PERMISSION_QUESTION, ""),
        ],
        env,
    )
    assert code == 0, screen[-3000:]
    assert _config(env) == {"learning": "auto", "confirm": True}
    claude = json.loads((Path(env["HOME"]) / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert "memory-self-evolution__" not in json.dumps(claude)  # no rule of ours without a yes
    assert "Restart Cursor, CodeBuddy, WorkBuddy so they load memevo's MCP server" in screen
    no_claude = "Claude Code: hooks registered; the MCP server needs one command"  # no claude binary here
    assert no_claude in screen
    # the command to run by hand: once, under Claude Code's line that says why
    assert screen.count(" mcp add --scope user memory-self-evolution ") == 1, screen[-3000:]


def test_a_wrong_answer_is_asked_again_at_once(env: dict[str, str]) -> None:
    """An invalid choice was silently taken as the default, and a base URL that is not one was
    accepted, the model and key asked, and setup then failed at the end having registered nothing."""
    code, screen = _run_on_a_terminal(
        [
            (LEARNING_QUESTION, "sometimes"),
            ("answer 1, 2, 3 or 4", "auto"),
            ("ask me in a native dialog", "3"),
            ("answer 1 or 2", "2"),
            ("base URL", "notaurl"),
            ("must be an http", "https://api.example.com/v1"),
            ("model:", "gpt-4o-mini"),
            ("API key", "skip"),
            (PERMISSION_QUESTION, ""),
        ],
        env,
    )
    assert code == 0, screen[-3000:]
    assert _config(env) == DIRECT_WITH_AN_API


def _settings(env: dict[str, str]) -> dict[str, object]:
    return json.loads((Path(env["HOME"]) / ".claude" / "settings.json").read_text(encoding="utf-8"))


def test_client_mode_asks_no_side_api(env: dict[str, str]) -> None:
    """Only the assistant's model learns: the side API is not asked (and an existing one stays)."""
    config = Path(env["MEMEVO_HOME"]) / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"sideApiBase": "https://api.example.com/v1"}), encoding="utf-8")
    code, screen = _run_on_a_terminal(
        [(LEARNING_QUESTION, "3"), ("ask me in a native dialog", ""), (PERMISSION_QUESTION, "yes")], env
    )
    assert code == 0, screen[-3000:]
    assert "base URL" not in screen and "API key" not in screen
    assert _config(env) == {
        "sideApiBase": "https://api.example.com/v1",
        "learning": "client",
        "confirm": True,
    }
    allow = _settings(env)["permissions"]["allow"]  # type: ignore[index]
    assert allow == ["Bash(ls:*)", PROPOSE_RULE]


def test_off_asks_neither_the_confirmation_nor_the_side_api(env: dict[str, str]) -> None:
    code, screen = _run_on_a_terminal([(LEARNING_QUESTION, "off"), (PERMISSION_QUESTION, "n")], env)
    assert code == 0, screen[-3000:]
    assert "native dialog" not in screen and "base URL" not in screen
    assert _config(env) == {"learning": "off"}  # the confirmation mode left as it was (the default)


def test_side_without_an_api_says_nothing_is_learned(env: dict[str, str]) -> None:
    code, screen = _run_on_a_terminal(
        [
            (LEARNING_QUESTION, "2"),
            ("ask me in a native dialog", "1"),
            ("base URL", ""),
            (PERMISSION_QUESTION, ""),
        ],
        env,
    )
    assert code == 0, screen[-3000:]
    assert "without it nothing is learned" in screen  # said before the question
    assert "No side API: nothing is learned until you configure one" in screen  # and after the skip
    assert "model:" not in screen
    assert _config(env) == {"learning": "side", "confirm": True}


def test_choosing_how_to_learn_ends_the_node_tools_blocking_mode(env: dict[str, str]) -> None:
    """An import from the Node tool keeps sideJudge=false ("learning stays off until setup"):
    without a side API, auto would still be off after setup had said the assistant's model learns."""
    config = Path(env["MEMEVO_HOME"]) / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"sideJudge": False, "decayDays": 60}), encoding="utf-8")
    code, screen = _run_on_a_terminal(
        [
            (LEARNING_QUESTION, ""),
            ("ask me in a native dialog", ""),
            ("base URL", "skip"),
            (PERMISSION_QUESTION, ""),
        ],
        env,
    )
    assert code == 0, screen[-3000:]
    assert _config(env) == {"decayDays": 60, "learning": "auto", "confirm": True}


def test_no_terminal_asks_nothing_and_keeps_every_choice(env: dict[str, str]) -> None:
    import subprocess

    config = Path(env["MEMEVO_HOME"]) / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"learning": "off", "sideJudge": False}), encoding="utf-8")
    settings = Path(env["HOME"]) / ".claude" / "settings.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["permissions"]["allow"].append(RESOLVE_RULE)  # an older yes: only memory_resolve
    settings.write_text(json.dumps(data), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "memevo.cli", "setup"],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert "Learning [" not in done.stdout
    assert _config(env) == {"learning": "off", "sideJudge": False}
    assert _settings(env)["permissions"]["allow"] == ["Bash(ls:*)", RESOLVE_RULE]  # type: ignore[index]


def test_the_question_offers_cores_modes_in_cores_order_each_worded_once() -> None:
    from memevo.core import config
    from memevo.installer import prompts

    assert list(prompts.MODE_WORDS) == list(config.LEARNING_MODES)
