"""The panel window: memories, what past sessions propose, trash, pending proposals, the
injection log, status, sharing and settings.

Heavy work (store queries, writes that rewrite memories.html, encoding) runs on each view's
worker thread; the window only lays out answers."""

from __future__ import annotations

from typing import Any

from .i18n import tr
from .logview import RowsModel
from .memories_view import MemoriesView
from .memtable import PAGE, group_name
from .qt import (
    QAbstractItemView,
    QLabel,
    QMainWindow,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from .worker import OffUi

__all__ = ["PAGE", "MemoriesView", "Panel", "TrashView"]


class TrashView(QWidget):
    """The trash (kept 30 days), with restore."""

    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.worker = OffUi(parent=self)
        layout = QVBoxLayout(self)
        self.list = QTableView()
        self.model = TrashModel(host, self.worker)
        self.list.setModel(self.model)
        self.list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        from .qt import QHeaderView

        header = self.list.horizontalHeader()  # the text takes the room; the time is never cut
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(QLabel(tr("The trash keeps memories for 30 days.")))
        layout.addWidget(self.list)
        self.restore_button = QPushButton(tr("Restore"))
        self.restore_button.clicked.connect(self.restore)
        self.restore_button.setEnabled(False)  # until a deleted memory is selected
        self.list.selectionModel().selectionChanged.connect(
            lambda *_: self.restore_button.setEnabled(self.list.selectionModel().hasSelection())
        )
        self.model.modelReset.connect(lambda: self.restore_button.setEnabled(False))
        layout.addWidget(self.restore_button)
        # What Restore did: on a real display the row just vanished, and a failure was only logged.
        self.message = QLabel("")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)

    def restore(self) -> None:
        from .undo import id_list

        rows = sorted({i.row() for i in self.list.selectionModel().selectedRows()})
        ids = [self.model.items[row]["id"] for row in rows]
        if not ids:  # the button waits for a selection; a call without one restores nothing
            self.message.setText(tr("Select the memories to restore first."))
            return
        self.restore_button.setEnabled(False)  # one restore at a time

        def work() -> None:
            for memory_id in ids:
                self.host.handle("restore", {"id": memory_id})

        def done(_none: Any) -> None:
            self.message.setText(tr("Restored {names}: back in Memories.").format(names=id_list(ids)))
            self.model.reload()

        def failed(exc: Exception) -> None:
            self.message.setText(tr("Restore failed: {error}").format(error=exc))
            self.model.reload()

        self.worker.run(work, done, failed)


class TrashModel(RowsModel):
    """The trash as rows; `items` keeps the memories behind them (for restore)."""

    def __init__(self, host: Any, worker: OffUi) -> None:
        super().__init__([tr("Text"), tr("Group"), tr("Deleted")])
        self.host = host
        self.worker = worker
        self.items: list[dict[str, Any]] = []
        self.reload()

    def reload(self) -> None:
        """Read on the view's worker: the UI thread never waits for the store."""
        self.worker.run(lambda: self.host.handle("trash", {})["trash"], self._show)

    def _show(self, items: list[dict[str, Any]]) -> None:
        self.items = items
        self.set_rows(
            [[i["text"], group_name(i["category"]), i["deleted"][:16].replace("T", " ")] for i in items]
        )


class Panel(QMainWindow):
    def __init__(self, host: Any, confirmations: Any = None) -> None:
        from .backfill_view import BackfillView
        from .logview import InjectionLogView, ProposalsView
        from .settings import SettingsView
        from .sharing_view import SharingView
        from .status import StatusView

        super().__init__()
        self.setWindowTitle(tr("memevo — memories"))
        self.resize(1100, 680)
        self.tabs = QTabWidget()
        self.memories = MemoriesView(host)
        self.backfill = BackfillView(host)
        self.trash = TrashView(host)
        self.proposals = ProposalsView(host, confirmations)
        self.injections = InjectionLogView(host)
        self.status = StatusView(host)
        self.sharing = SharingView(host)
        self.settings = SettingsView(host)
        self.views: dict[str, QWidget] = {
            "memories": self.memories,
            "backfill": self.backfill,
            "trash": self.trash,
            "proposals": self.proposals,
            "injections": self.injections,
            "status": self.status,
            "sharing": self.sharing,
            "settings": self.settings,
        }
        titles = [
            tr("Memories"),
            tr("From past sessions"),
            tr("Trash"),
            tr("Pending"),
            tr("Injection log"),
            tr("Status"),
            tr("Sharing"),
            tr("Settings"),
        ]
        for view, title in zip(self.views.values(), titles, strict=True):
            self.tabs.addTab(view, title)
        self.tabs.currentChanged.connect(lambda _index: self.reload_current())
        self.setCentralWidget(self.tabs)

    def show_view(self, name: str) -> None:
        """'panel' or an unknown name keeps the current tab."""
        view = self.views.get(name)
        if view is not None:
            self.tabs.setCurrentWidget(view)

    def reload_current(self) -> None:
        current = self.tabs.currentWidget()
        if current is self.memories:
            self.memories.model.reload()
            self.memories.memory_actions.refresh_undo()
        elif current is self.trash:
            self.trash.model.reload()
        elif current is self.settings:
            self.settings.reload()
        elif hasattr(current, "refresh"):
            current.refresh()
