"""The client registry: the install side (installer/clients/) and the hook side (hooks/clients/)
know the same clients with the same events, the constants the hooks copy from core (they may
import nothing of ours) stay equal to core's, and a client lives in one module on each side."""

from __future__ import annotations

import ast
import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from memevo.installer import clients, hook_command

REPO = Path(__file__).resolve().parents[1]
HOOKS = REPO / "hooks"
INSTALLER = REPO / "installer"


@pytest.fixture
def hook_side(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, ModuleType]]:
    """The hook side's modules as the hook executable imports them (top-level `hookio`,
    `clients`), dropped again afterwards so no other test sees them."""
    monkeypatch.syspath_prepend(str(HOOKS))
    try:
        modules = {"hookio": importlib.import_module("hookio"), "clients": importlib.import_module("clients")}
        modules["clients.base"] = importlib.import_module("clients.base")
        yield modules
    finally:
        for name in [m for m in sys.modules if m in ("hookio", "clients") or m.startswith("clients.")]:
            del sys.modules[name]


def _module_names(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.py") if p.stem not in ("__init__", "base"))


# -- the two sides agree -------------------------------------------------------------------------------
def test_the_registry_and_the_hook_adapters_name_the_same_clients_in_the_same_order(
    hook_side: dict[str, ModuleType],
) -> None:
    assert tuple(hook_side["clients"].REGISTRY) == clients.CLIENTS == clients.names()
    assert _module_names(INSTALLER / "clients") == _module_names(HOOKS / "clients") == sorted(clients.CLIENTS)


def test_each_adapter_handles_exactly_the_events_its_client_registers(
    hook_side: dict[str, ModuleType],
) -> None:
    from memevo.core.service import fallback_texts as caches

    for client in clients.REGISTRY:
        adapter = hook_side["clients"].load(client.name)
        assert adapter.name == client.name
        assert adapter.events == client.events, client.name  # same events, same kinds
        assert list(adapter.events) == list(client.events), client.name  # and the same order
        assert set(client.timeouts) == set(client.events.values()), client.name  # a timeout per kind
        for kind, registered in client.timeouts.items():  # the hook answers before the client gives up
            assert adapter.timeouts[kind] <= registered - 1.5, (client.name, kind)
        assert adapter.flavor in caches.FLAVORS, client.name  # the service has its wording
        assert adapter.max_chars <= caches.DEFAULT_MAX_CHARS, client.name


def test_constants_copied_across_the_hook_boundary_equal_cores(
    hook_side: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memevo.core import paths
    from memevo.core.learning import stop
    from memevo.core.service import protocol, texts

    base, hookio = hook_side["clients.base"], hook_side["hookio"]
    assert base.CONFIRM_MARKER == texts.CONFIRM_MARKER
    assert base.PLUGIN_NOTICE == stop.NOTICE
    assert hookio.PROTOCOL_VERSION == protocol.PROTOCOL_VERSION
    assert Path(hookio.data_dir()) == paths.data_dir()  # MEMEVO_HOME, as the tests set it
    monkeypatch.delenv(paths.HOME_ENV)
    assert Path(hookio.data_dir()) == paths.data_dir()  # the default folder under HOME
    source = (HOOKS / "hookio.py").read_text(encoding="utf-8")
    for name in (protocol.socket_path().name, protocol.endpoint_path().name):
        assert f'"{name}"' in source, name  # where the hooks find the service
    # The hook file the installer registers is the one the hook side ships.
    assert (HOOKS / hook_command.HOOK_FILE).is_file() and hook_command.hook_script().parent == HOOKS.resolve()


def test_cores_own_per_client_table_covers_every_client() -> None:
    """core may not import the installer: its one per-client table (the question tool each client
    offers the model, for in-chat confirmation) is pinned to the registry here instead."""
    from memevo.core.learning import stop

    assert tuple(stop.ASK_TOOL) == clients.CLIENTS


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
