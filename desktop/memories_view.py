"""The panel's Memories view: search (text or semantic), filters, the table, and the action
buttons. What the buttons and the row menu do is in desktop/memory_actions.py; the view asks the
user's questions and shows the messages for it."""

from __future__ import annotations

from typing import Any

from ..core.memories.live import Memory
from . import memories_dialogs as dialogs
from .i18n import tr
from .memory_actions import MemoryActions
from .memtable import CONFIDENCE_COLUMN, ConfidenceDelegate, MemoryTableModel, group_name, state_text
from .qt import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    Qt,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from .undo import button_text
from .worker import OffUi


class MemoriesView(QWidget):
    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.worker = OffUi(parent=self)
        self.model = MemoryTableModel(host, self.worker)
        self.memory_actions = MemoryActions(self)
        self.last_message = ""
        layout = QVBoxLayout(self)
        layout.addLayout(self._search_bar())
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setItemDelegateForColumn(CONFIDENCE_COLUMN, ConfidenceDelegate(self.table))
        # a row's menu: Edit, Delete, and for a stale memory Still true (desktop/stale_menu.py)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._row_menu)
        self._size_columns()
        layout.addWidget(self.table)
        layout.addLayout(self._action_bar())
        self.table.selectionModel().selectionChanged.connect(lambda *_: self.sync_buttons())
        self.model.modelReset.connect(self.sync_buttons)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.model.on_error = lambda error: self.say(tr("Search failed: {error}").format(error=error))

    def _size_columns(self) -> None:
        """The text takes the room left; every other column is at least as wide as its header
        and its longest usual value, so no "全局" or date is cut."""
        from .qt import QHeaderView

        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        metrics = self.table.fontMetrics()
        # The group and state columns hold the longest of their words ("项目事实" was cut to
        # "项目…" on a real display: the cell's margins take more than the text's own width).
        samples = [
            [""],
            [group_name("rule"), group_name("project")],
            ["0.95 "],
            ["2026-12-03 08:59 "],
            ["2026-12-03 "],
            [
                state_text(pinned=True, deprecated=False, stale=True),
                state_text(pinned=False, deprecated=True),
            ],
            ["0.95 "],
            [tr("Global") + " " * 12],
        ]
        for column, values in enumerate(samples):
            if column == 0:
                header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
                continue
            title = str(self.model.headerData(column, Qt.Orientation.Horizontal))
            widest = max(metrics.horizontalAdvance(text) for text in [title, *values])
            header.resizeSection(column, widest + 28)
        header.resizeSection(CONFIDENCE_COLUMN, max(header.sectionSize(CONFIDENCE_COLUMN), 110))

    def _search_bar(self) -> QHBoxLayout:
        bar = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText(tr("Search text or id — Enter"))
        self.search.returnPressed.connect(self.apply_filters)
        self.semantic = QCheckBox(tr("By meaning"))
        self.semantic.setToolTip(tr("Find memories close in meaning, with the recall model (no award)"))
        self.semantic.toggled.connect(self.apply_filters)
        self.group = QComboBox()
        self.group.addItems([tr("All groups"), tr("Rule"), tr("Project fact")])
        self.group.currentIndexChanged.connect(self.apply_filters)
        self.scope = QComboBox()
        self.scope.addItems([tr("All scopes"), tr("Global"), tr("One repository")])
        self.scope.setToolTip(tr("Project facts learned in a repository are recalled only there"))
        self.scope.currentIndexChanged.connect(self.apply_filters)
        self.deprecated = QCheckBox(tr("Show deprecated"))
        self.deprecated.setChecked(True)
        self.deprecated.toggled.connect(self.apply_filters)
        for widget in (self.search, self.semantic, self.group, self.scope, self.deprecated):
            bar.addWidget(widget)
        return bar

    def _action_bar(self) -> QHBoxLayout:
        actions = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for key, label in (
            ("add", tr("Add…")),
            ("edit", tr("Edit…")),
            ("merge", tr("Merge two…")),
            ("reinforce", tr("Reinforce")),
            ("pin", tr("Pin / unpin")),
            ("history", tr("History…")),
            ("import", tr("Import notes…")),
            ("move", tr("Move to other group")),
            ("delete", tr("Delete")),
            ("purge", tr("Purge…")),
            ("tidy", tr("Tidy up")),
            ("undo", tr("Undo")),
            ("refresh", tr("Refresh")),
        ):
            button = QPushButton(label)
            button.setToolTip(_needs(key))
            button.clicked.connect(lambda _=False, k=key: self.act(k))
            actions.addWidget(button)
            self.buttons[key] = button
        self.buttons["undo"].setEnabled(False)
        return actions

    # -- filters ---------------------------------------------------------------------------------------------
    def apply_filters(self) -> None:
        text = self.search.text().strip()
        query = self.model.query
        query.category = {1: "rule", 2: "project"}.get(self.group.currentIndex())
        query.show_deprecated = self.deprecated.isChecked()
        query.scope = {1: "global", 2: "repo"}.get(self.scope.currentIndex())
        query.search, query.semantic = (text, "") if not self.semantic.isChecked() else ("", text)
        self.model.reload()

    def selected(self) -> list[Memory]:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        return [self.model.memory_at(r) for r in rows]

    # Questions to the user (desktop/memories_dialogs.py) go through these methods so tests can answer them.
    def ask_text(self, title: str, label: str, text: str = "") -> str | None:
        return dialogs.ask_text(self, title, label, text)

    def ask_new_memory(self, category: str) -> tuple[str, str, str | None] | None:
        return dialogs.ask_new_memory(self, category)

    def confirm(self, title: str, question: str) -> bool:
        return dialogs.confirm(self, title, question)

    def choose_version(
        self, memory: Memory, versions: list[dict[str, Any]], cues: list[str] | None = None
    ) -> int | None:
        return dialogs.choose_version(self, memory, versions, cues)

    def ask_folder(self) -> str | None:
        return dialogs.ask_folder(self)

    def ask_import_source(self) -> tuple[bool, str | None]:
        """Cancel — in the first question or in the folder chooser — imports nothing."""
        go, wants_repo = dialogs.ask_import_source(self)
        if not wants_repo:
            return go, None
        folder = self.ask_folder()
        return folder is not None, folder

    def choose_notes(self, found: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        return dialogs.choose_notes(self, found)

    def say(self, text: str) -> None:
        self.last_message = text
        self.message.setText(text)

    # -- the action buttons and the row menu (desktop/memory_actions.py) ------------------------------------
    def act(self, key: str) -> None:
        self.memory_actions.act(key)

    def act_on(self, key: str, memory: Memory) -> None:
        """An action of a row's menu, on that row's memory."""
        self.memory_actions.act_on(key, memory)

    def _row_menu(self, pos: Any) -> None:
        from .stale_menu import row_menu

        index = self.table.indexAt(pos)
        if not index.isValid():
            return
        self.table.selectRow(index.row())
        row_menu(self, self.model.memory_at(index.row())).popup(self.table.viewport().mapToGlobal(pos))

    def sync_buttons(self) -> None:
        """A button is enabled only when it can act: nothing runs, and the selection fits it
        (Edit and History one memory, Merge two, the others at least one)."""
        selected = len({i.row() for i in self.table.selectionModel().selectedRows()})
        needs = {"edit": selected == 1, "history": selected == 1, "merge": selected == 2}
        for key, button in self.buttons.items():
            if key in ("undo", "refresh"):
                continue
            fits = needs.get(key, selected > 0) if key not in ("add", "import", "tidy") else True
            button.setEnabled(not self.memory_actions.busy and fits)
        self.show_undo()

    def show_undo(self) -> None:
        undo_stack = self.memory_actions.undo_stack
        text, tip = button_text(undo_stack)
        self.buttons["undo"].setText(text)
        self.buttons["undo"].setToolTip(tip)
        self.buttons["undo"].setEnabled(bool(undo_stack) and not self.memory_actions.busy)


def _needs(key: str) -> str:
    """What a button acts on (its tooltip: why it is greyed out)."""
    if key in ("edit", "history"):
        return tr("Acts on one selected memory.")
    if key == "merge":
        return tr("Acts on two selected memories.")
    if key == "tidy":
        return tr("Find near-duplicate and contradicting memories and propose merges; you confirm each.")
    if key in ("add", "import", "undo", "refresh"):
        return ""
    return tr("Acts on the selected memories.")
