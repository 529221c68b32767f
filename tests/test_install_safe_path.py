"""The command lines memevo registers run memevo, whatever folder they start in.

Clients start MCP servers and hooks in the user's project; with a plain `python -m memevo…` a
`memevo/` package or `memevo.py` there is imported instead of memevo (its code runs inside the
MCP server or the service, or a plain module breaks the server). Registered and spawned
command lines carry `-P`. Entries an older version wrote without it are still ours: setup and
the tray's repair rewrite them in place, and uninstall removes them."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import servicerun
from deadlines import HANG_S
from mcpwire import INIT
from memevo.installer import autostart, entries, hook_command, jsonfile, setup_engine
from memevo.installer.clients import claude, client_status, needs_repair, register_client
from test_claude_cli import CLAUDE

OLD_ARGS = ["-m", "memevo.cli", "mcp", "--client"]  # what versions before -P registered


def run_memevo(*args: str, path: str = "/usr/bin:/bin") -> subprocess.CompletedProcess[str]:
    env = os.environ | {"PATH": path, "MEMEVO_LANG": "en", "MEMEVO_HEADLESS": "1"}
    for variable in ("MEMEVO_CLAUDE_BIN", "MEMORY_CLAUDE_BIN"):
        env.pop(variable, None)
    return subprocess.run(
        [sys.executable, "-P", "-m", "memevo.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
        stdin=subprocess.DEVNULL,
    )


def hostile_project(tmp_path: Path, kind: str) -> tuple[Path, Path]:
    """A project folder whose `memevo` (a package, or a plain module) writes `marker` when imported."""
    project = tmp_path / f"project-{kind}"
    marker = tmp_path / f"the-project-ran-{kind}"
    source = project / ("memevo/__init__.py" if kind == "package" else "memevo.py")
    source.parent.mkdir(parents=True)
    source.write_text(f"open({str(marker)!r}, 'w').write('the project ran')\n", encoding="utf-8")
    return project, marker


def installed_for_cursor() -> dict[str, Any]:
    """`memevo setup --only cursor` in the test's HOME; Cursor's two files as it wrote them."""
    home = Path(os.environ["HOME"])
    (home / ".cursor").mkdir()
    result = run_memevo("setup", "--only", "cursor")
    assert result.returncode == 0, result.stdout + result.stderr
    return {
        "mcp": json.loads((home / ".cursor" / "mcp.json").read_text(encoding="utf-8")),
        "hooks": json.loads((home / ".cursor" / "hooks.json").read_text(encoding="utf-8")),
    }


def service_started_from(project: Path, data_dir: Path, marker: Path) -> None:
    """The service a process in `project` started answers, and it is memevo's: then stop it."""
    deadline = time.monotonic() + 120
    status = None
    while status is None and time.monotonic() < deadline:
        assert not marker.exists(), f"the service imported {project}'s memevo"
        status = servicerun.ping(data_dir)
        time.sleep(0.25)
    log = data_dir / "logs" / "service-start.log"
    assert status is not None, log.read_text(encoding="utf-8") if log.exists() else "no service-start.log"
    servicerun.stop(data_dir, pid=status["pid"])
    assert not marker.exists()


# -- a real MCP server and a real hook, started in a hostile project -----------------------------------
@pytest.mark.parametrize("kind", ["package", "module"])
def test_the_registered_mcp_server_ignores_the_projects_memevo(
    kind: str, tmp_path: Path, data_dir: Path
) -> None:
    project, marker = hostile_project(tmp_path, kind)
    entry = installed_for_cursor()["mcp"]["mcpServers"][entries.SERVER_NAME]
    server = subprocess.Popen(  # as Cursor does: the entry's command and args, in the project
        [entry["command"], *entry["args"]],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ | {"MEMEVO_HEADLESS": "1"},
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(json.dumps(INIT).encode() + b"\n")
        server.stdin.flush()
        ready = select.select([server.stdout], [], [], 60)[0]
        answer = json.loads(server.stdout.readline() or b"null") if ready else None
        if answer is not None:
            assert not marker.exists(), (
                "the project's memevo ran (in the MCP server or the service it started)"
            )
            # the server starts the service (core/service/spawn.py) from the same folder
            service_started_from(project, data_dir, marker)
    finally:
        server.kill()
        _, stderr = server.communicate()
    assert answer is not None and answer.get("id") == "init", stderr.decode(errors="replace")
    assert answer["result"]["serverInfo"]["name"] == entries.SERVER_NAME
    assert not marker.exists()


@pytest.mark.parametrize("kind", ["package", "module"])
def test_a_hook_in_the_project_starts_memevos_service(kind: str, tmp_path: Path, data_dir: Path) -> None:
    project, marker = hostile_project(tmp_path, kind)
    command = installed_for_cursor()["hooks"]["hooks"]["sessionStart"][0]["command"]
    payload = {"conversation_id": "c1", "hook_event_name": "sessionStart", "workspace_roots": [str(project)]}
    result = subprocess.run(  # no service yet: the hook (hooks/hookio.py) starts one
        command,
        shell=True,
        cwd=project,
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=os.environ | {"MEMEVO_HEADLESS": "1"},
        timeout=HANG_S,
    )
    assert result.returncode == 0, result.stderr
    service_started_from(project, data_dir, marker)


# -- entries an older version wrote, without -P ----------------------------------------------------------
def _old_entry(client: str) -> dict[str, Any]:
    return {
        "type": "stdio",
        "command": hook_command.interpreter(),
        "args": [*OLD_ARGS, client],
        "description": "memevo: long-term memory (memory-self-evolution)",
        "env": {"MEMEVO_LANG": "zh"},  # the user's addition to our entry: kept
    }


def _seed_old_mcp_files(home: Path) -> dict[Path, str]:
    files = {
        home / ".cursor" / "mcp.json": "cursor",
        home / ".codebuddy" / "mcp.json": "codebuddy",
        home / ".codebuddy" / ".mcp.json": "codebuddy",
        home / ".workbuddy" / "mcp.json": "workbuddy",
    }
    for path, client in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        servers = {
            "first": {"command": "/usr/local/bin/first-mcp"},
            entries.SERVER_NAME: _old_entry(client),
            "last": {"command": "/usr/local/bin/last-mcp"},
        }
        path.write_text(json.dumps({"mcpServers": servers}, indent=2), encoding="utf-8")
    return files


def _servers(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8"))["mcpServers"])


def test_setup_upgrades_an_old_mcp_entry_in_place_and_uninstall_removes_it(data_dir: Path) -> None:
    home = Path(os.environ["HOME"])
    files = _seed_old_mcp_files(home)
    for client in ("cursor", "codebuddy", "workbuddy"):
        report = client_status(client)
        assert {v for k, v in report.items() if k.startswith("mcp:")} == {"stale"}, report
        assert needs_repair(report)  # what the tray's watcher acts on

    first = run_memevo("setup", "--no-input")
    assert first.returncode == 0, first.stdout + first.stderr
    for path, client in files.items():
        servers = _servers(path)
        assert list(servers) == ["first", entries.SERVER_NAME, "last"], path  # in place, once
        # the user's variable stays, and the test's moved data folder is carried (tests/test_moved_home.py)
        env = {"MEMEVO_LANG": "zh", "MEMEVO_HOME": str(data_dir)}
        assert servers[entries.SERVER_NAME] == {**entries.mcp_entry(client), "env": env}
        assert servers[entries.SERVER_NAME]["args"] == ["-P", *OLD_ARGS, client]
    for client in ("cursor", "codebuddy", "workbuddy"):
        assert not needs_repair(client_status(client))
    written = {path: path.read_bytes() for path in files}
    assert run_memevo("setup", "--no-input").returncode == 0
    assert {path: path.read_bytes() for path in files} == written  # nothing left to change

    for path in files:  # uninstall removes an old entry as well as a new one
        servers = _servers(path)
        servers[entries.SERVER_NAME]["args"] = [*OLD_ARGS, "cursor"]
        path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    gone = run_memevo("uninstall")
    assert gone.returncode == 0, gone.stdout + gone.stderr
    for path in files:
        assert list(_servers(path)) == ["first", "last"], path


def test_the_watchers_repair_upgrades_an_old_entry(data_dir: Path) -> None:
    path = Path(os.environ["HOME"]) / ".cursor" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": {entries.SERVER_NAME: _old_entry("cursor")}}), encoding="utf-8")
    outcome = register_client("cursor", jsonfile.Writer())  # what the watcher runs on a stale report
    assert outcome.changed and not outcome.problems
    assert _servers(path) == {
        entries.SERVER_NAME: {
            **entries.mcp_entry("cursor"),
            "env": {"MEMEVO_LANG": "zh", "MEMEVO_HOME": str(data_dir)},
        }
    }
    assert client_status("cursor")["mcp:mcp.json"] == "ok"


@pytest.mark.skipif(CLAUDE is None, reason="the Claude Code CLI is not installed")
def test_setup_replaces_an_old_claude_registration(data_dir: Path) -> None:
    assert CLAUDE is not None
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir()
    path = f"{Path(CLAUDE).parent}:/usr/bin:/bin"
    env = os.environ | {"PATH": path, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    old = [hook_command.interpreter(), *OLD_ARGS, "claude"]
    add = [CLAUDE, "mcp", "add", "--scope", "user", entries.SERVER_NAME, "--", *old]
    subprocess.run(add, env=env, check=True, capture_output=True, timeout=HANG_S)
    assert claude.status() == "stale"
    setup = run_memevo("setup", "--only", "claude", path=path)
    assert setup.returncode == 0, setup.stdout + setup.stderr
    servers = json.loads(claude.claude_json().read_text(encoding="utf-8"))["mcpServers"]
    assert [name for name in servers if name == entries.SERVER_NAME] == [entries.SERVER_NAME]
    assert [
        servers[entries.SERVER_NAME]["command"],
        *servers[entries.SERVER_NAME]["args"],
    ] == claude.server_args()
    assert claude.status() == "ok"


def _write_old_autostart(monkeypatch: pytest.MonkeyPatch, platform: str) -> Path:
    """The login entry an older version wrote: the tray started with `-m` and no -P."""
    current = autostart.launch_command
    monkeypatch.setattr(
        autostart, "launch_command", lambda: [hook_command.interpreter(), "-m", "memevo.cli", "tray"]
    )
    path = autostart.enable(platform)
    monkeypatch.setattr(autostart, "launch_command", current)
    return path


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_setup_rewrites_an_old_autostart_entry(monkeypatch: pytest.MonkeyPatch, platform: str) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("APPDATA", raising=False)
    monkeypatch.delattr(sys, "frozen", raising=False)
    monkeypatch.setattr(autostart, "_platform", lambda _=None: platform)
    path = _write_old_autostart(monkeypatch, platform)
    assert b" -P " not in path.read_bytes() and b"<string>-P</string>" not in path.read_bytes()
    assert autostart.status()["stale"] and autostart.status()["ours"]
    said: list[str] = []
    setup_engine._autostart(None, refresh=True, say=said.append)  # a setup or repair that asks nothing
    assert path.read_bytes() == autostart.render(platform)
    assert said == [f"Start at login: updated {path}"]
    assert not autostart.status()["stale"]


def test_an_only_client_setup_leaves_autostart_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setattr(autostart, "_platform", lambda _=None: "linux")
    path = _write_old_autostart(monkeypatch, "linux")
    before = path.read_bytes()
    setup_engine._autostart(None, refresh=False, say=print)
    assert path.read_bytes() == before


def test_an_old_entry_switched_off_at_the_desktop_stays_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rewriting it would drop the user's Hidden=true and start memevo at login again."""
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setattr(autostart, "_platform", lambda _=None: "linux")
    path = _write_old_autostart(monkeypatch, "linux")
    path.write_text(path.read_text(encoding="utf-8") + "Hidden=true\n", encoding="utf-8")
    before = path.read_bytes()
    assert autostart.status()["stale"] and not autostart.status()["enabled"]
    setup_engine._autostart(None, refresh=True, say=print)
    assert path.read_bytes() == before


def test_the_packaged_program_accepts_minus_p() -> None:
    """The frozen program receives these command lines too (packaging/entry.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "memevo_frozen_entry", Path(__file__).resolve().parents[1] / "packaging" / "entry.py"
    )
    assert spec is not None and spec.loader is not None
    entry = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(entry)
    assert "-P" in entry.PYTHON_FLAGS
