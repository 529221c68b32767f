"""The panel's injection log: per prompt, what was injected, the prompt it answered (a short
excerpt, secrets redacted), its size and which memories — or, where it injected none, memevo's
own note it was (the learning reminder) — filtered by client; a row opens its receipts (the
`why` operation: each memory's text and why it passed the gate). And the pending proposals,
each reopened in the confirmation dialog."""

from __future__ import annotations

from typing import Any

from ..core.learning import jobs
from ..installer.clients import CLIENTS
from .client_texts import client_label
from .clients_menu import event_label
from .i18n import plural, tr
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

    def __init__(self, headers: list[str], header_tips: dict[int, str] | None = None) -> None:
        super().__init__()
        self.headers = headers
        self.header_tips = header_tips or {}  # what a column's header says on hover
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
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.header_tips.get(section)
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
            ],
            {5: characters_tip()},
        )
        self.entries: list[dict[str, Any]] = []  # the injections behind the rows, for their receipts
        self.table = _table(self.model, wide=(4, 6))  # the prompt and the memories share the width
        self.table.setToolTip(tr("Double-click a row to see what it injected and why."))
        self.table.doubleClicked.connect(lambda index: self.show_receipt(index.row()))
        self.receipt: Any = None  # the receipt window last opened
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
            rows, tips, entries = [], [], []
            for i in found["injections"]:
                if wanted is not None and i["client"] != wanted:
                    continue
                texts = [_injected(memory_id, found["texts"].get(memory_id)) for memory_id in i["memory_ids"]]
                session = i["session"] or ""
                asked, asked_tip = prompt_cell(i["event"], i.get("prompt"))
                injected, injected_tip = memories_cell(i["event"], texts)
                rows.append(
                    [
                        i["ts"][:19].replace("T", " "),
                        client_label(i["client"]),
                        session[:12] + ("…" if len(session) > 12 else ""),
                        event_label(i["event"]),
                        asked,
                        str(i["chars"]),
                        injected,
                    ]
                )
                tips.append(["", "", session, "", asked_tip, characters_tip(), injected_tip])
                entries.append(i)
            self.entries = entries
            self.model.set_rows(rows, tips)
            self.table.resizeColumnsToContents()

        self.worker.run(lambda: self.host.handle("hook_activity", {"limit": 500, "client": wanted}), show)

    def show_receipt(self, row: int) -> None:
        """A row's receipt in a window of its own: read on the view's worker (`why`, by the row's
        session), then the injection of that row picked out of the session's."""
        if not 0 <= row < len(self.entries):
            return
        entry = self.entries[row]
        window = ReceiptWindow(self, entry)
        self.receipt = window
        window.show()
        session = entry["session"] or ""
        if len(session) < 4:  # the `why` operation names a session by at least 4 characters
            window.show_receipt(None)
            return
        self.worker.run(
            lambda: self.host.handle("why", {"session": session}),
            lambda found: window.show_receipt(
                pick(found, entry), tr("This row is not in its session's receipts.")
            ),
            window.failed,
        )


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


def pick(found: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any] | None:
    """The session's injection that is this row (the same time, event, prompt and size)."""
    for injection in found.get("injections", []):
        same = all(injection.get(key) == entry.get(key) for key in ("ts", "event", "prompt_id", "chars"))
        if same:
            return dict(injection)
    return None


def characters_tip() -> str:
    return tr(
        "How many characters memevo added to the model's context: the memories' texts and its own "
        "notes around them (the learning reminder, at a session start the division of duties)."
    )


def memories_cell(event: str, texts: list[str]) -> tuple[str, str]:
    """What an injection carried, and its tooltip: its memories (how many, when more than one:
    each on its own line on hover), or — with none — what memevo's own text was."""
    if len(texts) == 1:
        return texts[0], texts[0]
    if texts:
        shown = tr("{count} memories: {texts}").format(count=len(texts), texts=" · ".join(texts))  # 2 or more
        return shown, "\n".join(texts)
    if event == "stop":
        return tr("(no memory: memevo's question about what it learned)"), ""
    if event == "session_start":
        return tr("(no memory: memevo's notes for the session)"), ""
    return tr("(no memory: memevo's learning reminder)"), tr(
        "memevo's own note to the model: to propose what is worth remembering from this prompt "
        "(or the answer to a question memevo asked). No memory matched the prompt."
    )


class ReceiptWindow(QWidget):
    """One injection's receipt: when, what it answered, its size, and each memory injected with
    its text and why (`memevo why`'s lines, in the UI language); the ones that passed the gate
    but found no room; or why there is no receipt."""

    def __init__(self, parent: QWidget, entry: dict[str, Any]) -> None:
        from .qt import QPlainTextEdit

        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle(tr("What was injected, and why"))
        self.entry = entry
        layout = QVBoxLayout(self)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setPlainText(tr("Reading the receipt…"))
        layout.addWidget(self.text)
        self.resize(720, 420)

    def show_receipt(self, found: dict[str, Any] | None, missing: str = "") -> None:
        """found: the injection's receipt (None: none, `missing` says why)."""
        entry = self.entry
        asked, _ = prompt_cell(entry["event"], entry.get("prompt"))
        lines = [
            f"{entry['ts'][:19].replace('T', ' ')} · {client_label(entry['client'])} · {event_label(entry['event'])}",
            tr("Answered: {prompt}").format(prompt=asked),
            tr("{count} characters: {what}").format(count=entry["chars"], what=characters_tip()),
            "",
        ]
        if found is None:
            lines.append(
                missing
                or tr(
                    "No receipt for this row: memevo keeps receipts by session, and this one has no session id."
                )
            )
        elif not found["memories"]:
            lines.append(memories_cell(entry["event"], [])[0])
        for memory in (found or {}).get("memories", []):
            lines.append(_receipt_memory(memory))
            lines.append("    " + why_line(entry["event"], memory, bool(found and found.get("receipt"))))
        for memory in (found or {}).get("left_out", []):
            lines.append(
                tr("Passed the gate, left out for room: {memory}").format(memory=_receipt_memory(memory))
            )
        if found and found.get("other_repositories"):
            lines.append(
                plural(
                    found["other_repositories"],
                    tr("{count} memory of another repository matched and was left out."),
                    tr("{count} memories of other repositories matched and were left out."),
                )
            )
        self.text.setPlainText("\n".join(lines))

    def failed(self, exc: Exception) -> None:
        self.text.setPlainText(tr("Could not read the receipt: {error}").format(error=exc))


def _receipt_memory(memory: dict[str, Any]) -> str:
    text = memory["text"] if memory["text"] is not None else tr("(purged since)")
    where = {"trash": tr(" [in the trash]"), "gone": tr(" [deleted since]")}.get(memory["where"], "")
    return tr("#{id} {text}").format(id=memory["id"], text=text) + where


def why_line(event: str, memory: dict[str, Any], has_receipt: bool) -> str:
    """Why a memory was injected (cli/service_commands.py's `_why_line`, in the UI language)."""
    signals = memory.get("why")
    if signals:
        said = tr("score {score} ≥ minimum {minimum} (cosine {cosine}, lexical {lexical})").format(
            score=signals["score"],
            minimum=signals["minimum"],
            cosine=signals["cosine"],
            lexical=signals["lexical"],
        )
        if signals.get("cued"):
            said += tr(", with its cues")
        if signals.get("damped"):
            said += tr(", damped {damped}").format(damped=signals["damped"])
        return said + (tr("; it was stale then") if signals.get("stale") else "")
    if event == "session_start":
        return tr("a rule listed at session start (pinned first, then by confidence)")
    return tr("logged before memevo kept receipts") if not has_receipt else tr("not recorded")


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
