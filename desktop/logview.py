"""The panel's injection log: per prompt, what was injected, the prompt it answered (a short
excerpt, secrets redacted), its size and which memories; filtered by client. And the pending proposals, each reopened in the confirmation dialog."""

from __future__ import annotations

from typing import Any

from ..core.learning import jobs
from ..installer.clients import CLIENTS
from .client_texts import client_label
from .clients_menu import event_label
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
    """A small read-only table of already formatted rows; `tips` (same shape, optional) are
    what a cell says on hover — the whole text where the cell shows a shortened one."""

    def __init__(self, headers: list[str]) -> None:
        super().__init__()
        self.headers = headers
        self.rows: list[list[str]] = []
        self.tips: list[list[str]] = []

    def set_rows(self, rows: list[list[str]], tips: list[list[str]] | None = None) -> None:
        self.beginResetModel()
        self.rows = rows
        self.tips = tips or []
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
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.ToolTipRole and index.row() < len(self.tips):
            return self.tips[index.row()][index.column()] or None
        return None


REFRESH_MS = 5000  # while the log is on screen, new injections show up by themselves


class InjectionLogView(QWidget):
    """Per injection: when, which client and session (the whole id on hover), which hook, what
    it answered (the prompt's excerpt; a session start has none, an old row did not keep it),
    its size, and the memories injected — their texts, each with its id (a deleted one says so)."""

    def __init__(self, host: Any) -> None:
        from .qt import QHBoxLayout, QTimer

        super().__init__()
        self.host = host
        self.worker = OffUi("memevo-log", self)  # before the combo box: filling it refreshes
        layout = QVBoxLayout(self)
        bar = QHBoxLayout()
        self.client = QComboBox()
        self.client.addItem(tr("All clients"), None)
        for name in CLIENTS:
            self.client.addItem(client_label(name), name)
        self.client.currentIndexChanged.connect(self.refresh)
        bar.addWidget(self.client)
        self.refresh_button = QPushButton(tr("Refresh"))
        self.refresh_button.clicked.connect(self.refresh)
        bar.addWidget(self.refresh_button)
        bar.addStretch(1)
        layout.addLayout(bar)
        self.model = RowsModel(
            [
                tr("Time"),
                tr("Client"),
                tr("Session"),
                tr("Event"),
                tr("Prompt or tool call"),
                tr("Characters"),
                tr("Memories"),
            ]
        )
        self.table = _table(self.model, wide=(4, 6))  # the prompt and the memories share the width
        layout.addWidget(self.table)
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self._tick)
        self.refresh()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.timer.start()

    def hideEvent(self, event: Any) -> None:
        super().hideEvent(event)
        self.timer.stop()

    def _tick(self) -> None:
        if not self.worker.busy:  # a slow read is not queued up behind itself
            self.refresh()

    def refresh(self) -> None:
        """The log is read on the view's worker: the UI thread never waits for the store."""
        wanted = self.client.currentData()

        def show(found: dict[str, Any]) -> None:
            rows, tips = [], []
            for i in found["injections"]:
                if wanted is not None and i["client"] != wanted:
                    continue
                texts = [_injected(memory_id, found["texts"].get(memory_id)) for memory_id in i["memory_ids"]]
                session = i["session"] or ""
                asked, asked_tip = prompt_cell(i["event"], i.get("prompt"))
                rows.append(
                    [
                        i["ts"][:19].replace("T", " "),
                        client_label(i["client"]),
                        session[:12] + ("…" if len(session) > 12 else ""),
                        event_label(i["event"]),
                        asked,
                        str(i["chars"]),
                        " · ".join(texts),
                    ]
                )
                tips.append(["", "", session, "", asked_tip, "", "\n".join(texts)])
            self.model.set_rows(rows, tips)
            self.table.resizeColumnsToContents()

        self.worker.run(lambda: self.host.handle("hook_activity", {"limit": 500, "client": wanted}), show)


def prompt_cell(event: str, asked: str | None) -> tuple[str, str]:
    """What an injection answered, and its tooltip: the prompt's excerpt (whole on hover), or
    why there is none — said plainly rather than left blank."""
    if asked is not None:
        return asked, asked
    if event == "session_start":
        return tr("(none: a session start has no prompt)"), ""
    if event == "stop":
        return tr("(none: the end of a turn has no prompt)"), ""
    return tr("(not kept)"), tr(
        "Logged before memevo kept an excerpt of each prompt, or removed when a memory was purged."
    )


def _injected(memory_id: str, text: str | None) -> str:
    if text is None:
        return tr("#{id} (deleted since)").format(id=memory_id)
    return tr("#{id} {text}").format(id=memory_id, text=text)


class ProposalsView(QWidget):
    def __init__(self, host: Any, confirmations: Any = None) -> None:
        super().__init__()
        self.host = host
        self.confirmations = confirmations
        self.worker = OffUi("memevo-proposals", self)
        layout = QVBoxLayout(self)
        self.model = RowsModel([tr("Client"), tr("The user's words"), tr("Proposal"), tr("State")])
        self.table = _table(self.model, wide=(1, 2))  # the words and the proposal share the width
        layout.addWidget(self.table)
        self.open_button = QPushButton(tr("Confirm one by one"))
        self.open_button.clicked.connect(self.open_dialogs)
        layout.addWidget(self.open_button)
        self.refresh()

    def refresh(self) -> None:
        """The pending proposals, read on the view's worker."""
        from .confirm_texts import describe  # the dialog's words, in the UI language

        def show(pending: list[jobs.Job]) -> None:
            self.model.set_rows(
                [
                    [client_label(j.client), j.words or "", describe(j.proposal or {}), _job_state(j.status)]
                    for j in pending
                ]
            )
            self.table.resizeColumnsToContents()

        self.worker.run(lambda: jobs.pending(self.host.store), show)

    def open_dialogs(self) -> None:
        if self.confirmations is not None:
            self.confirmations.dismissed_ids.clear()
            self.confirmations.reopen_shown()
            self.confirmations.poll()
        self.refresh()


def _table(model: RowsModel, wide: tuple[int, ...] = ()) -> QTableView:
    """wide: the columns of free text, which share the room left; the others fit their content."""
    from .qt import QHeaderView

    table = QTableView()
    table.setModel(model)
    table.setWordWrap(False)
    header = table.horizontalHeader()
    header.setStretchLastSection(not wide)
    for column in wide:
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
    return table


def _job_state(status: str) -> str:
    return {"ready": tr("waiting"), "shown": tr("shown, not answered")}.get(status, status)
