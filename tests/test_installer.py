"""Golden install/uninstall tests in a fake HOME with all four client folders: the exact files
written and the text printed; a second run changes no byte; foreign hooks, MCP servers and
skills survive setup and uninstall; an invalid client file is left alone.

Regenerate the golden files with UPDATE_GOLDEN=1 and read the diff line by line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from clienthome import FOREIGN_HOOK, FOREIGN_MJS
from deadlines import HANG_S
from memevo.installer import hook_command, jsonfile
from memevo.installer.clients import client_status, get, needs_repair, register_client, snippet

GOLDEN = Path(__file__).resolve().parent / "golden" / "install"


def run_memevo(*args: str, home: Path, path: str = "/usr/bin:/bin") -> subprocess.CompletedProcess[str]:
    env = os.environ | {"HOME": str(home), "PATH": path, "MEMEVO_LANG": "en"}
    env.pop("MEMEVO_CLAUDE_BIN", None)
    env.pop("MEMORY_CLAUDE_BIN", None)
    return subprocess.run(
        [sys.executable, "-m", "memevo.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
        stdin=subprocess.DEVNULL,
    )


def normalise(text: str, home: Path) -> str:
    text = text.replace(str(hook_command.hook_script()), "$HOOK").replace(
        hook_command.interpreter(), "$PYTHON"
    )
    data = os.environ.get("MEMEVO_HOME") or str(home / ".memory-self-evolution")
    text = text.replace(data, "$MEMEVO_HOME").replace(os.environ["MEMEVO_MODELS_DIR"], "$MODELS")
    text = text.replace(str(home), "$HOME")
    return re.sub(r"\.bak-\d{8}-\d{6}(-\d+)?", ".bak-STAMP", text)


def snapshot(home: Path) -> dict[str, str]:
    """Every client file under HOME (not memevo's data dir), normalised."""
    found = {}
    for path in sorted(home.rglob("*")):
        relative = str(path.relative_to(home))
        if path.is_file() and not relative.startswith(".memory-self-evolution") and ".bak-" not in relative:
            found[normalise(relative, home)] = normalise(path.read_text(encoding="utf-8"), home)
    return found


def raw_bytes(home: Path) -> dict[str, bytes]:
    return {
        str(p): p.read_bytes()
        for p in sorted(home.rglob("*"))
        if p.is_file() and ".memory-self-evolution" not in str(p)
    }


def check_golden(name: str, actual: Any) -> None:
    path = GOLDEN / f"{name}.json"
    if os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(actual, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert actual == json.loads(path.read_text(encoding="utf-8")), f"differs from {path}"


@pytest.fixture
def default_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    """No MEMEVO_HOME, as most users have it: the data folder is the default one under HOME, and
    no entry names it (a moved one is in tests/test_moved_home.py and the moved-* goldens)."""
    monkeypatch.delenv("MEMEVO_HOME")


def test_setup_then_uninstall_golden(home: Path, default_folder: None) -> None:
    first = run_memevo("setup", "--no-input", home=home)
    assert first.returncode == 0, first.stderr
    check_golden("setup-files", snapshot(home))
    assert len(list(home.rglob("*.bak-*"))) == 6  # each changed file that existed, once
    check_golden("setup-output", normalise(first.stdout, home).splitlines())
    written = raw_bytes(home)
    again = run_memevo("setup", "--no-input", home=home)
    assert again.returncode == 0 and raw_bytes(home) == written  # a second run changes no byte
    check_golden("setup-again-output", normalise(again.stdout, home).splitlines())
    gone = run_memevo("uninstall", home=home)
    assert gone.returncode == 0, gone.stderr
    check_golden("uninstall-files", snapshot(home))
    assert len(list(home.rglob("*.bak-*"))) == 6 + 8  # never overwriting an earlier backup
    check_golden("uninstall-output", normalise(gone.stdout, home).splitlines())


def test_setup_with_a_moved_data_folder_golden(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MEMEVO_HOME set at setup: every hook command carries `--home "<folder>"` and every MCP
    entry `"env": {"MEMEVO_HOME": "<folder>"}` (Claude Code's command `-e MEMEVO_HOME=…`); the
    rest is byte for byte the default install. Uninstall leaves what it leaves for the default."""
    monkeypatch.setenv("MEMEVO_HOME", str(tmp_path / "my 记忆 data"))
    first = run_memevo("setup", "--no-input", home=home)
    assert first.returncode == 0, first.stderr
    check_golden("moved-setup-files", snapshot(home))
    check_golden("moved-setup-output", normalise(first.stdout, home).splitlines())
    written = raw_bytes(home)
    again = run_memevo("setup", "--no-input", home=home)
    assert again.returncode == 0 and raw_bytes(home) == written  # a second run changes no byte
    gone = run_memevo("uninstall", home=home)
    assert gone.returncode == 0, gone.stderr
    assert snapshot(home) == json.loads((GOLDEN / "uninstall-files.json").read_text(encoding="utf-8"))


# -- Claude Code's MCP command on a terminal: the user runs it only when memevo cannot ----------------------
# A stand-in for the `claude` CLI: `mcp add` and `mcp remove` edit ~/.claude.json as the real one does
# for a user-scope server (tests/test_installer_claude.py runs the real CLI where it is installed).
FAKE_CLAUDE = """
import json, os, sys
from pathlib import Path

path = Path(os.environ.get("CLAUDE_CONFIG_DIR") or os.environ["HOME"]) / ".claude.json"
data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
servers = data.setdefault("mcpServers", {})
args = sys.argv[1:]
if args[:2] == ["mcp", "remove"]:
    servers.pop(args[-1], None)
elif args[:2] == ["mcp", "add"]:
    cut = args.index("--")
    head, command = args[2:cut], args[cut + 1 :]
    env = dict(value.split("=", 1) for option, value in zip(head, head[1:]) if option == "-e")
    name = head[head.index("--scope") + 2]
    servers[name] = {"type": "stdio", "command": command[0], "args": command[1:], "env": env}
path.write_text(json.dumps(data), encoding="utf-8")
"""


def _claude_said(line: str) -> str:
    """A line of Claude Code's, as setup prints it (its wording defined once, in the installer)."""
    from memevo.installer import messages as m

    return m.Message(m.CLIENT_SAYS, client="Claude Code", line=m.Message(line))


def test_without_claude_setup_prints_the_command_once_where_it_says_why(home: Path) -> None:
    """memevo cannot run `claude mcp add` itself: the command is printed under the line that
    says why and what to do, and not again with Claude Code's state at the end."""
    from memevo.installer.clients import claude

    for args in (("setup", "--no-input"), ("setup", "--no-input"), ("setup", "--only", "claude")):
        done = run_memevo(*args, home=home)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        given = [i for i, line in enumerate(lines) if " mcp add --scope user memory-self-evolution " in line]
        assert given == [lines.index(_claude_said(claude.MCP_NOT_FOUND)) + 1], done.stdout
        assert "Claude Code: hooks registered; the MCP server needs one command" in lines
        assert not [line for line in lines if line.lstrip().startswith("run:")], done.stdout


def test_with_claude_setup_runs_the_command_itself_and_leaves_nothing_to_run(
    home: Path, tmp_path: Path
) -> None:
    from memevo.installer.clients import claude

    tools = tmp_path / "bin"
    tools.mkdir()
    fake = tools / "claude"
    fake.write_text(f"#!{sys.executable}\n{FAKE_CLAUDE}", encoding="utf-8")
    fake.chmod(0o755)
    done = run_memevo("setup", "--no-input", home=home, path=f"{tools}:/usr/bin:/bin")
    assert done.returncode == 0, done.stderr
    servers = json.loads((home / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]
    assert servers["memory-self-evolution"]["args"][-2:] == ["--client", "claude"]  # added by memevo
    lines = done.stdout.splitlines()
    assert _claude_said(claude.MCP_ADDED) in lines  # what memevo did, not a to-do
    assert "Claude Code: hooks and MCP server registered" in lines
    assert _claude_said(claude.MCP_NOT_FOUND) not in lines
    assert not [line for line in lines if " mcp add --scope user memory-self-evolution " in line], done.stdout
    assert not [line for line in lines if line.lstrip().startswith("run:")], done.stdout
    assert "Restart Claude Code, Cursor, CodeBuddy, WorkBuddy so they load memevo's MCP server." in lines


def test_foreign_entries_survive_and_the_node_tool_is_replaced(home: Path) -> None:
    assert run_memevo("setup", "--no-input", home=home).returncode == 0
    claude = json.loads((home / ".claude" / "settings.json").read_text())
    prompt_hooks = [h for group in claude["hooks"]["UserPromptSubmit"] for h in group["hooks"]]
    assert prompt_hooks[0] == FOREIGN_HOOK and "memevo_hook.py" in prompt_hooks[1]["command"]
    assert (
        len(prompt_hooks) == 2
        and claude["theme"] == "dark"
        and claude["permissions"]["allow"] == ["Bash(ls:*)"]
    )
    servers = json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]
    assert sorted(servers) == ["memory-self-evolution", "other"]
    assert servers["memory-self-evolution"]["args"] == [
        "-P",
        "-m",
        "memevo.cli",
        "mcp",
        "--client",
        "cursor",
    ]
    for name in (".mcp.json", "mcp.json"):  # the CodeBuddy CLI reads .mcp.json first, the IDE mcp.json
        assert "memory-self-evolution" in json.loads((home / ".codebuddy" / name).read_text())["mcpServers"]
    assert (home / ".claude" / "skills" / "memory-self-evolution-manage" / "SKILL.md").exists()
    assert not (
        home / ".cursor" / "skills" / "memory-self-evolution-manage"
    ).exists()  # Cursor reads Claude's
    assert run_memevo("uninstall", home=home).returncode == 0
    assert (home / ".cursor" / "skills" / "other-skill" / "SKILL.md").exists()
    assert json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"] == {
        "other": {"command": "/usr/local/bin/other-mcp", "args": []}
    }
    claude = json.loads((home / ".claude" / "settings.json").read_text())
    assert claude["hooks"] == {
        "UserPromptSubmit": [{"matcher": "", "hooks": [FOREIGN_HOOK]}],
        "PostToolUse": [FOREIGN_MJS],  # the Node tool's after-tool hook went, the other tool's stayed
    }


def test_a_registration_naming_the_retired_module_still_runs_and_repair_rewrites_it(home: Path) -> None:
    """Before the command line moved to `memevo.cli`, entries named `memevo.core.cli`. Such an
    MCP entry and login entry keep working (the old module forwards), are reported stale, and
    a repair rewrites them in place: the user's own keys in our entry stay."""
    from memevo.installer import autostart

    assert run_memevo("setup", "--no-input", "--autostart", home=home).returncode == 0
    cursor = home / ".cursor" / "mcp.json"
    data = json.loads(cursor.read_text())
    ours = data["mcpServers"]["memory-self-evolution"]
    ours["args"] = ["-m", "memevo.core.cli", "mcp", "--client", "cursor"]  # an older version's
    ours["disabled"] = False  # a key the user added
    cursor.write_text(json.dumps(data), encoding="utf-8")
    login = autostart.entry_path("linux")
    login.write_text(login.read_text().replace("memevo.cli", "memevo.core.cli"), encoding="utf-8")
    assert client_status("cursor")["mcp:mcp.json"] == "stale" and needs_repair(client_status("cursor"))
    assert autostart.status("linux")["stale"]

    old = subprocess.run(
        [sys.executable, "-m", "memevo.core.cli", "--version"], capture_output=True, text=True, timeout=HANG_S
    )
    new = subprocess.run(
        [sys.executable, "-m", "memevo.cli", "--version"], capture_output=True, text=True, timeout=HANG_S
    )
    assert old.returncode == 0 and old.stdout == new.stdout and new.stdout.strip()

    assert run_memevo("setup", "--repair", home=home).returncode == 0
    after = json.loads(cursor.read_text())["mcpServers"]
    assert after["memory-self-evolution"]["args"] == ["-P", "-m", "memevo.cli", "mcp", "--client", "cursor"]
    assert after["memory-self-evolution"]["disabled"] is False and "other" in after
    assert client_status("cursor")["mcp:mcp.json"] == "ok"
    assert "memevo.core.cli" not in login.read_text() and not autostart.status("linux")["stale"]


def test_an_invalid_client_file_is_left_alone(home: Path) -> None:
    broken = home / ".workbuddy" / "settings.json"
    broken.write_text('{"hooks": {', encoding="utf-8")
    result = run_memevo("setup", "--no-input", home=home)
    assert result.returncode == 1 and broken.read_text() == '{"hooks": {'
    assert "settings.json is not valid JSON (line 1" in result.stderr and "left untouched" in result.stderr
    assert "memevo_hook.py" in (home / ".cursor" / "hooks.json").read_text()  # the others were registered
    assert not list(broken.parent.glob("settings.json.bak-*"))


def test_only_one_client_reads_and_writes_nothing_else(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memevo.installer import jsonfile
    from memevo.installer import setup_engine as setup

    touched: list[Path] = []
    real_load = jsonfile.load
    monkeypatch.setattr(jsonfile, "load", lambda path: touched.append(path) or real_load(path))
    before = raw_bytes(home)
    result = setup.run(
        setup.Choices(), only="cursor", say=lambda line: None, provision_model=lambda progress: None
    )
    assert result.ok and {p.parent.name for p in touched} == {".cursor"}
    changed = {p for p, data in raw_bytes(home).items() if before.get(p) != data}
    assert changed and all("/.cursor/" in p for p in changed)
    assert not (Path(os.environ["MEMEVO_HOME"]) / "config.json").exists()  # no question, no choice written


def test_uninstall_only_one_client_is_remembered_by_repair(home: Path) -> None:
    assert run_memevo("setup", "--no-input", home=home).returncode == 0
    config = Path(os.environ["MEMEVO_HOME"]) / "config.json"
    config.write_text('{"confirm": false}\n', encoding="utf-8")
    gone = run_memevo("uninstall", "--only", "cursor", home=home)
    assert gone.returncode == 0 and "Cursor" in gone.stdout
    assert "memevo_hook" not in (home / ".cursor" / "hooks.json").read_text()
    assert "memevo_hook" in (home / ".claude" / "settings.json").read_text()
    assert config.read_text() == '{"confirm": false}\n'  # config and the other clients untouched
    repaired = run_memevo("setup", "--repair", home=home)
    assert repaired.returncode == 0 and "memevo_hook" not in (home / ".cursor" / "hooks.json").read_text()
    again = run_memevo("setup", "--only", "cursor", home=home)  # asked for by name: back
    assert again.returncode == 0 and "memevo_hook" in (home / ".cursor" / "hooks.json").read_text()


def test_setup_stops_before_registering_when_the_model_cannot_be_provisioned(
    home: Path, tmp_path: Path
) -> None:
    config = Path(os.environ["MEMEVO_HOME"]) / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"model": str(tmp_path / "no-such-model")}), encoding="utf-8")
    before = raw_bytes(home)
    result = run_memevo("setup", "--no-input", home=home)
    assert result.returncode == 1 and "could not be provisioned" in result.stderr
    assert raw_bytes(home) == before


def test_reinstalling_keeps_every_confidence(home: Path, run_cli) -> None:
    assert run_memevo("setup", "--no-input", home=home).returncode == 0
    assert run_cli("rule", "add", "回答问题时一律使用中文").returncode == 0
    memory_id = json.loads(run_cli("read", "rule", "--json").stdout)["memories"][0]["id"]
    from memevo.core.store.database import Store

    with Store.open() as store, store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 87 WHERE id = ?", [memory_id])
    assert run_memevo("uninstall", home=home).returncode == 0
    assert not (Path(os.environ["MEMEVO_HOME"]) / "config.json").exists()
    assert run_memevo("setup", "--no-input", home=home).returncode == 0
    memories = json.loads(run_cli("read", "rule", "--json").stdout)["memories"]
    assert [(m["id"], m["confidence"]) for m in memories] == [(memory_id, 0.87)]


def test_uninstall_stops_the_running_service_first_and_drops_pending_jobs(home: Path, run_cli) -> None:
    import servicerun
    from memevo.core.learning import jobs
    from memevo.core.store.database import Store

    data = Path(os.environ["MEMEVO_HOME"])
    assert run_memevo("setup", "--no-input", home=home).returncode == 0
    assert run_cli("rule", "add", "回答问题时一律使用中文").returncode == 0
    with Store.open() as store:
        jobs.create(store, "pending-1", "claude", "s", None, "以后回答我都用中文", 1)
    (data / "session-secret").write_text("k" * 64, encoding="utf-8")
    with servicerun.service(data) as proc:
        gone = run_memevo("uninstall", home=home)
        assert gone.returncode == 0, gone.stderr
        assert "Stopped the memevo service." in gone.stdout and proc.wait(timeout=HANG_S) == 0
    assert "Removed 1 pending side job(s)." in gone.stdout
    assert not (data / "session-secret").exists() and not (data / "config.json").exists()
    assert (
        json.loads(run_cli("read", "rule", "--json").stdout)["memories"][0]["text"]
        == "回答问题时一律使用中文"
    )


def test_setup_with_no_client_installed_still_counts_as_run(isolated_home: Path) -> None:
    from memevo.desktop.app import first_run
    from memevo.installer import setup_engine as setup

    assert first_run()  # the tray app would open the wizard
    lines: list[str] = []
    result = setup.run(setup.Choices(), say=lines.append, provision_model=lambda progress: None)
    assert (
        result.ok
        and result.clients == []
        and sorted(result.skipped) == ["claude", "codebuddy", "cursor", "workbuddy"]
    )
    assert not first_run()  # ran once: the wizard is not pushed at every start


def test_symlinked_files_stay_links_and_the_node_tools_skill_is_moved_aside(home: Path) -> None:
    dotfiles = home / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude-settings.json"
    (home / ".claude" / "settings.json").rename(real)
    (home / ".claude" / "settings.json").symlink_to(real)
    node_skill = home / ".claude" / "skills" / "memory-self-evolution-manage" / "SKILL.md"
    node_skill.parent.mkdir(parents=True)
    node_skill.write_text(
        "---\nname: memory-self-evolution-manage\ndescription: the Node tool's\n---\n", encoding="utf-8"
    )
    result = run_memevo("setup", "--no-input", home=home)
    assert result.returncode == 0, result.stderr
    link = home / ".claude" / "settings.json"
    assert link.is_symlink() and "memevo_hook.py" in real.read_text(encoding="utf-8")
    assert list(dotfiles.glob("claude-settings.json.bak-*"))  # the backup sits next to the real file
    assert (node_skill.parent / ".memevo-owned").exists()
    moved = list((Path(os.environ["MEMEVO_HOME"]) / "backups" / "skills").glob("*/SKILL.md"))
    assert [p.read_text(encoding="utf-8") for p in moved] == [
        "---\nname: memory-self-evolution-manage\ndescription: the Node tool's\n---\n"
    ]


def test_codebuddy_never_shares_workbuddys_folder(home: Path) -> None:
    from memevo.installer.clients import files

    os.environ["CODEBUDDY_CONFIG_DIR"] = str(home / ".workbuddy")  # as WorkBuddy sets it for its CLI
    try:
        assert files("codebuddy").hooks_file == home / ".codebuddy" / "settings.json"
    finally:
        del os.environ["CODEBUDDY_CONFIG_DIR"]


def test_codebuddy_legacy_layout_keeps_the_clis_servers(isolated_home: Path) -> None:
    """Only ~/.codebuddy.json holds the CLI's servers: creating mcp.json for the IDE must not hide them."""
    home = Path(os.environ["HOME"])
    (home / ".codebuddy").mkdir()
    legacy = home / ".codebuddy.json"
    original = {
        "mcpServers": {"github": {"command": "gh-mcp", "args": ["--stdio"]}},
        "projects": {"/p": {"x": 1}},
    }
    legacy.write_text(json.dumps(original), encoding="utf-8")
    assert run_memevo("setup", "--no-input", home=home).returncode == 0
    created = json.loads((home / ".codebuddy" / "mcp.json").read_text(encoding="utf-8"))["mcpServers"]
    assert (
        sorted(created) == ["github", "memory-self-evolution"]
        and created["github"] == original["mcpServers"]["github"]
    )
    gone = run_memevo("uninstall", home=home)
    assert gone.returncode == 0 and not (home / ".codebuddy" / "mcp.json").exists()
    assert json.loads(legacy.read_text(encoding="utf-8")) == original


# -- Cursor on Windows: PowerShell runs each hook ---------------------------------------------------------
WIN_PYTHON = r"C:\Users\Ann\AppData\Local\Programs\Python\Python312\python.exe"
WIN_HOOK = (
    r"C:\Users\Ann\AppData\Local\Programs\Python\Python312\Lib\site-packages\memevo\hooks\memevo_hook.py"
)


@pytest.fixture
def windows_paths(monkeypatch: pytest.MonkeyPatch, default_folder: None) -> None:
    monkeypatch.setattr(hook_command, "hook_runner", lambda: WIN_PYTHON)
    monkeypatch.setattr(hook_command, "hook_script", lambda: WIN_HOOK)


def test_cursor_on_windows_gets_powershells_call_operator(windows_paths: None) -> None:
    """Cursor wraps each hook as `& { $input | <command> }` in PowerShell: a line that starts with
    a quoted path is a parse error there (client-protocols.md, Appendix B)."""
    assert get("cursor").hook_command("beforeSubmitPrompt", platform="win32") == (
        r'& "C:\Users\Ann\AppData\Local\Programs\Python\Python312\python.exe" -I -S '
        r'"C:\Users\Ann\AppData\Local\Programs\Python\Python312\Lib\site-packages\memevo\hooks\memevo_hook.py"'
        " cursor beforeSubmitPrompt"
    )
    cursor = snippet("cursor", platform="win32")
    assert [(event, entry[0]["command"].split('" ')[-1]) for event, entry in cursor["hooks"].items()] == [
        ("sessionStart", "cursor sessionStart"),
        ("beforeSubmitPrompt", "cursor beforeSubmitPrompt"),
        ("beforeShellExecution", "cursor beforeShellExecution"),
        ("beforeMCPExecution", "cursor beforeMCPExecution"),
        ("stop", "cursor stop"),
    ]
    assert all(entry[0]["command"].startswith('& "') for entry in cursor["hooks"].values())
    # everything else is as on Linux and macOS (WorkBuddy and the CodeBuddy CLI use Git Bash there)
    for client, event in (("claude", "Stop"), ("codebuddy", "UserPromptSubmit"), ("workbuddy", "Stop")):
        assert (
            get(client).hook_command(event, platform="win32")
            == f'"{WIN_PYTHON}" -I -S "{WIN_HOOK}" {client} {event}'
        )
    for platform in ("linux", "darwin"):
        assert (
            get("cursor").hook_command("stop", platform=platform)
            == f'"{WIN_PYTHON}" -I -S "{WIN_HOOK}" cursor stop'
        )


def test_powershell_quoting_keeps_dollar_and_backtick_literal(
    monkeypatch: pytest.MonkeyPatch, default_folder: None
) -> None:
    monkeypatch.setattr(hook_command, "hook_runner", lambda: r"D:\tools$x\py`3\python.exe")
    monkeypatch.setattr(hook_command, "hook_script", lambda: r"D:\tools$x\hooks\memevo_hook.py")
    assert get("cursor").hook_command("stop", platform="win32") == (
        r'& "D:\tools`$x\py``3\python.exe" -I -S "D:\tools`$x\hooks\memevo_hook.py" cursor stop'
    )


def test_a_posix_form_cursor_entry_on_windows_is_stale_and_replaced_in_place(windows_paths: None) -> None:
    cursor = get("cursor")
    posix = snippet("cursor", platform="linux")
    data = {"version": 1, "hooks": {e: [{"command": "other-tool"}, *h] for e, h in posix["hooks"].items()}}
    assert cursor.hooks_status(data, platform="linux") == "ok"
    assert cursor.hooks_status(data, platform="win32") == "stale"
    assert cursor.set_hooks(data, platform="win32")
    assert cursor.hooks_status(data, platform="win32") == "ok"
    assert [h["command"] for h in data["hooks"]["stop"]] == [
        "other-tool",
        f'& "{WIN_PYTHON}" -I -S "{WIN_HOOK}" cursor stop',
    ]
    assert not cursor.set_hooks(data, platform="win32")  # a second run changes nothing


def test_workbuddy_hooks_get_thirty_seconds() -> None:
    """A WorkBuddy hook that times out blocks the user's prompt (Appendix B): 30 s each, while the
    hook itself gives up on the service after 5 s (18 s at Stop)."""
    groups = snippet("workbuddy")["hooks"]
    assert {event: g[0]["hooks"][0]["timeout"] for event, g in groups.items()} == {
        "SessionStart": 30,
        "UserPromptSubmit": 30,
        "Stop": 30,
    }


# -- Claude Code's permission rules: one yes allows memory_propose, never memory_resolve -------------------
RESOLVE_RULE = "mcp__memory-self-evolution__memory_resolve"
PROPOSE_RULE = "mcp__memory-self-evolution__memory_propose"


def _allow(home: Path) -> list[str]:
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    return list(settings.get("permissions", {}).get("allow", []))


def _setup_claude(allow: bool | None, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from memevo.installer import setup_engine as setup

    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no `claude` binary: nothing registered for real
    monkeypatch.delenv("MEMEVO_CLAUDE_BIN", raising=False)
    monkeypatch.delenv("MEMORY_CLAUDE_BIN", raising=False)
    lines: list[str] = []
    result = setup.run(
        setup.Choices(allow_resolve=allow), only="claude", say=lines.append, provision_model=lambda p: None
    )
    assert result.ok, result.reason
    return lines


def test_one_yes_allows_memory_propose_only_and_uninstall_only_claude_removes_it(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """memory_resolve is never allowed without asking: only the user confirms a memory."""
    from memevo.installer.clients.claude import PERMISSIONS

    assert PERMISSIONS == (PROPOSE_RULE,)
    lines = _setup_claude(True, monkeypatch)
    assert _allow(home) == ["Bash(ls:*)", PROPOSE_RULE]  # after the user's own
    assert "Claude Code: the memory_resolve and memory_propose permissions: ~/.claude/settings.json" in lines
    written = raw_bytes(home)
    _setup_claude(True, monkeypatch)  # a second yes: no byte changes, no rule twice
    assert raw_bytes(home) == written
    _setup_claude(None, monkeypatch)  # no question asked (--repair, the watcher): kept as they are
    assert _allow(home) == ["Bash(ls:*)", PROPOSE_RULE]
    gone = run_memevo("uninstall", "--only", "claude", home=home)
    assert gone.returncode == 0, gone.stderr
    assert _allow(home) == ["Bash(ls:*)"]
    assert "Claude Code: the memory_resolve and memory_propose permissions" in gone.stdout


def test_an_older_allowed_memory_resolve_is_taken_out_by_a_yes_or_a_no(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An install from before holds memory_resolve's rule (it let a model answer its own
    proposal without asking): a yes now takes it out and appends memory_propose's; a no takes
    out both and leaves everyone else's rules, even one for our whole server."""
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["permissions"]["allow"] = [RESOLVE_RULE, "Bash(ls:*)", "mcp__memory-self-evolution"]
    settings.write_text(json.dumps(data), encoding="utf-8")
    _setup_claude(True, monkeypatch)
    assert _allow(home) == ["Bash(ls:*)", "mcp__memory-self-evolution", PROPOSE_RULE]
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["permissions"]["allow"].append(RESOLVE_RULE)
    settings.write_text(json.dumps(data), encoding="utf-8")
    _setup_claude(False, monkeypatch)
    assert _allow(home) == ["Bash(ls:*)", "mcp__memory-self-evolution"]


def test_uninstall_removes_both_rules_and_a_permissions_block_left_empty(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["permissions"] = {"allow": [PROPOSE_RULE, RESOLVE_RULE]}
    settings.write_text(json.dumps(data), encoding="utf-8")
    gone = run_memevo("uninstall", home=home)
    assert gone.returncode == 0, gone.stderr
    left = json.loads(settings.read_text(encoding="utf-8"))
    assert "permissions" not in left and left["theme"] == "dark"


# -- CodeBuddy against what its real CLI does with a registration --------------------------------------
# Only the last hook's context per event reaches its model, so ours goes last on the events that
# inject and setup says who else is there; PreToolUse's context is ignored, so an older
# registration of it is stale and goes. tests/test_codebuddy_cli.py runs the real CLI.
OTHER_HOOK = {"type": "command", "command": "/usr/local/bin/other-memory --prompt", "timeout": 5}


def settings_path(home: Path) -> Path:
    return home / ".codebuddy" / "settings.json"


def read_settings(home: Path) -> dict[str, Any]:
    return dict(json.loads(settings_path(home).read_text(encoding="utf-8")))


def write_settings(home: Path, data: dict[str, Any]) -> None:
    settings_path(home).write_text(json.dumps(data), encoding="utf-8")


def commands(data: dict[str, Any], event: str) -> list[str]:
    return [h["command"] for group in data["hooks"].get(event, []) for h in group["hooks"]]


def ours(command: str) -> bool:
    return "memevo_hook.py" in command


@pytest.fixture
def codebuddy_home(isolated_home: Path) -> Path:
    """The test's HOME with only ~/.codebuddy (conftest's `home` seeds every client)."""
    root = Path(os.environ["HOME"])
    (root / ".codebuddy").mkdir(parents=True)
    return root


def test_another_tools_prompt_hook_after_ours_is_stale_and_repair_puts_ours_last(
    codebuddy_home: Path,
) -> None:
    home = codebuddy_home
    first = register_client("codebuddy", jsonfile.Writer())
    assert first.ok and client_status("codebuddy")["hooks"] == "ok"
    data = read_settings(home)
    data["hooks"]["UserPromptSubmit"].append(
        {"matcher": "", "hooks": [OTHER_HOOK]}
    )  # their installer appends
    data["hooks"]["SessionStart"][0]["hooks"].append(
        dict(OTHER_HOOK, command="/usr/local/bin/other-memory --start")
    )
    write_settings(home, data)

    report = client_status("codebuddy")
    assert report["hooks"] == "stale" and needs_repair(report)  # the tray's watcher repairs it
    repaired = register_client("codebuddy", jsonfile.Writer())
    after = read_settings(home)
    for event in ("UserPromptSubmit", "SessionStart"):
        listed = commands(after, event)
        assert ours(listed[-1]) and sum(map(ours, listed)) == 1, listed
        assert any("other-memory" in c for c in listed), listed  # theirs stays, before ours
    # a group shared with their hook: ours left it for one of its own, theirs kept its group
    assert [len(g["hooks"]) for g in after["hooks"]["SessionStart"]] == [1, 1]
    assert client_status("codebuddy")["hooks"] == "ok"
    warned = [line for line in repaired.lines if line.startswith("warning:")]
    assert len(warned) == 2 and all("/usr/local/bin/other-memory" in line for line in warned), repaired.lines
    assert any("UserPromptSubmit" in line for line in warned) and any(
        "SessionStart" in line for line in warned
    )
    # nothing changed: nothing said again, nothing moved
    again = register_client("codebuddy", jsonfile.Writer())
    assert not again.changed and read_settings(home) == after


def test_other_hooks_on_events_without_context_are_left_where_they_are(codebuddy_home: Path) -> None:
    home = codebuddy_home
    write_settings(home, {"hooks": {"Stop": [{"matcher": "", "hooks": [OTHER_HOOK]}]}})
    result = register_client("codebuddy", jsonfile.Writer())
    stop = commands(read_settings(home), "Stop")
    assert "other-memory" in stop[0] and ours(stop[1])
    assert not [line for line in result.lines if line.startswith("warning:")]
    # their Stop hook after ours changes nothing: every Stop hook's answer is kept
    data = read_settings(home)
    data["hooks"]["Stop"].append({"matcher": "", "hooks": [dict(OTHER_HOOK, command="/opt/late --stop")]})
    write_settings(home, data)
    assert client_status("codebuddy")["hooks"] == "ok"


def test_an_older_pretooluse_registration_is_stale_and_replaced_by_posttooluse(codebuddy_home: Path) -> None:
    home = codebuddy_home
    client = get("codebuddy")
    register_client("codebuddy", jsonfile.Writer())
    data = read_settings(home)
    old = json.loads(json.dumps(data["hooks"]["PostToolUse"]))
    old[0]["hooks"][0]["command"] = old[0]["hooks"][0]["command"].replace("PostToolUse", "PreToolUse")
    data["hooks"]["PreToolUse"] = [*old, {"matcher": "Bash", "hooks": [OTHER_HOOK]}]
    write_settings(home, data)
    assert client_status("codebuddy")["hooks"] == "stale"
    register_client("codebuddy", jsonfile.Writer())
    after = read_settings(home)
    assert commands(after, "PreToolUse") == [OTHER_HOOK["command"]]  # theirs stays
    assert client_status("codebuddy")["hooks"] == "ok"
    assert "PreToolUse" not in client.snippet()["hooks"]
    matcher = client.snippet()["hooks"]["PostToolUse"][0]["matcher"]
    for tool in ("Bash", "Edit", "Write", "execute_command", "write_to_file"):
        assert re.search(matcher, tool), tool
    for tool in (
        "NotebookWrite",
        "DeferExecuteTool",
        "mcp__memory-self-evolution__memory_search",
        "mcp__x__Edit",
    ):
        assert not re.search(matcher, tool), tool  # MCP tools fire tool hooks twice: neither is ours
