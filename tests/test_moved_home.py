"""A moved data folder (MEMEVO_HOME) reaches every hook and MCP server setup registers. Clients
start them with their own environment, without MEMEVO_HOME: each entry names the folder itself —
`--home FOLDER` on the hook's command line, `env` in the MCP entry (`claude mcp add -e`). Here setup
runs with a moved folder whose path holds a space and Chinese characters, then every entry runs
exactly as its client runs it (the hook command through the shell, the MCP server from the entry's
command, args and env) in an environment without MEMEVO_HOME, and what it writes lands in the moved
folder, never in the default one under HOME. The default folder adds nothing to any entry (the
install goldens hold those bytes); another folder than this setup's reads as stale and a repair
rewrites it; uninstall finds our entries whatever folder they name."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deadlines import HANG_S
from hookrun import FakeService
from memevo.installer import entries, hook_command, jsonfile
from memevo.installer.clients import (
    claude,
    client_status,
    get,
    needs_repair,
    register_client,
    snippet,
    unregister_client,
)

MOVED = "my 记忆 data"  # a space and Chinese characters; short: a Unix socket path has 108 bytes
JSON_CLIENTS = {
    "cursor": ".cursor/mcp.json",
    "codebuddy": ".codebuddy/mcp.json",
    "workbuddy": ".workbuddy/mcp.json",
}
HOOK_FILES = {
    "claude": ".claude/settings.json",
    "cursor": ".cursor/hooks.json",
    "codebuddy": ".codebuddy/settings.json",
    "workbuddy": ".workbuddy/settings.json",
}
# A tool call: the hook only reads, never starts a service, and logs why it answered alone.
ACTION = {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}}


@pytest.fixture(autouse=True)
def no_strays(home: Path) -> Iterator[None]:
    """A hook or MCP server that missed the moved folder would start a service in the default
    one (conftest stops only those of the test's MEMEVO_HOME): a failing test leaves none behind."""
    yield
    proc = Path("/proc")
    wanted = f"HOME={home}".encode()
    for entry in proc.iterdir() if proc.is_dir() else ():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if b"memevo" in (entry / "cmdline").read_bytes() and wanted in (
                entry / "environ"
            ).read_bytes().split(b"\0"):
                os.kill(int(entry.name), signal.SIGTERM)
        except (OSError, ValueError):
            continue


def _default(home: Path) -> Path:
    return home / ".memory-self-evolution"


def client_env(home: Path, **extra: str) -> dict[str, str]:
    """What a client started from the desktop gives its hooks and MCP servers: no MEMEVO_HOME."""
    env = {k: v for k, v in os.environ.items() if k != "MEMEVO_HOME"}
    return env | {"HOME": str(home), "PATH": "/usr/bin:/bin", "MEMEVO_HEADLESS": "1", **extra}


def memevo(home: Path, memevo_home: str | None, *args: str, path: str = "/usr/bin:/bin") -> str:
    """`memevo ARGS` with MEMEVO_HOME set to `memevo_home` (None: unset), as a user runs it."""
    env = client_env(home, PATH=path, MEMEVO_LANG="en")
    if memevo_home is not None:
        env["MEMEVO_HOME"] = memevo_home
    for variable in ("MEMEVO_CLAUDE_BIN", "MEMORY_CLAUDE_BIN"):
        env.pop(variable, None)
    done = subprocess.run(
        [sys.executable, "-P", "-m", "memevo.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def our_commands(home: Path, client: str) -> dict[str, str]:
    """Event -> our hook's command, exactly as written in the client's file."""
    hooks = json.loads((home / HOOK_FILES[client]).read_text(encoding="utf-8")).get("hooks", {})
    found = {}
    for event, items in hooks.items():
        handlers = items if client == "cursor" else [h for group in items for h in group["hooks"]]
        for handler in handlers:
            if entries.is_ours(handler.get("command")):
                found[event] = handler["command"]
    return found


def run_through_shell(command: str, home: Path, payload: dict[str, Any]) -> None:
    """As Claude Code, CodeBuddy, WorkBuddy and Cursor run a hook on Linux and macOS: `sh -c`."""
    done = subprocess.run(
        command,
        shell=True,
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=client_env(home),
        timeout=HANG_S,
    )
    assert done.returncode == 0 and not done.stderr, (command, done.stderr)


def hooks_log(folder: Path) -> str:
    log = folder / "logs" / "hooks.log"
    return log.read_text(encoding="utf-8") if log.exists() else ""


# -- the hooks --------------------------------------------------------------------------------------
def test_every_registered_hook_uses_the_moved_folder(home: Path, tmp_path: Path) -> None:
    moved = tmp_path / MOVED
    memevo(home, str(moved), "setup", "--no-input")
    service = FakeService(moved)  # in the moved folder only: a hook that looks elsewhere finds none
    try:
        ran = 0
        for client in HOOK_FILES:
            commands = our_commands(home, client)
            assert sorted(commands) == sorted(get(client).events), client
            for event, command in commands.items():
                assert f' --home "{moved}" {client} {event}' in command
                run_through_shell(command, home, {"session_id": "s", "prompt": "hi", "cwd": str(tmp_path)})
                ran += 1
        assert service.relayed == ran == 16  # every hook reached the service in the moved folder
    finally:
        service.close()
    # no service now: a tool call's hook answers alone and says why in the moved folder's log
    run_through_shell(our_commands(home, "claude")["PreToolUse"], home, ACTION)
    assert "service unavailable" in hooks_log(moved)
    assert not _default(home).exists()


def test_a_service_the_hook_starts_inherits_the_folder(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no service, a prompt's hook starts one (`<its interpreter> -P -m memevo.cli
    serve`): that process must get the folder too. The interpreter here is a stand-in that runs
    the hook with the real one and, started as the service, only writes down its MEMEVO_HOME."""
    moved, seen = tmp_path / MOVED, tmp_path / "seen"
    runner = tmp_path / "bin" / "python3"
    runner.parent.mkdir()
    runner.write_text(
        "#!/bin/bash\n"
        'case " $* " in *" -m memevo.cli "*)\n'
        # written aside, then moved: the test, polling, never reads the file half-written
        f'  printf %s "${{MEMEVO_HOME-unset}}" > {shlex.quote(str(seen))}.part'
        f" && mv {shlex.quote(str(seen))}.part {shlex.quote(str(seen))}; exit 0 ;;\n"
        "esac\n"
        f'exec -a "$0" {shlex.quote(sys.executable)} "$@"\n',
        encoding="utf-8",
    )
    runner.chmod(0o700)
    monkeypatch.setattr(hook_command, "hook_runner", lambda: str(runner))
    monkeypatch.setenv("MEMEVO_HOME", str(moved))
    run_through_shell(
        hook_command.command("claude", "UserPromptSubmit"), home, {"session_id": "s", "prompt": "hi"}
    )
    deadline = time.monotonic() + HANG_S
    while not seen.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert seen.read_text(encoding="utf-8") == str(moved)
    assert "started the service" in hooks_log(moved)


@pytest.mark.parametrize(
    "name",
    ['it\'s "$HOME" `id`', "back\\\\slash\\", "空 格"],
    ids=["quotes-dollar-backtick", "backslashes", "chinese-space"],
)
def test_a_folder_name_the_shell_would_expand_stays_literal(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    moved = tmp_path / name
    monkeypatch.setenv("MEMEVO_HOME", str(moved))
    assert register_client("claude", jsonfile.Writer()).hooks_ok
    command = our_commands(home, "claude")["PreToolUse"]
    run_through_shell(command, home, ACTION)
    assert "service unavailable" in hooks_log(moved), command
    assert not _default(home).exists()


def test_the_powershell_form_quotes_the_folder_for_powershell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hook_command, "hook_runner", lambda: r"C:\Python312\python.exe")
    monkeypatch.setattr(hook_command, "hook_script", lambda: r"C:\memevo\hooks\memevo_hook.py")
    monkeypatch.setattr(hook_command, "moved_home", lambda: r"D:\我的 $data`s")
    assert get("cursor").hook_command("stop", platform="win32") == (
        r'& "C:\Python312\python.exe" -I -S "C:\memevo\hooks\memevo_hook.py" --home "D:\我的 `$data``s" cursor stop'
    )
    assert get("claude").hook_command("Stop", platform="win32") == (
        r'"C:\Python312\python.exe" -I -S "C:\memevo\hooks\memevo_hook.py" --home '
        r"'D:\我的 $data`s' claude Stop"  # Git Bash: single quotes keep $ and ` literal
    )


def test_the_default_folder_adds_nothing(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = f'"{hook_command.hook_runner()}" -I -S "{hook_command.hook_script()}" claude Stop'
    for value in (None, str(_default(home)), "~/.memory-self-evolution"):
        if value is None:
            monkeypatch.delenv("MEMEVO_HOME")
        else:
            monkeypatch.setenv("MEMEVO_HOME", value)
        assert hook_command.moved_home() is None and hook_command.home_env() == {}
        assert get("claude").hook_command("Stop") == plain
        assert "-e" not in claude.add_command()
        data: dict[str, Any] = {}
        entries.set_mcp("cursor", data)
        assert data["mcpServers"][entries.SERVER_NAME] == entries.mcp_entry("cursor")


# -- the MCP servers --------------------------------------------------------------------------------
async def _initialize(command: str, args: list[str], env: dict[str, str]) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command, args=args, env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await asyncio.wait_for(session.initialize(), HANG_S)


def start_as_the_client_does(entry: dict[str, Any], home: Path, folders: list[Path]) -> None:
    """The entry's command and args, its env over the client's own (which has no MEMEVO_HOME).
    A service start is held back in every folder (its spawn guard is fresh): the server would
    otherwise start one, with the model, in whichever folder it uses."""
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "service.spawned").write_text("test", encoding="utf-8")
    env = client_env(home) | dict(entry.get("env") or {})
    asyncio.run(_initialize(entry["command"], list(entry["args"]), env))


def kept_answers(folder: Path) -> list[str]:
    """The MCP server's kept first answers (mcpserver/fastpath.py): written in its data folder."""
    return sorted(p.name for p in (folder / "cache").glob("mcp-*.json"))


def test_every_registered_mcp_server_uses_the_moved_folder(home: Path, tmp_path: Path) -> None:
    moved = tmp_path / MOVED
    memevo(home, str(moved), "setup", "--no-input")
    started = []
    for client, relative in JSON_CLIENTS.items():
        entry = json.loads((home / relative).read_text(encoding="utf-8"))["mcpServers"][entries.SERVER_NAME]
        assert entry["env"] == {"MEMEVO_HOME": str(moved)}
        start_as_the_client_does(entry, home, [moved, _default(home)])
        started.append(f"mcp-{client}.json")
        assert kept_answers(moved) == sorted(started)
    assert kept_answers(_default(home)) == []


# -- repair and uninstall ---------------------------------------------------------------------------
def _our_mcp_entries(home: Path) -> list[dict[str, Any]]:
    found = []
    for relative in (*JSON_CLIENTS.values(), ".codebuddy/.mcp.json"):
        if not (home / relative).exists():
            continue
        servers = json.loads((home / relative).read_text(encoding="utf-8")).get("mcpServers", {})
        if entries.SERVER_NAME in servers:
            found.append(servers[entries.SERVER_NAME])
    return found


def test_another_folder_is_stale_and_a_repair_names_this_one(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no `claude`: its MCP server is a command to run
    first, second = tmp_path / "first 一", tmp_path / "second 二"
    monkeypatch.setenv("MEMEVO_HOME", str(first))
    for client in HOOK_FILES:
        assert register_client(client, jsonfile.Writer()).ok
    cursor_mcp = home / JSON_CLIENTS["cursor"]
    servers = json.loads(cursor_mcp.read_text(encoding="utf-8"))
    servers["mcpServers"][entries.SERVER_NAME]["env"] = {"MEMEVO_LANG": "en", "MEMEVO_HOME": str(first)}
    cursor_mcp.write_text(json.dumps(servers), encoding="utf-8")  # a variable the user added to ours

    for target in (second, None):  # moved elsewhere, then back to the default folder
        if target is None:
            monkeypatch.setenv("MEMEVO_HOME", str(_default(home)))
        else:
            monkeypatch.setenv("MEMEVO_HOME", str(target))
        for client in ("cursor", "codebuddy", "workbuddy"):
            report = client_status(client)
            assert report["hooks"] == "stale" and needs_repair(report), (client, report)
            assert {v for k, v in report.items() if k.startswith("mcp:")} == {"stale"}, report
        assert client_status("claude")["hooks"] == "stale"
        for client in HOOK_FILES:
            assert register_client(client, jsonfile.Writer()).ok  # what setup --repair and the watcher run
            assert client_status(client)["hooks"] == "ok"
            assert not needs_repair({k: v for k, v in client_status(client).items() if k != "mcp"})
            assert our_commands(home, client) == {
                e: h[0]["command"] if client == "cursor" else h[0]["hooks"][0]["command"]
                for e, h in snippet(client)["hooks"].items()
            }
        named = [entries.named_home(e) for e in _our_mcp_entries(home)]
        assert named == [None if target is None else str(target)] * len(named) and named
        user_env = json.loads(cursor_mcp.read_text(encoding="utf-8"))["mcpServers"][entries.SERVER_NAME][
            "env"
        ]
        assert user_env == ({"MEMEVO_LANG": "en"} | ({} if target is None else {"MEMEVO_HOME": str(target)}))
        manual = (register_client("claude", jsonfile.Writer()).manual_command or "").split()
        if target is None:
            assert "-e" not in manual
        else:  # after the name: `-e` would take the name as a second variable
            assert manual.index("-e") == manual.index(entries.SERVER_NAME) + 1

    # back on the default folder: every hook command is the one an install that never moved writes
    for client in HOOK_FILES:
        assert all(" --home " not in c for c in our_commands(home, client).values())

    # uninstall from yet another folder still finds them all; everyone else's entries stay
    monkeypatch.setenv("MEMEVO_HOME", str(first))
    for client in HOOK_FILES:
        register_client(client, jsonfile.Writer())
    monkeypatch.setenv("MEMEVO_HOME", str(tmp_path / "elsewhere"))
    for client in HOOK_FILES:
        assert unregister_client(client, jsonfile.Writer(), use_cli=False).ok
        assert our_commands(home, client) == {}
    assert _our_mcp_entries(home) == []
    for client in HOOK_FILES:  # the other tool's hooks (tests/clienthome.py) were never ours
        if client != "workbuddy":
            assert "/usr/local/bin/other-tool" in (home / HOOK_FILES[client]).read_text(encoding="utf-8")
    assert "other" in json.loads((home / JSON_CLIENTS["cursor"]).read_text(encoding="utf-8"))["mcpServers"]


# -- Claude Code, through its real CLI -------------------------------------------------------------
def _claude_binary() -> str | None:
    from test_claude_cli import CLAUDE

    return CLAUDE


@pytest.mark.skipif(_claude_binary() is None, reason="the Claude Code CLI is not installed")
def test_claude_code_registers_the_moved_folder_through_claude_mcp_add(home: Path, tmp_path: Path) -> None:
    binary = _claude_binary()
    assert binary is not None
    path = f"{Path(binary).parent}:/usr/bin:/bin"
    moved, later = tmp_path / MOVED, tmp_path / "later 后来"
    memevo(home, str(moved), "setup", "--only", "claude", path=path)

    def registered() -> dict[str, Any]:
        servers = json.loads((home / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]
        assert list(servers).count(entries.SERVER_NAME) == 1
        return dict(servers[entries.SERVER_NAME])

    entry = registered()
    assert entry["env"] == {"MEMEVO_HOME": str(moved)} and entry["args"][-2:] == ["--client", "claude"]
    start_as_the_client_does(entry, home, [moved, _default(home)])
    assert kept_answers(moved) == ["mcp-claude.json"] and kept_answers(_default(home)) == []
    run_through_shell(our_commands(home, "claude")["PreToolUse"], home, ACTION)
    assert "service unavailable" in hooks_log(moved)

    memevo(home, str(later), "setup", "--only", "claude", path=path)  # moved again: replaced, once
    assert registered()["env"] == {"MEMEVO_HOME": str(later)}
    memevo(home, None, "uninstall", "--only", "claude", path=path)  # from the default folder
    assert entries.SERVER_NAME not in json.loads((home / ".claude.json").read_text(encoding="utf-8")).get(
        "mcpServers", {}
    )
    assert our_commands(home, "claude") == {}
