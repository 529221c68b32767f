"""Issue 31, item 1: one state per client, said the same in the wizard, the tray's Clients menu,
the panel's Status tab, `memevo setup` and the notifications. Without a `claude` binary,
Claude Code's hooks are registered and its MCP server needs one command: nothing calls that
"registered" or "missing", Repair now does not pretend to repair it, and a click on a
notification changes no setting."""

from __future__ import annotations

import ast
import asyncio
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from memevo.core.service.host import ServiceHost
from memevo.desktop import client_texts, core_texts
from memevo.desktop.clients_menu import short
from memevo.desktop.qt import QApplication
from memevo.desktop.tray import Tray
from memevo.installer import client_state, state
from memevo.installer import setup_engine as engine
from memevo.installer.clients import claude as claude_mcp
from memevo.installer.clients import cursor as cursor_client
from test_tray_menu import settle


@pytest.fixture
def no_claude_cli(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))
    for var in ("MEMEVO_CLAUDE_BIN", "MEMORY_CLAUDE_BIN"):
        monkeypatch.delenv(var, raising=False)
    assert claude_mcp.find_claude() is None
    yield home


def _setup() -> list[str]:
    said: list[str] = []
    engine.run(engine.Choices(), say=said.append, provision_model=lambda progress: None)
    return said


def _menu(tray: Tray) -> dict[str, list[str]]:
    """The Clients submenu: each client's title and the entries under it (none: a greyed line)."""
    found: dict[str, list[str]] = {}
    for action in tray.clients_menu.actions():
        if action.isSeparator():  # then the hooks' activity
            break
        if action.menu():
            found[action.text()] = [a.text() for a in action.menu().actions() if not a.isSeparator()]
        else:
            found[action.text()] = []
    return found


def _sub(tray: Tray, starts: str) -> object:
    return next(a.menu() for a in tray.clients_menu.actions() if a.menu() and a.text().startswith(starts))


def test_the_desktop_words_every_state_code_and_message_code() -> None:
    """The English is the installer's alone; the desktop says each code through tr()."""
    from memevo.desktop import messages as desktop_messages
    from memevo.installer import messages

    overall = {
        client_state.NOT_INSTALLED,
        client_state.REMOVED,
        client_state.NOT_REGISTERED,
        client_state.BROKEN,
        client_state.NEEDS_REPAIR,
        client_state.NEEDS_COMMAND,
        client_state.OK,
    }
    assert set(client_texts.summaries()) == overall == set(client_state.SUMMARY)
    assert set(client_texts.part_names()) == set(client_state.PART_NAMES)
    assert set(client_texts.part_states()) == set(client_state.PART_STATES)
    # uninstall's lines and a skill another client reads are said on a terminal only
    terminal_only = {
        messages.SKILL_REMOVED,
        messages.SKILL_SHARED,
        claude_mcp.REMOVE_NOT_FOUND,
        claude_mcp.MCP_REMOVE_FAILED,
        claude_mcp.MCP_REMOVED,
        cursor_client.SKILL_OWN_AGAIN,
    }
    # core's own codes (stages, key and config reasons) are said by desktop/core_texts.py
    core_said = {
        **core_texts._stages(),
        **core_texts._problems(),
        **core_texts._config(),
        **core_texts._backfill(),
    }
    assert set(messages.ENGLISH) - terminal_only - set(core_said) == set(desktop_messages._wordings())
    # each wording has the English one's {names}, but for Python's own English words on a JSON error
    unsaid = {messages.NOT_JSON: {"why"}}
    for code, wording in (desktop_messages._wordings() | core_said).items():
        names = {n for _, n, _, _ in string.Formatter().parse(messages.ENGLISH[code]) if n}
        said = {n for _, n, _, _ in string.Formatter().parse(wording) if n}
        assert said == names - unsaid.get(code, set()), code
    # the sources spell each wording out for lupdate: no computed tr() argument
    for module in (client_texts, desktop_messages, core_texts):
        tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "tr"]
        assert calls and all(isinstance(c.args[0], ast.Constant) for c in calls)


def test_without_claude_its_mcp_server_needs_one_command_everywhere(
    qtbot, host: ServiceHost, no_claude_cli: Path
) -> None:
    command = claude_mcp.printable(claude_mcp.add_command())
    said = _setup()
    # `memevo setup` (and the wizard's log) ends with each client's state and the command
    assert said[-5:] == [
        "Claude Code: hooks registered; the MCP server needs one command",
        f"  run: {command}",
        "Cursor: hooks and MCP server registered",
        "CodeBuddy: hooks and MCP server registered",
        "WorkBuddy: hooks and MCP server registered",
    ]
    claude = client_state.read("claude")
    assert (claude.overall, claude.parts["hooks"], claude.parts["mcp"], claude.command) == (
        "needs-command",
        "ok",
        "command",
        command,
    )
    tray = Tray(host, asyncio.Event())
    settle(qtbot, tray)
    shown: list[tuple[str, str]] = []
    tray.notifier._show = lambda title, message: shown.append((title, message))
    title = client_texts.title(claude)
    menu = _menu(tray)
    assert menu[title] == [
        client_texts.tr("{part}: {state}").format(
            part=client_texts.tr("Hooks"), state=client_texts.tr("registered")
        ),
        client_texts.tr("{part}: {state}").format(
            part=client_texts.tr("MCP server"), state=client_texts.tr("needs one command")
        ),
        client_texts.tr("Copy the command: {command}").format(command=short(command)),
        client_texts.tr("Repair now"),
        client_texts.tr("Stop repairing this client"),
    ]
    # every registered client offers Stop repairing; none is said to be "missing"
    assert all(entries[-1] == client_texts.tr("Stop repairing this client") for entries in menu.values())
    # Copy puts the exact command on the clipboard
    copy = next(
        a
        for a in _sub(tray, title).actions()
        if a.text().startswith(client_texts.tr("Copy the command: {command}")[:4])
    )
    assert copy.toolTip() == command and short(command).endswith("memory-self-evolution …")
    copy.trigger()
    assert QApplication.clipboard().text() == command == tray.copied
    # Repair now changes nothing: no "repaired" notification, no raw log line; the command once
    before = {p: p.read_bytes() for p in (no_claude_cli / ".claude").rglob("*") if p.is_file()}
    tray.repair_client("claude")
    settle(qtbot, tray)
    assert {p: p.read_bytes() for p in (no_claude_cli / ".claude").rglob("*") if p.is_file()} == before
    assert len(shown) == 1
    [(note_title, message)] = shown
    assert note_title == client_texts.tr("{client} needs one command").format(client="Claude Code")
    assert command in message and "run:;" not in message and "repaired" not in note_title
    tray.repair_client("claude")  # again: said once is enough
    settle(qtbot, tray)
    assert len(shown) == 1 and _menu(tray)[title] == menu[title]
    # a click on the notification (how people dismiss it) changes no setting
    settings_before = state.load()
    tray._on_message_clicked()
    settle(qtbot, tray)
    if tray.panel is not None:
        qtbot.addWidget(tray.panel)
    assert state.load() == settings_before and state.client("claude").get("repair", True) is True


def test_a_repair_that_put_something_back_says_the_state_after_it(
    qtbot, host: ServiceHost, no_claude_cli: Path
) -> None:
    _setup()
    settings = no_claude_cli / ".cursor" / "hooks.json"
    settings.write_text('{"version": 1, "hooks": {}}', encoding="utf-8")
    tray = Tray(host, asyncio.Event())
    settle(qtbot, tray)
    shown: list[tuple[str, str]] = []
    tray.notifier._show = lambda title, message: shown.append((title, message))
    cursor = client_state.read("cursor")
    assert cursor.overall == "needs-repair" and cursor.parts["hooks"] == "missing"
    assert client_texts.title(cursor) in _menu(tray)
    tray.repair_client("cursor")
    settle(qtbot, tray)
    [(note_title, message)] = shown
    assert note_title == client_texts.tr("memevo repaired {client}").format(client="Cursor")
    assert client_texts.summaries()["ok"] in message and "hooks.json" not in message
    assert client_texts.title(client_state.read("cursor")) in _menu(tray)
    tray._on_message_clicked()  # dismissing it: repairs stay on
    settle(qtbot, tray)
    if tray.panel is not None:
        qtbot.addWidget(tray.panel)
    assert state.client("cursor").get("repair", True) is True
    # only the menu's explicit action stops repairing
    stop = next(
        a for a in _sub(tray, "Cursor").actions() if a.text() == client_texts.tr("Stop repairing this client")
    )
    stop.trigger()
    settle(qtbot, tray)
    assert state.client("cursor")["repair"] is False
    stopped = client_state.read("cursor")
    assert client_texts.title(stopped) in _menu(tray)
    assert client_texts.tr("Repair it again when it changes") in _menu(tray)[client_texts.title(stopped)]


def test_a_client_not_installed_is_one_greyed_line(qtbot, host: ServiceHost, no_claude_cli: Path) -> None:
    (no_claude_cli / ".workbuddy").rename(no_claude_cli / ".workbuddy-gone")
    _setup()
    tray = Tray(host, asyncio.Event())
    settle(qtbot, tray)
    line = next(a for a in tray.clients_menu.actions() if a.text().startswith("WorkBuddy"))
    assert line.menu() is None and not line.isEnabled()
    assert line.text() == client_texts.title(client_state.read("workbuddy"))


def test_the_status_tab_says_the_same(qtbot, host: ServiceHost, no_claude_cli: Path) -> None:
    from memevo.desktop.status import StatusView

    _setup()
    view = StatusView(host)
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: bool(view.report))
    shown = view.label.text()
    for current in client_state.read_all():
        assert client_texts.title(current) in shown
    assert claude_mcp.printable(claude_mcp.add_command()).split(" -- ")[0] in shown


def test_a_message_is_its_english_and_keeps_its_code_through_a_copy() -> None:
    """The terminal prints a Message as it is; the desktop reads its code, never its English."""
    import copy
    import pickle

    from memevo.installer import messages

    line = messages.Message(
        messages.CLIENT_SAYS, client="Cursor", line=messages.Message(messages.WROTE, what="hooks", path="~/h")
    )
    assert line == "Cursor: hooks: ~/h" and str(line) == line and repr(line) == repr("Cursor: hooks: ~/h")
    for again in (copy.deepcopy(line), pickle.loads(pickle.dumps(line))):
        assert again == line and again.code == messages.CLIENT_SAYS
        assert getattr(again.params["line"], "code", None) == messages.WROTE
    said = messages.render(line, {messages.CLIENT_SAYS: "{client} — {line}", messages.WROTE: "{what}@{path}"})
    assert said == "Cursor — hooks@~/h"
    assert messages.render("plain text", {messages.CLIENT_SAYS: "x"}) == "plain text"
