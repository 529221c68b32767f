"""The client table (hooks/client_table.py): the installer registers its clients, each row is
consistent (the hook answers before its client gives up), a made-up client is served from its
row alone, and nothing outside the clients' own modules names a client."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path
from typing import Any

import pytest
from memevo.installer import clients, hook_command

REPO = Path(__file__).resolve().parents[1]
HOOKS = REPO / "hooks"
INSTALLER = REPO / "installer"


def _module_names(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.py") if p.stem not in ("__init__", "base", "from_table"))


# -- one table ----------------------------------------------------------------------------------------
def test_the_installer_registers_the_tables_clients_in_its_order() -> None:
    from memevo.hooks import client_table

    assert clients.CLIENTS == tuple(client_table.CLIENTS) == clients.names()
    adapters = _module_names(HOOKS / "clients")
    assert adapters and set(adapters) <= set(client_table.CLIENTS)  # an adapter is a client's


def test_each_row_answers_before_its_client_gives_up() -> None:
    from memevo.core.service import fallback_texts
    from memevo.hooks import client_table

    for name, row in client_table.CLIENTS.items():
        kinds = set(row.events.values())
        assert kinds <= set(client_table.KINDS), name
        assert set(row.deadlines) == set(row.registered) == kinds, name  # a deadline and a timeout per kind
        for kind, registered in row.registered.items():  # the hook answers before the client gives up
            assert row.deadlines[kind] <= registered - 1.5, (name, kind)
        assert row.flavor in fallback_texts.FLAVORS, name  # the service has its wording
        assert row.max_chars <= fallback_texts.DEFAULT_MAX_CHARS, name
        assert row.display and row.folder.startswith(".") and row.ask_tool, name
        assert row.mutes is None or (row.mutes in client_table.CLIENTS and row.known_by), name


def test_the_hooks_find_the_data_folder_core_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wire (hooks/wire.py) computes the folder without `os`; core through pathlib."""
    from memevo.core import paths
    from memevo.hooks import wire

    assert Path(wire.data_dir()) == paths.data_dir()  # MEMEVO_HOME, as the tests set it
    monkeypatch.delenv(paths.HOME_ENV)
    assert Path(wire.data_dir()) == paths.data_dir()  # the default folder under HOME
    # The hook file the installer registers is the one the hook side ships.
    assert (HOOKS / hook_command.HOOK_FILE).is_file() and hook_command.hook_script().parent == HOOKS.resolve()


def test_a_made_up_client_is_served_from_its_table_row_alone(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Adding a client whose payload and files have the usual shape takes its row and nothing
    else: the installer registers its events with their timeouts, the relay routes them with
    their deadlines, and the default adapter answers them."""
    import json

    from memevo.hooks import client_table, handler
    from memevo.hooks import clients as adapters
    from memevo.hooks import relay as hook_relay
    from memevo.installer import jsonfile
    from memevo.installer.clients import from_table

    row = client_table.ClientDef(
        "zed",
        "Zed",
        ".zed",
        {"SessionStart": "session_start", "UserPromptSubmit": "prompt", "Stop": "stop"},
        {"session_start": 4.0, "prompt": 4.0, "stop": 15.0},
        {"session_start": 10, "prompt": 10, "stop": 20},
        ask_tool="ask",
    )
    monkeypatch.setitem(client_table.CLIENTS, "zed", row)
    home = Path(isolated_home).parent / "home"
    (home / ".zed").mkdir()

    zed = from_table.client("zed")
    result = zed.register(jsonfile.Writer())
    assert result.ok, result.lines
    written = json.loads((home / ".zed" / "settings.json").read_text(encoding="utf-8"))
    assert list(written["hooks"]) == list(row.events)
    for event, kind in row.events.items():
        (group,) = written["hooks"][event]
        (hook,) = group["hooks"]
        assert hook["timeout"] == row.registered[kind] and hook["command"].endswith(f"zed {event}")
    assert json.loads((home / ".zed" / "mcp.json").read_text(encoding="utf-8"))["mcpServers"]
    assert zed.status() and not any(v in ("missing", "stale") for v in zed.status().values())

    assert hook_relay.client_table.route("zed", "UserPromptSubmit") == ("prompt", 4.0)
    asked: list[tuple[str, dict[str, Any]]] = []

    def ask(op: str, params: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        asked.append((op, params))
        return {"context": "规则：回答用中文"}

    raw = json.dumps({"session_id": "s1", "prompt": "怎么部署支付页", "cwd": str(home)}).encode()
    out, kind = handler.handle("zed", "UserPromptSubmit", raw, {}, ask=ask, log=lambda line: None)
    assert kind == "prompt" and asked[0][0] == "hook_prompt" and asked[0][1]["client"] == "zed"
    body = json.loads(out)["hookSpecificOutput"]
    assert body == {"hookEventName": "UserPromptSubmit", "additionalContext": "规则：回答用中文"}
    assert type(adapters.load("zed")).__name__ == "Adapter"  # the default one
    adapters._LOADED.pop("zed", None)


# -- a client is one module ----------------------------------------------------------------------------
CLIENT_WORD = re.compile("|".join(re.escape(n) for n in clients.CLIENTS), re.IGNORECASE)


def client_mentions(source: str) -> list[str]:
    """Every identifier and string in `source` (docstrings and comments aside) that names a
    client, such as `if client == "claude"`, a `~/.cursor` path or a `codebuddy_legacy` import."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found: list[str] = []
    for node in ast.walk(tree):
        words: list[Any] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words = [node.value]
        elif isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            words = [node.name]
        elif isinstance(node, ast.arg):
            words = [node.arg]
        elif isinstance(node, ast.alias):
            words = [node.name, node.asname]
        elif isinstance(node, ast.ImportFrom):
            words = [node.module]
        found += [w for w in words if isinstance(w, str) and CLIENT_WORD.search(w)]
    return found


def test_the_check_finds_what_it_is_meant_to_find() -> None:
    sample = (
        '"""Claude Code and Cursor, in a docstring: fine."""\n'
        "from .codebuddy_legacy import seed  # a comment about WorkBuddy: fine\n"
        'def files(client):\n    if client == "claude":\n        return home() / ".cursor"\n'
        "def place_workbuddy_skill(): pass\n"
    )
    assert set(client_mentions(sample)) == {
        "codebuddy_legacy",
        "claude",
        ".cursor",
        "place_workbuddy_skill",
    }


def test_nothing_in_the_installer_outside_the_registry_names_a_client() -> None:
    """Adding a client: one module in installer/clients/ (and one line in its REGISTRY), one
    adapter in hooks/clients/. Everything else in installer/ is the same for every client."""
    outside = sorted(p for p in INSTALLER.rglob("*.py") if "clients" not in p.relative_to(INSTALLER).parts)
    assert outside and all(not CLIENT_WORD.search(p.stem) for p in outside)
    mentions = {str(p.relative_to(REPO)): client_mentions(p.read_text(encoding="utf-8")) for p in outside}
    assert {path: found for path, found in mentions.items() if found} == {}


def test_every_registry_module_holds_exactly_its_client() -> None:
    for name in _module_names(INSTALLER / "clients"):
        module = importlib.import_module(f"memevo.installer.clients.{name}")
        assert module.CLIENT.name == name and clients.get(name) is module.CLIENT
        assert isinstance(module.CLIENT, clients.Client) and module.CLIENT.display
        assert module.CLIENT.events and module.CLIENT.timeouts
    with pytest.raises(ValueError, match="unknown client"):
        clients.get("vim")


def test_no_layer_above_writes_the_client_list_out() -> None:
    """cli/, mcpserver/ and desktop/ read the list from the registry: no literal list, tuple, set or dict of
    two or more client names there (one name alone, for a client-specific page, is fine)."""
    names = set(clients.CLIENTS)
    found = []
    for folder in ("cli", "desktop", "installer", "mcpserver"):
        for path in sorted((REPO / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                items = (
                    node.keys
                    if isinstance(node, ast.Dict)
                    else node.elts
                    if isinstance(node, (ast.List, ast.Tuple, ast.Set))
                    else []
                )
                named = [i.value for i in items if isinstance(i, ast.Constant) and i.value in names]
                if len(named) >= 2:
                    found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert found == []


def test_operation_names_are_snake_case_and_the_dotted_ones_still_answer() -> None:
    """One style for the operation table; a hook or MCP server of the version before an upgrade
    in place may still send a dotted name, which reaches the same operation."""
    from memevo.core.ops import table
    from memevo.core.service import routes  # registers every operation

    assert routes.TABLE and all(re.fullmatch(r"[a-z]+(_[a-z0-9]+)*", name) for name in table.TABLE)
    for old, new in table.RENAMED.items():
        assert "." in old and table.find(old) is table.find(new)
