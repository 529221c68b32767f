"""The minimal tray host: an icon, a status tooltip, quit — and the memory service inside
the Qt event loop (qasync). The tray issue grows this into the full app."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from typing import Any

from memevo.core.service.host import ServiceHost
from memevo.core.service.server import InstanceLock, hosted_service, setup_logging


def _icon(color: str):  # type: ignore[no-untyped-def]
    from memevo.desktop.qt import QColor, QIcon, QPainter, QPixmap, Qt

    pixmap = QPixmap(64, 64)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor(color))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawEllipse(6, 6, 52, 52)
    painter.end()
    return QIcon(pixmap)


STATE_COLORS = {
    "working": "#2e7d32",
    "learning-off": "#f9a825",
    "paused": "#9e9e9e",
    "problem": "#c62828",
    "loading": "#90a4ae",
}


def tray_state(host: ServiceHost) -> tuple[str, str]:
    """(state, tooltip): what the icon shows and how to fix it."""
    from memevo.core import config as config_mod
    from memevo.core import learning

    config = config_mod.load()
    if host.engine_error:
        return (
            "problem",
            f"memevo: {host.engine_error}. Run `memevo model provision` in a terminal to see why.",
        )
    if config.problems:
        return "problem", f"memevo: config.json has a problem: {config.problems[0]}"
    if not config["enabled"]:
        return "paused", "memevo: paused — nothing is injected or learned. Resume from this menu."
    if host.engine is None:
        return "loading", "memevo: loading the model…"
    count = len(host.engine.index)
    if not learning.state(config, host.has_api_key()).active:
        return (
            "learning-off",
            f"memevo: {count} memories recalled; learning is off — run `memevo setup` to configure the side API.",
        )
    return "working", f"memevo: working — {count} memories"


class Tray:
    def __init__(self, host: ServiceHost, quit_event: asyncio.Event, confirmations: Any = None) -> None:
        from memevo.desktop.qt import QAction, QMenu, QSystemTrayIcon

        self.host = host
        self.confirmations = confirmations
        self.icon = QSystemTrayIcon(_icon(STATE_COLORS["loading"]))
        self.menu = QMenu()
        self.status_action = QAction("memevo: starting…")
        self.status_action.setEnabled(False)
        self.pending_action = QAction("待确认的记忆 (0)")
        self.pending_action.triggered.connect(self.show_pending)
        self.pause_action = QAction("暂停记忆")
        self.pause_action.triggered.connect(self.toggle_pause)
        self.confirm_action = QAction("写入前确认")
        self.confirm_action.setCheckable(True)
        self.confirm_action.triggered.connect(self.toggle_confirm)
        self.clients_menu = QMenu("客户端")
        self.panel_action = QAction("打开面板")
        self.panel_action.triggered.connect(self.open_panel)
        self.panel: Any = None
        quit_action = QAction("退出 memevo")
        quit_action.triggered.connect(quit_event.set)
        for action in (
            self.status_action,
            None,
            self.panel_action,
            self.pending_action,
            self.pause_action,
            self.confirm_action,
        ):
            self.menu.addSeparator() if action is None else self.menu.addAction(action)
        self.menu.addMenu(self.clients_menu)
        self.menu.addSeparator()
        self.menu.addAction(quit_action)
        self._actions = [
            self.status_action,
            self.pending_action,
            self.pause_action,
            self.confirm_action,
            quit_action,
        ]
        self.icon.setContextMenu(self.menu)
        self.state = "loading"
        self.refresh()
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.icon.show()

    def refresh(self) -> None:
        from memevo.core import config as config_mod
        from memevo.core.side import jobs

        self.state, tooltip = tray_state(self.host)
        self.status_action.setText(tooltip)
        self.icon.setToolTip(tooltip)
        self.icon.setIcon(_icon(STATE_COLORS[self.state]))
        config = config_mod.load()
        self.pause_action.setText("恢复记忆" if not config["enabled"] else "暂停记忆")
        self.confirm_action.setChecked(bool(config["confirm"]))
        self.pending_action.setText(f"待确认的记忆 ({len(jobs.pending(self.host.store))})")
        self._refresh_clients()

    def _refresh_clients(self) -> None:
        from memevo.core import ops

        self.clients_menu.clear()
        activity = ops.dispatch(self.host.ctx, "hook_activity", {"limit": 1})["hooks"]
        if not activity:
            self.clients_menu.addAction("还没有客户端的 hook 触发过").setEnabled(False)
        for row in activity:
            label = (
                f"{row['client']} · {row['event']}：{row['last'][:19].replace('T', ' ')}（{row['count']} 次）"
            )
            self.clients_menu.addAction(label).setEnabled(False)

    def open_panel(self) -> None:
        from memevo.desktop.panel import Panel

        if self.panel is None:
            self.panel = Panel(self.host, self.confirmations)
        else:
            self.panel.memories.model.reload()
        self.panel.show()
        self.panel.raise_()
        self.panel.activateWindow()

    def toggle_pause(self) -> None:
        from memevo.core import config as config_mod

        if config_mod.load()["enabled"]:
            config_mod.set_key("enabled", False)
        else:
            config_mod.unset_key("enabled")
        self.host.refresh_caches()
        self.refresh()

    def toggle_confirm(self) -> None:
        from memevo.core import config as config_mod

        config_mod.set_key("confirm", self.confirm_action.isChecked())
        self.refresh()

    def show_pending(self) -> None:
        if self.confirmations is not None:
            self.confirmations.dismissed_ids.clear()  # the user asked to see them again
            self.confirmations.reopen_shown()
            self.confirmations.poll()


def main(self_test: bool = False, wait_lock_s: float = 0.0) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen" if not os.environ.get("DISPLAY") else "xcb")
    import qasync
    from memevo.desktop.qt import QApplication

    setup_logging("service")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    lock = InstanceLock()
    lock.acquire(wait_lock_s)
    try:
        return int(qasync.run(_run(self_test)))
    finally:
        lock.release()


async def _run(self_test: bool) -> int:
    from memevo.desktop.confirm import ConfirmQueue, run_queue

    quit_event = asyncio.Event()
    async with hosted_service() as (host, server, endpoint):
        host.desktop = True
        confirmations = ConfirmQueue(host)
        tray = Tray(host, quit_event, confirmations)
        confirmations.resolved.connect(lambda _job, message: tray.icon.showMessage("memevo", message))
        queue_task = asyncio.ensure_future(run_queue(confirmations, quit_event))
        loader = threading.Thread(target=host.load_engine, daemon=True)  # never on the UI thread
        loader.start()
        assert server.stopping is not None
        stop_task = asyncio.ensure_future(server.stopping.wait())
        quit_task = asyncio.ensure_future(quit_event.wait())
        while not (stop_task.done() or quit_task.done()):
            tray.refresh()
            if self_test and (host.engine is not None or host.engine_error):
                break
            await asyncio.wait({stop_task, quit_task}, timeout=0.5)
        for task in (stop_task, quit_task, queue_task):
            task.cancel()
        if self_test:
            print(f"self-test: service on {endpoint}, model ready: {host.engine is not None}")
            return 0 if host.engine is not None else 1
        return 0
