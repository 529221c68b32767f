"""The minimal tray host: an icon, a status tooltip, quit — and the memory service inside
the Qt event loop (qasync). The tray issue grows this into the full app."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading

from memevo.core.service import protocol
from memevo.core.service.host import ServiceHost
from memevo.core.service.server import InstanceLock, Server, setup_logging, write_info
from memevo.core.store import Store


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


class Tray:
    def __init__(self, host: ServiceHost, quit_event: asyncio.Event) -> None:
        from memevo.desktop.qt import QAction, QMenu, QSystemTrayIcon

        self.host = host
        self.icon = QSystemTrayIcon(_icon("#9e9e9e"))
        self.menu = QMenu()
        self.status_action = QAction("memevo: starting…")
        self.status_action.setEnabled(False)
        quit_action = QAction("Quit memevo")
        quit_action.triggered.connect(quit_event.set)
        self.menu.addAction(self.status_action)
        self.menu.addSeparator()
        self.menu.addAction(quit_action)
        self._actions = [self.status_action, quit_action]
        self.icon.setContextMenu(self.menu)
        self.refresh()
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.icon.show()

    def refresh(self) -> None:
        status = self.host.status()
        if status["model_ready"]:
            text, color = f"memevo: working ({status['memories_indexed']} memories)", "#2e7d32"
        elif status["model_error"]:
            text, color = f"memevo: problem — {status['model_error']}", "#c62828"
        else:
            text, color = "memevo: loading the model…", "#9e9e9e"
        self.status_action.setText(text)
        self.icon.setToolTip(text)
        self.icon.setIcon(_icon(color))


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
    store = Store.open()
    host = ServiceHost(store)
    server = Server(host)
    quit_event = asyncio.Event()
    try:
        write_info(await server.start())
        host.refresh_caches()
        tray = Tray(host, quit_event)
        from memevo.desktop.confirm import ConfirmQueue, run_queue

        host.desktop = True
        confirmations = ConfirmQueue(host)
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
            print(f"self-test: service on {protocol.socket_path()}, model ready: {host.engine is not None}")
            return 0 if host.engine is not None else 1
        return 0
    finally:
        await server.close()
        host.close()
        store.close()
        with contextlib.suppress(FileNotFoundError):
            protocol.info_path().unlink()
