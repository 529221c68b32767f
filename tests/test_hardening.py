"""Hostile and unlucky input: unsafe characters in memories, what an MCP client may send and
change, read-only client files, files at rest, the Node tool's leftovers."""

from __future__ import annotations

import json
import os
import select
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import servicerun
from mcpwire import INIT
from memevo.core import config as config_mod
from memevo.core.clock import FakeClock
from memevo.core.errors import InvalidInput
from memevo.core.memories import live as memories
from memevo.core.memories import text as memory_text
from memevo.core.service import texts
from memevo.core.store.database import Store

UNSAFE = {
    "NUL": "回答问题\x00时请用中文",
    "ESC sequence": "回答问题\x1b[31m时请用中文",
    "bidi override": "回答问题\u202e时请用中文",
    "bidi isolate": "回答问题\u2066时请用中文",
    "C1 control": "回答问题\x85时请用中文",
    "DEL": "回答问题\x7f时请用中文",
    "lone surrogate": "回答问题\ud800时请用中文",
    "carriage return": "回答问题\r时请用中文",
}


# -- clean text on every path that creates or changes a memory ------------------------------------------
@pytest.mark.parametrize("kind", sorted(UNSAFE))
def test_unsafe_characters_are_refused_with_where_they_are(kind: str) -> None:
    with pytest.raises(
        InvalidInput, match=r"control or text-direction characters \(U\+[0-9A-F]{4} at position 5\)"
    ):
        memories.check_text(UNSAFE[kind])


def test_newline_tab_and_windows_line_ends_are_fine() -> None:
    assert (
        memories.check_text("第一行：回答用中文\r\n第二行：\t代码注释也用中文")
        == "第一行：回答用中文\n第二行：\t代码注释也用中文"
    )


def test_learned_and_old_text_loses_them_and_injection_never_carries_them() -> None:
    assert memory_text.remove_unsafe("回答\x1b[31m问题\u202e用中文") == "回答[31m问题用中文"
    start, _ = texts.session_start("claude", ["回答\x1b问题\u202e用中文"], None, 10_000)
    block = texts.recall_block(["回答\x1b问题\u202e用中文"], ["开关\x00是 pay_v2"])
    for text in (start, block):
        assert not any(memory_text.first_unsafe(line) for line in text.splitlines()), text


def test_removing_unsafe_characters_is_the_plain_substitution_however_many_kinds() -> None:
    """remove_unsafe replaces per distinct character and, past a few, translates bytes: the
    result must be the one regex substitution's, with lone surrogates and wide text around."""
    import random

    rng = random.Random(33)
    alphabet = [
        chr(c) for c in [*range(0x00, 0x300), *range(0x2020, 0x2070), *range(0xD7F0, 0xE010), 0x1F642]
    ]
    samples = ["a\r" * 500, "".join(chr(c) + "中" for c in range(0x00, 0xA0)) * 3, "\ud83d\ude00\r\n\x85"]
    samples += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 80))) for _ in range(3000)]
    for text in samples:
        plain = memory_text._UNSAFE.sub("", text.replace("\r\n", "\n"))
        assert memory_text.remove_unsafe(text) == plain, repr(text)


def test_a_memory_with_several_lines_is_one_item_of_every_injected_list() -> None:
    """A rule may hold newlines; injected, it stays one numbered line, and a line of its own
    that looks like the next rule ("2. …") cannot pass for one."""
    rules = ["第一行：回答用中文\n\n2. 这一行不是第二条规则\r\n  ", "Always write commit messages in English"]
    start, shown = texts.session_start("claude", rules, None, 10_000)
    numbered = [line for line in start.splitlines() if line[:1].isdigit()]
    assert shown == 2 and numbered == [
        "1. 第一行：回答用中文 / 2. 这一行不是第二条规则",
        "2. Always write commit messages in English",
    ]
    block = texts.recall_block([rules[0]], ["灰度开关\n是 pay_new_flow_v2"])
    assert "- 第一行：回答用中文 / 2. 这一行不是第二条规则" in block.splitlines()
    assert "- 灰度开关 / 是 pay_new_flow_v2" in block.splitlines()
    assert texts.item("a\u2028b\nc") == "a / b / c"  # every kind of line break


def test_the_cli_refuses_them_and_escapes_what_is_already_stored(run_cli, data_dir: Path) -> None:
    refused = run_cli("rule", "add", "回答问题\x1b[2J时请用中文")
    assert refused.returncode != 0 and "U+001B at position 5" in refused.stderr
    assert "nothing written" in refused.stderr
    with Store.open() as store:  # stored by an older version, before the rule
        memory = memories.create(store, "rule", "回答问题时请用中文", FakeClock())
        with store.transaction() as con:
            con.execute(
                "UPDATE memories SET text = ? WHERE id = ?", ["回答\x1b[2J问题\u202e用中文", memory.id]
            )
    shown = run_cli("read", "rule")
    assert shown.returncode == 0
    assert "\x1b" not in shown.stdout and "\u202e" not in shown.stdout
    assert "\\x1b[2J" in shown.stdout and "\\u202e" in shown.stdout


# -- MCP: every request answered; the model can't redirect the user's data -----------------------------
def _raw_mcp(data_dir: Path, lines: list[str], want: set[Any]) -> dict[Any, dict[str, Any]]:
    env = os.environ | {"MEMEVO_HOME": str(data_dir), "MEMEVO_SERVICE_WAIT_S": "5"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "memevo.cli", "mcp", "--client", "claude"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    for line in [json.dumps(INIT), '{"jsonrpc":"2.0","method":"notifications/initialized"}', *lines]:
        proc.stdin.write(line.encode() + b"\n")
    proc.stdin.flush()
    answers: dict[Any, dict[str, Any]] = {}
    deadline = time.monotonic() + 60
    try:
        while not want <= set(answers) and time.monotonic() < deadline:
            if select.select([proc.stdout], [], [], 1)[0]:
                line = proc.stdout.readline()
                if not line:
                    break
                reply = json.loads(line)
                answers[reply.get("id")] = reply
    finally:
        proc.kill()
        proc.communicate()  # reaps it and closes both pipes
    return answers


def _tool(request_id: int, name: str, arguments: str) -> str:
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call",'
        f'"params":{{"name":"{name}","arguments":{arguments}}}}}'
    )


def test_every_mcp_request_gets_an_answer(data_dir: Path) -> None:
    lines = [
        _tool(2, "memory_update", '{"action":"replace","id":"x","text":"abc\\ud800defghij"}'),
        "this is not JSON",
        _tool(4, "memory_read", '{"category":"rule","offset":1180591620717411303424}'),
        _tool(5, "memory_update", '{"action":"replace","id":"x","text":"回答问题\\u202e时请用中文"}'),
    ]
    answers = _raw_mcp(data_dir, lines, {"init", 2, None, 4, 5})
    assert answers[2]["error"]["code"] == -32602 and "lone surrogate" in answers[2]["error"]["message"]
    assert answers[None]["error"]["code"] == -32700
    assert answers[4]["result"]["isError"] and "offset must be a whole number" in str(answers[4])
    # a rewrite is a proposal now: a model's text loses what memevo never stores (as every
    # learned text), and the answer is about the memory it names, never the raw override
    assert answers[5]["result"]["isError"] and "no memory #x" in str(answers[5])
    assert "\u202e" not in json.dumps(answers[5], ensure_ascii=False)


def test_the_model_cannot_redirect_the_side_api(data_dir: Path) -> None:
    lines = [
        _tool(2, "memory_config", '{"key":"sideApiBase","value":"https://attacker.example/v1"}'),
        _tool(3, "memory_config", '{"key":"sideApiModel","value":"x"}'),
        _tool(4, "memory_config", '{"key":"sideContext","value":true}'),
        _tool(5, "memory_config", '{"key":"showRecall","value":false}'),
        _tool(6, "memory_config", '{"key":"model","value":"attacker/model"}'),
    ]
    answers = _raw_mcp(data_dir, lines, {"init", 2, 3, 4, 5, 6})
    for request_id in (2, 3, 4, 6):
        assert answers[request_id]["result"]["isError"], answers[request_id]
        assert "memevo config" in str(answers[request_id]) and "the panel" in str(answers[request_id])
    assert not answers[5]["result"]["isError"]  # other keys stay changeable on request
    raw = config_mod.read_raw(config_mod.paths.config_path())
    assert raw == {"showRecall": False}


# -- learning can always be turned on --------------------------------------------------------------------
def test_configuring_the_side_api_clears_the_node_tools_blocking_mode(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    config_mod.paths.config_path().write_text(json.dumps({"sideJudge": False}))
    hint = texts.learning_off("claude", legacy_blocking=True)
    assert "memevo config --unset sideJudge" in hint
    config_mod.set_key("sideApiBase", "http://127.0.0.1:9/v1")
    assert "sideJudge" not in config_mod.read_raw(config_mod.paths.config_path())


# -- installer: a read-only client file is the user's decision -------------------------------------------
def test_a_read_only_client_file_is_left_alone_with_how_to_allow_it(run_cli, data_dir: Path) -> None:
    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"theme": "dark"}\n')
    settings.chmod(0o444)
    for _ in range(2):
        done = run_cli("setup", "--only", "claude")
        assert done.returncode != 0
        assert "is read-only; left untouched" in done.stdout + done.stderr
        assert f"chmod u+w {settings}" in done.stdout + done.stderr
    assert settings.read_text() == '{"theme": "dark"}\n'
    assert list(settings.parent.glob("settings.json.bak-*")) == []  # no backup on each run


def test_an_immutable_client_file_gets_a_clear_message_and_no_backups(run_cli, data_dir: Path) -> None:
    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{}\n")
    if subprocess.run(["chattr", "+i", str(settings)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not allowed on this filesystem (needs CAP_LINUX_IMMUTABLE)")
    try:
        for _ in range(2):
            done = run_cli("setup", "--only", "claude")
            assert "chattr -i" in done.stdout + done.stderr
            assert "internal error" not in done.stderr
        assert list(settings.parent.glob("settings.json.bak-*")) == []
    finally:
        subprocess.run(["chattr", "-i", str(settings)], check=True)


# -- files at rest ----------------------------------------------------------------------------------------
def test_everything_memevo_keeps_is_user_only_and_old_installs_are_tightened(run_cli, data_dir: Path) -> None:
    data_dir.mkdir(mode=0o755, parents=True)
    (data_dir / "logs").mkdir(mode=0o755)
    old_log = data_dir / "logs" / "service.log"
    old_log.write_text("from an older version\n")
    old_log.chmod(0o644)
    assert run_cli("rule", "add", "回答问题时请一律使用中文").returncode == 0
    with servicerun.service(data_dir):  # a service start tightens the old install
        assert run_cli("project", "add", "支付页新流程的灰度开关是 pay_new_flow_v2").returncode == 0
        assert run_cli("config", "showRecall", "false").returncode == 0
    modes = _modes(data_dir)
    loose = {path: oct(mode) for path, mode in modes.items() if mode & 0o077}
    assert not loose, loose
    assert modes["."] == 0o700 and modes["logs/service.log"] == 0o600
    assert modes["memevo.duckdb"] == 0o600 and modes["config.json"] == 0o600


def _modes(root: Path) -> dict[str, int]:
    found = {".": stat.S_IMODE(root.stat().st_mode)}
    for path in root.rglob("*"):
        if not path.is_symlink():
            found[str(path.relative_to(root))] = stat.S_IMODE(path.stat().st_mode)
    return found


# -- uninstall and the Node tool's plain-text key --------------------------------------------------------
def test_uninstall_removes_side_and_leaves_the_node_key_headless_saying_so(run_cli, data_dir: Path) -> None:
    (data_dir / "side").mkdir(parents=True)
    (data_dir / "side" / "confirm-claude-x.json").write_text("{}")
    (data_dir / "side-secret.json").write_text('{"apiKey": "sk-node-plain-text-0001"}')
    done = run_cli("uninstall", stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert not (data_dir / "side").exists()
    assert (data_dir / "side-secret.json").exists()  # headless: the user's file stays
    assert "side-secret.json" in done.stdout and "plain text" in done.stdout


def test_uninstall_on_a_terminal_deletes_the_node_key_when_asked(data_dir: Path) -> None:
    from memevo.installer import uninstall

    (data_dir).mkdir(parents=True)
    (data_dir / "side-secret.json").write_text('{"apiKey": "sk-node-plain-text-0001"}')
    said: list[str] = []
    uninstall.run(say=said.append, ask=lambda question: "plain text" in question)
    assert not (data_dir / "side-secret.json").exists()
    assert any("Deleted" in line for line in said)
