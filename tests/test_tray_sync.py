"""The tray's `memevo sync`: by hand from its menu and on a timer (syncMinutes), through the
service's operation on a worker of its own, into a real bare remote; nothing is tried before a
remote is set."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest
from deadlines import HANG_MS
from memevo.core import config as config_mod
from memevo.core.service.host import ServiceHost
from memevo.desktop.tray import Tray


def test_the_tray_syncs_by_hand_and_on_its_timer(qtbot: Any, host: ServiceHost, tmp_path: Path) -> None:
    told: list[str] = []
    tray = Tray(host, asyncio.Event())
    tray.sync.notify = lambda key, title, message: told.append(message)
    assert tray.sync.timer.isActive() and tray.sync.timer.interval() == 30 * 60_000  # the default
    assert tray.sync_action in tray.menu.actions()

    tray.refresh_menu()
    assert not tray.sync_action.isEnabled()  # no remote yet: nothing to sync from the menu
    assert tray.sync.run() is False  # no remote yet: says how, runs nothing
    assert "memevo sync REMOTE" in told[0]

    remote = tmp_path / "memories.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True, timeout=30)
    host.handle("sync", {"remote": str(remote)})
    made = host.handle("add", {"category": "rule", "text": "回答问题时请一律使用中文"})["memory"]["id"]
    tray.refresh_menu()  # as the menu does when it opens: a remote now, so the action is enabled
    assert tray.sync_action.isEnabled()
    tray.sync_action.trigger()  # by hand, from the menu
    qtbot.waitUntil(lambda: tray.sync.last is not None, timeout=HANG_MS)
    assert tray.sync.last is not None and tray.sync.last["exported"] == 1 and tray.sync.last["pushed"]
    listed = subprocess.run(
        ["git", "-C", str(remote), "ls-tree", "-r", "--name-only", "main"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout.split()
    assert f"memories/{made}.json" in listed

    config_mod.set_key("syncMinutes", 1)
    tray.sync.restart()
    assert tray.sync.timer.interval() == 60_000
    tray.sync.last = None
    tray.sync.timer.timeout.emit()  # the timer's turn
    qtbot.waitUntil(lambda: tray.sync.last is not None, timeout=HANG_MS)
    assert tray.sync.last is not None and tray.sync.last["exported"] == 0
    config_mod.set_key("syncMinutes", 0)
    tray.sync.restart()
    assert not tray.sync.timer.isActive()


@pytest.mark.parametrize("minutes", [-1, 1441])
def test_sync_minutes_is_bounded(minutes: int) -> None:
    with pytest.raises(Exception, match="syncMinutes"):
        config_mod.set_key("syncMinutes", minutes)


def test_what_a_scheduled_sync_took_from_another_machine_is_said_not_only_its_conflicts(
    qtbot: Any, host: ServiceHost
) -> None:
    """A new rule or a pin from the remote, or a remote deletion, is applied by the tray's own
    sync too: the user hears of it there, named (at most a few), with how to undo it."""
    from memevo.desktop.i18n import tr
    from memevo.desktop.sync_timer import REVIEW_SHOWN

    told: list[tuple[str, str]] = []
    tray = Tray(host, asyncio.Event())
    tray.sync.notify = lambda key, title, message: told.append((title, message))
    review = [
        {"id": f"m{n}", "what": "a new rule from the remote", "text": "…"} for n in range(REVIEW_SHOWN + 2)
    ]
    tray.sync._done({"conflicts": [], "review": review})
    assert len(told) == 1
    title, message = told[0]
    assert title == tr("memevo sync: from your other machines")  # in the UI's language
    assert "#m0 a new rule from the remote" in message and f"#m{REVIEW_SHOWN}" not in message
    assert tr(" and {n} more").format(n=2) in message and "memevo restore" in message
    told.clear()
    tray.sync._done({"conflicts": [], "review": []})
    assert told == []
