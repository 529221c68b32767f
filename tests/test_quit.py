"""Quit stays quit: after the tray's "Quit memevo" no hook or MCP server starts memevo again
until the user does; the rules still reach each session from the cached texts. Starting it
(the tray app, `memevo serve`, a login start) ends the quit."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import servicerun
from hookrun import run_hook
from memevo.core.service import spawn
from memevo.hooks import wire


def _quit(data_dir: Path) -> Path:
    marker = data_dir / wire.QUIT_FILE
    data_dir.mkdir(parents=True, exist_ok=True)
    marker.write_text("quit\n", encoding="utf-8")
    return marker


def test_after_quit_no_starter_starts_memevo(data_dir: Path) -> None:
    _quit(data_dir)
    assert wire.quit_by_user()
    assert wire.start_service("serve") is None and spawn.start_detached("serve") is False
    cache = data_dir / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "session-start-claude.txt").write_text("【规则】\n- 回答用中文", encoding="utf-8")
    started = run_hook("claude", "SessionStart", json.dumps({"session_id": "q", "source": "startup"}))
    assert started.returncode == 0
    assert "回答用中文" in json.loads(started.stdout)["hookSpecificOutput"]["additionalContext"]
    time.sleep(0.5)
    assert not (data_dir / "service.spawned").exists()  # nothing was started
    log = (data_dir / "logs" / "hooks.log").read_text(encoding="utf-8")
    assert "memevo was quit from its menu" in log


def test_starting_memevo_ends_the_quit(data_dir: Path) -> None:
    marker = _quit(data_dir)
    with servicerun.service(data_dir):
        assert not marker.exists() and not wire.quit_by_user()


def test_the_trays_quit_is_noted(data_dir: Path) -> None:
    from memevo.desktop.tray import Tray

    event = asyncio.Event()

    class Bare:  # Tray.quit needs nothing of the tray but itself
        quit = Tray.quit

    bare: Any = Bare()
    bare.quit(event)
    assert event.is_set() and wire.quit_by_user()
