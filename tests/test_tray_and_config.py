"""The minimal tray host, the registration snippet, and the protocol both sides share."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import servicerun
from deadlines import CALL_S, HANG_S
from memevo.installer.clients import CLIENTS, get, snippet
from memevo.installer.hook_command import hook_script, interpreter

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.usefixtures("provisioned_model")
def test_tray_hosts_the_service_offscreen(data_dir: Path, run_cli) -> None:
    assert run_cli("rule", "add", "回答问题时一律使用中文").returncode == 0
    assert run_cli("project", "add", "支付页新流程的灰度开关是 pay_new_flow_v2").returncode == 0
    result = _self_test()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "model ready: True" in result.stdout and "panel shows 2 memories" in result.stdout
    assert not (data_dir / "memevo.sock").exists()  # removed on a clean quit


def _self_test() -> subprocess.CompletedProcess[str]:
    env = os.environ | {"QT_QPA_PLATFORM": "offscreen"}
    command = [sys.executable, "-m", "memevo.cli", "tray", "--self-test"]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=HANG_S)


def test_self_test_fails_with_the_reason(data_dir: Path, tmp_path: Path, run_cli) -> None:
    # a model folder that has gone since it was set (setting one now checks it is there)
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "config.json").write_text(
        json.dumps({"model": str(tmp_path / "no-such-model")}), encoding="utf-8"
    )
    result = _self_test()
    assert result.returncode == 1 and "self-test FAILED: the model is not ready" in result.stderr
    assert "no-such-model is not a sentence-transformers folder" in result.stderr


def test_a_second_start_brings_the_first_to_front(data_dir: Path) -> None:
    from memevo.core.service.client import call

    env = os.environ | {"QT_QPA_PLATFORM": "offscreen"}
    first = subprocess.Popen([sys.executable, "-m", "memevo.cli", "tray"], env=env, stderr=subprocess.DEVNULL)
    try:
        servicerun.wait_for(data_dir, timeout=HANG_S, model=False)
        second = subprocess.run(
            [sys.executable, "-m", "memevo.cli", "tray"],
            capture_output=True,
            text=True,
            env=env,
            timeout=HANG_S,
        )
        assert second.returncode == 0 and "panel is in front" in second.stdout, second.stderr
        call("shutdown", {}, timeout_s=CALL_S)
        assert first.wait(timeout=HANG_S) == 0
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_print_config_gives_absolute_real_paths(client: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "memevo.cli", "hooks", "print-config", client],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert result.returncode == 0, result.stderr
    config = json.loads(result.stdout)
    commands = []
    if client == "cursor":
        assert config["version"] == 1
        for event, entries in config["hooks"].items():
            assert event in get("cursor").events
            commands += [(event, e["command"], e["timeout"]) for e in entries]
    else:
        for event, groups in config["hooks"].items():
            assert event in get(client).events
            commands += [(event, h["command"], h["timeout"]) for g in groups for h in g["hooks"]]
    # session start, prompt, stop; and a tool call about to run where the client has the hook
    assert len(commands) == {"claude": 4, "cursor": 5, "codebuddy": 4}.get(client, 3)
    for event, command, timeout in commands:
        # the test's data folder is not the default one: each hook names it (tests/test_moved_home.py)
        moved = os.environ["MEMEVO_HOME"]
        assert command == f'"{interpreter()}" -I -S "{hook_script()}" --home "{moved}" {client} {event}'
        assert "/shims/" not in command and Path(interpreter()).is_absolute()
        # WorkBuddy blocks on a timeout; CodeBuddy's Stop continues in a loop on one (30 s)
        allowed = {"workbuddy": (30,), "codebuddy": (5, 10, 30)}.get(client, (5, 10, 20))
        assert timeout in allowed, (event, timeout)
    prompt_timeout = {"cursor": 5, "workbuddy": 30}.get(client, 10)
    assert any(t == prompt_timeout for e, _, t in commands if get(client).events[e] == "prompt")


def test_the_registered_command_runs(data_dir: Path) -> None:
    entry = snippet("claude")["hooks"]["Stop"][0]["hooks"][0]["command"]
    result = subprocess.run(
        entry, shell=True, input=b'{"session_id": "s"}', capture_output=True, timeout=HANG_S
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_hooks_import_only_the_standard_library() -> None:
    probe = (
        "import sys; sys.argv=['x', 'claude', 'Stop']; sys.path.insert(0, {!r}); "
        "import hookio, clients, clients.claude, clients.cursor, clients.codebuddy, clients.workbuddy; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('memevo', 'duckdb', 'numpy', 'torch')))"
    ).format(str(REPO / "hooks"))
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe], capture_output=True, text=True, timeout=HANG_S
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
