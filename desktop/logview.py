"""The panel's injection log: per prompt, what was injected, its size and which memories;
filtered by client. And the pending proposals, each reopened in the confirmation dialog."""

from __future__ import annotations

from typing import Any

from ..core.learning import jobs
from ..installer.clients import CLIENTS
from .i18n import tr
from .qt import (
    QAbstractTableModel,
    QComboBox,
    QModelIndex,
    QPersistentModelIndex,
    QPushButton,
    Qt,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from .worker import OffUi


class RowsModel(QAbstractTableModel):
    """A small read-only table of already formatted rows."""

    def __init__(self, headers: list[str]) -> None:
        super().__init__()
        self.headers = headers
        self.rows: list[list[str]] = []

    def set_rows(self, rows: list[list[str]]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return len(self.headers)

    def headerData(self, section: int, orientation: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.headers[section]
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid() or role != Qt.ItemDataRole.DisplayRole:
            return None
        return self.rows[index.row()][index.column()]


class InjectionLogView(QWidget):
    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.worker = OffUi("memevo-log", self)  # before the combo box: filling it refreshes
        layout = QVBoxLayout(self)
        self.client = QComboBox()
        self.client.addItems([tr("All clients"), *CLIENTS])
        self.client.currentIndexChanged.connect(self.refresh)
        layout.addWidget(self.client)
        self.model = RowsModel(
            [tr("Time"), tr("Client"), tr("Session"), tr("Event"), tr("Characters"), tr("Memories")]
        )
        self.table = _table(self.model)
        layout.addWidget(self.table)
        self.refresh()

    def refresh(self) -> None:
        """The log is read on the view's worker: the UI thread never waits for the store."""
        wanted = None if self.client.currentIndex() == 0 else self.client.currentText()

        def show(log: list[dict[str, Any]]) -> None:
            self.model.set_rows(
                [
                    [
                        i["ts"][:19].replace("T", " "),
                        i["client"],
                        (i["session"] or "")[:12],
                        i["event"],
                        str(i["chars"]),
                        " ".join(i["memory_ids"]),
                    ]
                    for i in log
                    if wanted is None or i["client"] == wanted
                ]
            )
            self.table.resizeColumnsToContents()

        self.worker.run(
            lambda: self.host.handle("hook_activity", {"limit": 500, "client": wanted})["injections"], show
        )


class ProposalsView(QWidget):
    def __init__(self, host: Any, confirmations: Any = None) -> None:
        super().__init__()
        self.host = host
        self.confirmations = confirmations
        self.worker = OffUi("memevo-proposals", self)
        layout = QVBoxLayout(self)
        self.model = RowsModel([tr("Client"), tr("The user's words"), tr("Proposal"), tr("State")])
        self.table = _table(self.model)
        layout.addWidget(self.table)
        self.open_button = QPushButton(tr("Confirm one by one"))
        self.open_button.clicked.connect(self.open_dialogs)
        layout.addWidget(self.open_button)
        self.refresh()

    def refresh(self) -> None:
        """The pending proposals, read on the view's worker."""
        from ..core.learning.stop import describe

        def show(pending: list[jobs.Job]) -> None:
            self.model.set_rows(
                [[j.client, j.words or "", describe(j.proposal or {}), _job_state(j.status)] for j in pending]
            )
            self.table.resizeColumnsToContents()

        self.worker.run(lambda: jobs.pending(self.host.store), show)

    def open_dialogs(self) -> None:
        if self.confirmations is not None:
            self.confirmations.dismissed_ids.clear()
            self.confirmations.reopen_shown()
            self.confirmations.poll()
        self.refresh()


def _table(model: RowsModel) -> QTableView:
    table = QTableView()
    table.setModel(model)
    table.setWordWrap(False)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _job_state(status: str) -> str:
    return {"ready": tr("waiting"), "shown": tr("shown, not answered")}.get(status, status)
