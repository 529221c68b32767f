"""Self-repair with a real watchdog observer on real files: a client rewriting its file without
our hook gets it back (atomic replace and in-place write), foreign entries untouched; a client
removed with `uninstall --only`, or whose repairs were stopped, is left alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import servicerun
from clienthome import FOREIGN_HOOK
from deadlines import CALL_S, HANG_S
from memevo.installer import jsonfile, uninstall, watcher
from memevo.installer import messages as m
from memevo.installer import setup_engine as setup


def _quiet(_line: str) -> None:
    pass


@pytest.fixture
def set_up_home(home: Path) -> Path:
    """`home` after `memevo setup` (the engine, no model): every client registered."""
    assert setup.run(setup.Choices(), say=_quiet, provision_model=lambda progress: None).clients
    return home


@pytest.fixture
def running(set_up_home: Path) -> Iterator[tuple[watcher.RegistrationWatcher, list[str], list[str]]]:
    repaired: list[str] = []
    failed: list[str] = []
    observer = watcher.RegistrationWatcher(
        lambda c, lines: repaired.append(c), lambda c, why: failed.append(why), 0.2
    )
    observer.start()
    time.sleep(0.3)  # the startup check of every registered client finds nothing to do
    assert repaired == []
    yield observer, repaired, failed
    observer.stop()


def _client_rewrites(path: Path, data: dict, atomic: bool = True) -> None:  # type: ignore[type-arg]
    text = json.dumps(data, indent=2)
    if atomic:  # what most editors and clients do: write a temp file, rename it over
        tmp = path.with_name(path.name + ".tmp-client")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    else:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)


def _wait_for(predicate, timeout_s: float = CALL_S) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def _has_ours(path: Path) -> bool:
    return "memevo_hook.py" in path.read_text(encoding="utf-8")


def test_a_rewritten_file_gets_our_hook_back(set_up_home: Path, running) -> None:  # type: ignore[no-untyped-def]
    _observer, repaired, failed = running
    settings = set_up_home / ".claude" / "settings.json"
    data = jsonfile.load(settings)
    data["hooks"] = {"UserPromptSubmit": [{"matcher": "", "hooks": [FOREIGN_HOOK]}]}
    data["newKeyFromAnUpdate"] = True
    _client_rewrites(settings, data)
    # the file is written before the observer reports the repair: wait for both
    assert _wait_for(lambda: _has_ours(settings) and repaired), "the hook was not restored"
    restored = jsonfile.load(settings)
    assert restored["newKeyFromAnUpdate"] is True  # the client's change is kept
    assert restored["hooks"]["UserPromptSubmit"][0] == {"matcher": "", "hooks": [FOREIGN_HOOK]}
    assert repaired == ["claude"] and failed == []
    cursor = set_up_home / ".cursor" / "hooks.json"
    _client_rewrites(cursor, {"version": 1, "hooks": {}}, atomic=False)
    assert _wait_for(lambda: _has_ours(cursor))
    mcp = set_up_home / ".cursor" / "mcp.json"
    _client_rewrites(mcp, {"mcpServers": {"other": {"command": "x"}}})
    assert _wait_for(lambda: "memory-self-evolution" in jsonfile.load(mcp)["mcpServers"])
    assert jsonfile.load(mcp)["mcpServers"]["other"] == {"command": "x"}


def test_removed_on_purpose_or_stopped_is_left_alone(set_up_home: Path, running) -> None:  # type: ignore[no-untyped-def]
    _observer, repaired, _failed = running
    uninstall.run(only="cursor", say=_quiet)
    cursor = set_up_home / ".cursor" / "hooks.json"
    _client_rewrites(cursor, {"version": 1, "hooks": {"stop": [{"command": "other"}]}})
    watcher.stop_repairing("workbuddy")
    workbuddy = set_up_home / ".workbuddy" / "settings.json"
    _client_rewrites(workbuddy, {"language": "en"})
    codebuddy = set_up_home / ".codebuddy" / "settings.json"  # a control: this one is still repaired
    _client_rewrites(codebuddy, {})
    assert _wait_for(lambda: _has_ours(codebuddy))
    time.sleep(1.0)  # well past the debounce of the other two
    assert not _has_ours(cursor) and not _has_ours(workbuddy) and repaired == ["codebuddy"]


def test_a_repair_that_fails_hands_on_its_problems_as_messages(set_up_home: Path) -> None:
    """The reason the tray shows keeps each problem's code (the desktop says it in its language)."""
    failed: list[str] = []
    observer = watcher.RegistrationWatcher(lambda c, lines: None, lambda c, why: failed.append(why), 0.2)
    settings = set_up_home / ".codebuddy" / "settings.json"
    _client_rewrites(settings, {})
    settings.chmod(0o444)  # the user's decision: left untouched, and said
    assert not observer.check("codebuddy")
    assert len(failed) == 1 and isinstance(failed[0], m.Message)
    parts = [failed[0]]
    while parts[-1].code == m.JOINED:  # "a; b": each part as itself
        parts[-1:] = [parts[-1].params["first"], parts[-1].params["rest"]]
    assert m.READ_ONLY in [getattr(p, "code", None) for p in parts]
    settings.chmod(0o644)
    observer._recent["codebuddy"] = [time.monotonic()] * watcher.MAX_REPAIRS
    assert observer._too_often("codebuddy")  # something keeps undoing us: said once, as a message
    assert isinstance(failed[-1], m.Message) and failed[-1].code == m.REPAIRS_STOPPED
    assert failed[-1].startswith("its file lost memevo's entries 3 times within 10 minutes; ")


def test_the_tray_app_repairs_while_it_runs(set_up_home: Path) -> None:
    env = os.environ | {"QT_QPA_PLATFORM": "offscreen", "MEMEVO_LANG": "en"}
    tray = subprocess.Popen([sys.executable, "-m", "memevo.cli", "tray"], env=env, stderr=subprocess.DEVNULL)
    settings = set_up_home / ".claude" / "settings.json"
    try:
        from memevo.core.service.client import call

        servicerun.wait_for(Path(os.environ["MEMEVO_HOME"]), timeout=HANG_S, model=False)
        time.sleep(1.0)
        _client_rewrites(settings, {"hooks": {}})
        assert _wait_for(lambda: _has_ours(settings), timeout_s=CALL_S)
        uninstall.run(only="cursor", say=_quiet)  # the tray app must not re-add it
        cursor = set_up_home / ".cursor" / "hooks.json"
        _client_rewrites(cursor, {"version": 1, "hooks": {}})
        time.sleep(1.5)
        assert not _has_ours(cursor)
        call("shutdown", {}, timeout_s=CALL_S)
        assert tray.wait(timeout=HANG_S) == 0
    finally:
        if tray.poll() is None:
            tray.kill()
            tray.wait()
