"""The tray icon's states and menu (pytest-qt, offscreen) against a real store."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from deadlines import HANG_MS
from memevo.core import config as config_mod
from memevo.core.clock import FakeClock
from memevo.core.learning import jobs
from memevo.core.service.host import ServiceHost
from memevo.core.store.database import Store
from memevo.desktop.confirm import ConfirmQueue
from memevo.desktop.tray import Tray
from memevo.installer import messages


class _Engine:
    """Stands in for the loaded model: the tray only asks how many memories it indexes."""

    index = ("a", "b")

    def save_lexical(self) -> None:  # the host saves the lexical index as it closes
        pass


def _tray(qtbot: Any, host: ServiceHost) -> tuple[Tray, ConfirmQueue]:
    queue = ConfirmQueue(host)
    tray = Tray(host, asyncio.Event(), queue)
    settle(qtbot, tray)
    return tray, queue


def settle(qtbot: Any, tray: Tray) -> None:
    """The tray reads and writes the store only on its workers: wait until both are idle."""
    queue = tray.confirmations
    qtbot.waitUntil(lambda: not tray.worker.busy and (queue is None or not queue.busy), timeout=HANG_MS)


def test_icon_states_and_tooltips(qtbot, host: ServiceHost, monkeypatch: pytest.MonkeyPatch) -> None:
    tray, _ = _tray(qtbot, host)
    assert tray.state == "loading"
    host.engine = _Engine()  # type: ignore[assignment]
    monkeypatch.delenv("MEMEVO_SIDE_API_KEY", raising=False)
    host.ctx.keys._checked = (-1e9, False)
    tray.refresh()  # automatic, no side API: the coding assistant's own model proposes
    assert (
        tray.state == "working"
        and tray.icon.toolTip() == "memevo：运行中——2 条记忆\n学习：由你的编程助手的模型提议记忆。"
    )
    monkeypatch.setenv("MEMEVO_SIDE_API_KEY", "sk-test-0000000000")
    host.ctx.keys._checked = (-1e9, False)
    config_mod.set_key("sideApiBase", "http://127.0.0.1:9/v1")
    config_mod.set_key("sideApiModel", "judge")
    tray.refresh()
    settle(qtbot, tray)
    assert tray.state == "working" and "2 条记忆" in tray.icon.toolTip()
    assert tray.icon.toolTip().endswith("学习：由旁路模型提议记忆。")
    assert "召回线索" not in tray.icon.toolTip()
    host.ctx.learner.start()
    assert host.ctx.learner.runner is not None
    host.ctx.learner.runner.cue_error = "the side API answered HTTP 500"
    tray.refresh()
    settle(qtbot, tray)
    assert tray.state == "working" and "the side API answered HTTP 500" in tray.icon.toolTip()
    host.ctx.learner.runner.cue_error = None
    tray.toggle_pause()
    settle(qtbot, tray)
    assert tray.state == "paused" and tray.pause_action.text() == "恢复记忆"
    assert config_mod.load()["enabled"] is False
    tray.toggle_pause()
    settle(qtbot, tray)
    assert tray.state == "working" and "enabled" not in config_mod.read_raw(config_mod.paths.config_path())
    host.ctx.engine_error = "the model could not be loaded: disk full"
    tray.refresh()
    settle(qtbot, tray)
    assert tray.state == "problem" and "memevo model provision" in tray.icon.toolTip()


def test_learning_off_says_why(qtbot, host: ServiceHost, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMEVO_SIDE_API_KEY", raising=False)
    host.ctx.keys._checked = (-1e9, False)
    tray, _ = _tray(qtbot, host)
    host.engine = _Engine()  # type: ignore[assignment]
    config_mod.set_key("learning", "off")
    tray.refresh()
    settle(qtbot, tray)
    assert tray.state == "learning-off"
    assert tray.icon.toolTip() == "memevo：已存 2 条记忆；学习已关闭（你在“设置”里选择了关闭）。"
    config_mod.set_key("learning", "side")  # chosen, but its API is not set up
    tray.refresh()
    settle(qtbot, tray)
    assert tray.state == "learning-off" and "旁路接口还没配置" in tray.icon.toolTip()
    config_mod.set_key("learning", "client")
    tray.refresh()
    settle(qtbot, tray)
    assert tray.state == "working" and "编程助手的模型提议记忆" in tray.icon.toolTip()
    config_mod.unset_key("learning")  # the Node tool's blocking mode keeps automatic off until setup
    raw = config_mod.read_raw(config_mod.paths.config_path())
    config_mod.paths.config_path().write_text(json.dumps(raw | {"sideJudge": False}), encoding="utf-8")
    tray.refresh()
    settle(qtbot, tray)
    assert tray.state == "learning-off" and "memevo setup" in tray.icon.toolTip()


def test_the_status_panel_shows_the_mode_and_todays_proposals_beside_the_side_calls(
    qtbot, host: ServiceHost, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memevo.desktop.status import StatusView

    monkeypatch.delenv("MEMEVO_SIDE_API_KEY", raising=False)
    host.ctx.keys._checked = (-1e9, False)
    config_mod.set_key("proposalsPerDay", 12)
    jobs.create(host.store, "c1", "claude", "s", None, "以后回答我都用中文", clock.now_ms())
    proposal = {"text": "回答问题时一律使用中文", "category": "rule", "action": "create", "origin": "client"}
    jobs.update(
        host.store,
        "c1",
        clock.now_ms(),
        status="ready",
        proposal=proposal | {"day": clock.local_day(clock.now_ms())},
    )
    view = StatusView(host)
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: bool(view.report), timeout=30_000)
    text = view.label.text()
    assert "<b>学习</b>：由你的编程助手的模型提议记忆" in text
    assert "<b>旁路接口</b>" not in text  # no side API configured: no count of its calls
    assert "<b>编程助手的模型提议</b>：今天 1 / 12 条，每个会话最多 8 条" in text
    assert view.report["proposals_today"] == host.ctx.learning_status()["proposals_today"] == 1
    config_mod.set_key("learning", "off")
    view.refresh()
    qtbot.waitUntil(lambda: "已关闭（你选择了关闭）" in view.label.text(), timeout=30_000)


def test_confirmation_toggle_writes_only_that_key(qtbot, host: ServiceHost) -> None:
    tray, _ = _tray(qtbot, host)
    assert tray.confirm_action.isChecked()
    tray.confirm_action.setChecked(False)
    tray.toggle_confirm()
    settle(qtbot, tray)
    assert config_mod.read_raw(config_mod.paths.config_path()) == {"confirm": False}


def test_pending_count_and_reopening_a_closed_proposal(
    qtbot, host: ServiceHost, store: Store, clock: FakeClock
) -> None:
    jobs.create(store, "p1", "claude", "s", None, "以后回答我都用中文", clock.now_ms())
    jobs.update(
        store,
        "p1",
        clock.now_ms(),
        status="ready",
        proposal={"text": "回答问题时一律使用中文", "category": "rule", "action": "create"},
    )
    tray, queue = _tray(qtbot, host)
    assert tray.pending_action.text() == "待确认的记忆 (1)"
    queue.poll()
    settle(qtbot, tray)
    assert queue.current is not None
    queue.current.close()  # decides nothing
    settle(qtbot, tray)
    queue.poll()
    settle(qtbot, tray)
    assert queue.current is None  # not pushed at the user again by itself
    tray.show_pending()  # but the menu brings it back
    settle(qtbot, tray)
    assert queue.current is not None and queue.current.job.id == "p1"


def test_the_menu_stays_narrow_and_the_tooltip_says_all_without_markdown(qtbot, host: ServiceHost) -> None:
    """Issue 31, item 6: the whole tooltip was the menu's first line (about 650 px wide), with
    Markdown backticks, and "recalled" where it meant stored."""
    from memevo.desktop.tray import MENU_LINE_PX

    tray, _ = _tray(qtbot, host)
    host.ctx.store_error = "the store file is damaged"
    tray.refresh_icon()
    whole = tray.icon.toolTip()
    assert "memevo repair" in whole and "`" not in whole
    tray.menu.aboutToShow.emit()  # the status line is fitted as the menu opens (fonts load only then)
    assert tray.status_action.toolTip() == whole and tray.status_action.text().endswith("…")
    assert tray.menu.sizeHint().width() <= MENU_LINE_PX + 120
    host.ctx.store_error = None
    host.engine = _Engine()  # type: ignore[assignment]
    config_mod.set_key("learning", "off")
    tray.refresh_icon()
    assert "已存 2 条记忆" in tray.icon.toolTip() and "召回" not in tray.icon.toolTip()


def test_pending_proposals_is_greyed_when_none_wait(
    qtbot, host: ServiceHost, store: Store, clock: FakeClock
) -> None:
    """Issue 31, item 11: "Pending proposals (0)" did nothing when clicked."""
    tray, _ = _tray(qtbot, host)
    assert tray.pending_action.text() == "没有待确认的记忆" and not tray.pending_action.isEnabled()
    jobs.create(store, "p1", "claude", "s", None, "以后回答我都用中文", clock.now_ms())
    jobs.update(store, "p1", clock.now_ms(), status="ready", proposal={"text": "中文", "category": "rule"})
    tray.refresh_menu()
    settle(qtbot, tray)
    assert tray.pending_action.text() == "待确认的记忆 (1)" and tray.pending_action.isEnabled()
    without_dialog = Tray(host, asyncio.Event(), None)  # no dialog queue: the panel's Pending tab
    settle(qtbot, without_dialog)
    without_dialog.pending_action.trigger()
    qtbot.addWidget(without_dialog.panel)
    assert without_dialog.panel.tabs.currentWidget() is without_dialog.panel.proposals


def test_clients_menu_shows_when_each_hook_last_fired(qtbot, host: ServiceHost) -> None:
    tray, _ = _tray(qtbot, host)
    assert _activity(tray) == ["还没有客户端的 hook 触发过"]
    host.ctx.books.record_hook("cursor", "prompt", 12.5)
    host.ctx.books.flush()
    tray.refresh()
    settle(qtbot, tray)
    labels = _activity(tray)  # the client's and the event's names in words, not identifiers
    assert len(labels) == 1 and labels[0].startswith("Cursor · 提示词：") and "（1 次）" in labels[0]


def _activity(tray: Tray) -> list[str]:
    """The entries after the clients' states (below the separator)."""
    actions = tray.clients_menu.actions()
    first = next(i for i, a in enumerate(actions) if a.isSeparator())
    return [a.text() for a in actions[first + 1 :] if not a.isSeparator()]


def test_clients_menu_shows_registration_and_repairs(
    qtbot, host: ServiceHost, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from memevo.installer import setup_engine as setup
    from memevo.installer import state

    (home / ".claude").rename(home / ".claude-gone")  # three clients: no `claude` binary involved
    setup.run(setup.Choices(), say=lambda line: None, provision_model=lambda progress: None)
    tray, _ = _tray(qtbot, host)
    shown: list[tuple[str, str]] = []
    tray.notifier._show = lambda title, message: shown.append((title, message))
    titles = [a.text() for a in tray.clients_menu.actions() if a.menu()]
    assert titles == [
        "Cursor：hook 和 MCP 服务都已注册",
        "CodeBuddy：hook 和 MCP 服务都已注册",
        "WorkBuddy：hook 和 MCP 服务都已注册",
    ]
    claude = next(a for a in tray.clients_menu.actions() if a.text().startswith("Claude Code"))
    assert claude.text() == "Claude Code：未安装" and claude.menu() is None and not claude.isEnabled()
    hooks = home / ".cursor" / "hooks.json"
    hooks.write_text(json.dumps({"version": 1, "hooks": {}}), encoding="utf-8")
    tray.refresh_menu()
    settle(qtbot, tray)
    cursor = next(a.menu() for a in tray.clients_menu.actions() if a.menu() and a.text().startswith("Cursor"))
    assert [a.text() for a in cursor.actions() if not a.isSeparator()][:2] == [
        "hook：缺失",
        "MCP 服务：已注册",
    ]
    tray.repair_client("cursor")
    settle(qtbot, tray)
    assert "memevo_hook.py" in hooks.read_text() and shown and "Cursor" in shown[-1][0]
    not_json = messages.Message(
        messages.NOT_JSON, path="settings.json", line=1, column=2, why="Expecting value"
    )
    read_only = messages.Message(messages.READ_ONLY, path="mcp.json")
    # the watcher's reason: problems joined, each keeping its code
    tray.on_repair_failed("codebuddy", messages.joined([not_json, read_only]))
    assert (
        tray.state == "problem"
        and "CodeBuddy" in tray.icon.toolTip()
        and "settings.json 不是有效的 JSON（第 1 行第 2 列），没有改动它。" in tray.icon.toolTip()
        and "；mcp.json 是只读的，没有改动它。" in tray.icon.toolTip()
    )
    tray.on_repaired("codebuddy", ["hooks"])
    tray.refresh_icon()
    assert tray.state != "problem"
    tray.set_repairs("cursor", False)  # the menu's Stop repairing
    settle(qtbot, tray)
    assert state.client("cursor")["repair"] is False
    assert "Cursor：hook 和 MCP 服务都已注册；已停止自动修复" in [
        a.text() for a in tray.clients_menu.actions() if a.menu()
    ]


def test_open_panel_from_the_menu(qtbot, host: ServiceHost, clock: FakeClock) -> None:
    from memevo.core.memories import live as memories

    memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    tray, _ = _tray(qtbot, host)
    tray.panel_action.trigger()
    assert tray.panel is not None
    qtbot.addWidget(tray.panel)
    qtbot.waitUntil(lambda: not tray.panel.memories.worker.busy)
    assert tray.panel.memories.model.total == 1
    tray.settings_action.trigger()
    assert tray.panel.tabs.currentWidget() is tray.panel.settings


def test_a_second_start_shows_the_panel_through_the_service(qtbot, host: ServiceHost) -> None:
    """`memevo` while the tray runs: the service's ui.show op reaches the tray's panel."""
    assert host.handle("ui_show", {"view": "panel"})["shown"] is False  # headless: nothing to show
    tray, _ = _tray(qtbot, host)
    asked: list[str] = []
    host.ctx.ui_request = lambda view: (asked.append(view), tray.open_panel(view))
    assert host.handle("ui_show", {"view": "trash"}) == {"shown": True}
    qtbot.addWidget(tray.panel)
    assert asked == ["trash"] and tray.panel.tabs.currentWidget() is tray.panel.trash


def test_notifications_once_per_event(qtbot, host: ServiceHost, clock: FakeClock) -> None:
    tray, _ = _tray(qtbot, host)
    shown: list[tuple[str, str]] = []
    tray.notifier._show = lambda title, message: shown.append((title, message))
    host.ctx.engine_error = "the model could not be loaded: disk full"
    tray.refresh_icon()
    tray.refresh_icon()  # the same problem: no second notification
    assert len(shown) == 1 and "disk full" in shown[0][1]
    jobs.create(host.store, "f1", "claude", "s", None, "以后回答我都用中文", clock.now_ms())
    jobs.update(host.store, "f1", clock.now_ms(), status="failed", error="the side API answered HTTP 401")
    jobs.create(host.store, "f2", "claude", "s2", None, "以后回答我都用中文", clock.now_ms())
    jobs.update(host.store, "f2", clock.now_ms(), status="failed", error="the side API answered HTTP 500")
    tray.check_side_failures()
    settle(qtbot, tray)
    tray.check_side_failures()
    settle(qtbot, tray)
    assert [m for _t, m in shown[1:]] == ["the side API answered HTTP 401"]  # a 500 is routine: no alert


def test_a_click_on_a_notification_changes_no_setting(qtbot, host: ServiceHost) -> None:
    """Clicking a notification is how people dismiss it: repairs stay on."""
    from memevo.installer import state

    tray, _ = _tray(qtbot, host)
    shown: list[tuple[str, str]] = []
    tray.icon.showMessage = lambda title, message: shown.append((title, message))  # type: ignore[method-assign]
    state.update_client("cursor", registered=True, repair=True)
    tray.on_repaired("cursor", ["hooks"])
    before = state.load()
    tray._on_message_clicked()
    settle(qtbot, tray)
    if tray.panel is not None:
        qtbot.addWidget(tray.panel)
    assert state.load() == before and state.client("cursor")["repair"] is True
    assert "停止自动修复这个客户端" in shown[-1][1]  # it says where the explicit action is
    tray.on_repair_failed("codebuddy", "settings.json is not valid JSON")
    assert sum("codebuddy" in (t + m).lower() for t, m in shown) == 1  # one notification for one event


class _DeadLoop(asyncio.SelectorEventLoop):
    """A loop that cannot run on a worker thread, like a Qt loop off the main thread."""

    def run_forever(self) -> None:
        raise RuntimeError("QApplication::exec: Must be called from the main thread")


def test_a_learning_worker_that_cannot_start_turns_the_icon_red_and_notifies(
    qtbot, host: ServiceHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memevo.core.learning import learn
    from memevo.core.process import aioloop

    monkeypatch.setattr(aioloop, "new_private_loop", _DeadLoop)
    monkeypatch.setattr(learn, "START_TIMEOUT_S", 1.0)
    tray, _ = _tray(qtbot, host)
    host.engine = _Engine()  # type: ignore[assignment]
    with pytest.raises(learn.LearningUnavailable):
        host.start_learning()
    tray.refresh()
    settle(qtbot, tray)
    assert tray.state == "problem" and "无法学习" in tray.icon.toolTip()
    assert host.status()["learning_error"] == host.ctx.learner.error
    [(title, message)] = tray.notifier.shown
    assert title == "memevo 需要处理" and "learning worker did not start" in message
    # A prompt does not hide it: learning says so instead of silently dropping the analysis.
    with pytest.raises(learn.LearningUnavailable):
        host.ctx.learner.learn({"client": "claude", "session": "s"}, "记住：回答问题都用中文")


def test_the_ui_thread_never_uses_the_store(qtbot, host: ServiceHost, store: Store, clock: FakeClock) -> None:
    """The tray's UI thread also runs the service's loop: a store query there freezes both. Every
    store use from this thread is recorded (Store.keep_off, as the tray app sets it); the menu,
    the proposals' dialog and every panel view must leave none."""
    import threading

    from memevo.core.memories import live as memories

    memories.create(store, "rule", "回答问题时一律使用中文", clock)
    tray, queue = _tray(qtbot, host)
    store.keep_off(threading.current_thread())
    tray.refresh_menu()
    tray.check_side_failures()
    settle(qtbot, tray)

    def propose() -> None:  # as the learning worker does, off the UI thread
        jobs.create(store, "p1", "claude", "s", None, "以后回答我都用中文", clock.now_ms())
        proposal = {"text": "回答问题时一律使用简体中文", "category": "rule", "action": "create"}
        jobs.update(store, "p1", clock.now_ms(), status="ready", proposal=proposal)

    writer = threading.Thread(target=propose)
    writer.start()
    writer.join()
    qtbot.waitUntil(lambda: queue.current is not None, timeout=HANG_MS)  # pushed, not polled
    queue.current.buttons["create_rule"].click()  # type: ignore[union-attr]
    settle(qtbot, tray)
    tray.toggle_confirm()
    tray.toggle_pause()
    tray.toggle_pause()
    settle(qtbot, tray)
    panel = tray.open_panel()
    qtbot.addWidget(panel)
    for view in panel.views:
        panel.show_view(view)
        settle(qtbot, tray)
    tray.show_pending()
    settle(qtbot, tray)
    assert store.forbidden_uses == [], "the store was used on the UI thread:\n" + "\n---\n".join(
        store.forbidden_uses[:3]
    )
    assert sorted(m.text for m in memories.ranked(store, "rule")) == sorted(  # both kept: equal rank
        ["回答问题时一律使用简体中文", "回答问题时一律使用中文"]
    )
