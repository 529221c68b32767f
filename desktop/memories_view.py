"""The panel's Memories view: search (text or semantic), filters, the table, and the action
buttons. What the buttons and the row menu do is in desktop/memory_actions.py; the view asks the
user's questions and shows the messages for it."""

from __future__ import annotations

from typing import Any

from ..core.memories.live import Memory
from . import memories_dialogs as dialogs
from .i18n import tr
from .memory_actions import MemoryActions
from .memtable import (
    CONFIDENCE_COLUMN,
    ConfidenceDelegate,
    MemoryTableModel,
    group_name,
    state_text,
)
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
    QTimer,
    QVBoxLayout,
    QWidget,
)
from .undo import button_text
from .worker import OffUi

BUSY_RETRY_MS = 200
CHANGES_MS = 3000  # while the view is on screen, how often it looks whether memories changed elsewhere
UNDO_SAMPLE = "merge into #135f872c"  # the Undo button is as wide as its text with this label


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
        self._two_lines()
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
        # Changes made elsewhere (the CLI, a hook's learning, maintenance, a staleness check) show
        # up by themselves: a look at the service's count of changes — no store, no worker — and
        # a reload only when it moved; the selection and the scroll position are kept.
        self._place: tuple[set[str], int] | None = None
        self.model.modelAboutToBeReset.connect(self._keep_place)
        self.model.modelReset.connect(self._put_back_place)
        self.changes_timer = QTimer(self)
        self.changes_timer.setInterval(CHANGES_MS)
        self.changes_timer.timeout.connect(self.reload_if_changed)

    def _two_lines(self) -> None:
        """Rows tall enough for two lines of the text in either script: Chinese glyphs come from
        a taller fallback font, and a row sized for two Latin lines showed one Chinese line cut
        with "…" where English wrapped."""
        from .qt import QRect

        metrics = self.table.fontMetrics()
        flags = int(Qt.TextFlag.TextWordWrap)
        tallest = max(
            metrics.boundingRect(QRect(0, 0, 2000, 2000), flags, sample).height()
            for sample in ("Ag\nAg", "中文\n中文")
        )
        header = self.table.verticalHeader()
        header.setDefaultSectionSize(max(header.defaultSectionSize(), tallest + 8))

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
        self.stale_only = QCheckBox(tr("Stale only"))
        self.stale_only.setToolTip(tr("Only memories whose repository no longer has the names they give"))
        self.stale_only.toggled.connect(self.apply_filters)
        for widget in (self.search, self.semantic, self.group, self.scope, self.deprecated, self.stale_only):
            bar.addWidget(widget)
        return bar

    def _action_bar(self) -> QVBoxLayout:
        """Two rows: the actions on the selected memories, then add, import, tidy up, undo and
        refresh. No label widens the panel: the Undo button keeps its width and elides the
        action it names (all of it in its tooltip), so the window stays on a 1366-px screen."""
        rows = QVBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for keys in (
            ("edit", "merge", "reinforce", "still_true", "pin", "move", "history", "delete", "purge"),
            ("add", "import", "tidy", "", "undo", "refresh"),
        ):
            row = QHBoxLayout()
            for key in keys:
                if not key:
                    row.addStretch(1)
                    continue
                button = QPushButton(_label(key))
                button.setToolTip(_needs(key))
                button.clicked.connect(lambda _=False, k=key: self.act(k))
                row.addWidget(button)
                self.buttons[key] = button
            if keys[-1] != "refresh":
                row.addStretch(1)
            rows.addLayout(row)
        undo = self.buttons["undo"]
        undo.setEnabled(False)
        undo.setFixedWidth(self._undo_width(tr("Undo: {what}").format(what=UNDO_SAMPLE)))
        return rows

    def _undo_width(self, text: str) -> int:
        """The button's width for text: the text's own and the style's margins around it."""
        probe = QPushButton(text)
        return int(probe.sizeHint().width())

    # -- filters ---------------------------------------------------------------------------------------------
    def apply_filters(self) -> None:
        text = self.search.text().strip()
        query = self.model.query
        query.category = {1: "rule", 2: "project"}.get(self.group.currentIndex())
        query.show_deprecated = self.deprecated.isChecked()
        query.scope = {1: "global", 2: "repo"}.get(self.scope.currentIndex())
        query.stale_only = self.stale_only.isChecked()
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

    def confirm(self, title: str, question: str, tooltip: str = "") -> bool:
        return dialogs.confirm(self, title, question, tooltip)

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
        needs["still_true"] = any(m.stale for m in self.selected()) if selected else False
        for key, button in self.buttons.items():
            if key in ("undo", "refresh"):
                continue
            fits = needs.get(key, selected > 0) if key not in ("add", "import", "tidy") else True
            button.setEnabled(not self.memory_actions.busy and fits)
        self.show_undo()

    def show_undo(self) -> None:
        undo_stack = self.memory_actions.undo_stack
        text, tip = button_text(undo_stack)
        button = self.buttons["undo"]
        metrics = button.fontMetrics()
        if self._undo_width(text) > button.width():  # elided to the button, never the button widened
            margins = self._undo_width(text) - metrics.horizontalAdvance(text)
            text = metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(button.width() - margins, 20))
        button.setText(text)
        button.setToolTip(tip)
        button.setEnabled(bool(undo_stack) and not self.memory_actions.busy)

    # -- changes made elsewhere ------------------------------------------------------------------------
    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.changes_timer.start()
        self.reload_if_changed()

    def hideEvent(self, event: Any) -> None:
        super().hideEvent(event)
        self.changes_timer.stop()

    def reload_if_changed(self) -> None:
        """Reloads when the service changed memories since the rows were asked for, unless an
        action or a query is under way (its own reload follows)."""
        if self.host.changes() == self.model.changes_seen:
            return
        if self.worker.busy or self.memory_actions.busy:  # look again once that is done
            QTimer.singleShot(BUSY_RETRY_MS, self.reload_if_changed)
            return
        self._keep_next = True  # the reset to come keeps the selection and the scroll position
        self.model.reload()
        self.memory_actions.refresh_undo()

    _keep_next = False

    def _keep_place(self) -> None:
        if not self._keep_next:
            return
        self._keep_next = False
        ids = {m.id for m in self.selected()}
        self._place = (ids, self.table.verticalScrollBar().value())

    def _put_back_place(self) -> None:
        place, self._place = self._place, None
        if place is None:
            return
        ids, scrolled = place
        selection = self.table.selectionModel()
        flags = type(selection).SelectionFlag
        for row, memory in enumerate(self.model.rows):
            if memory.id in ids:
                selection.select(self.model.index(row, 0), flags.Select | flags.Rows)
        self.table.verticalScrollBar().setValue(scrolled)


def _label(key: str) -> str:
    return {
        "add": tr("Add…"),
        "edit": tr("Edit…"),
        "merge": tr("Merge two…"),
        "reinforce": tr("Reinforce"),
        "still_true": tr("Still true"),
        "pin": tr("Pin / unpin"),
        "history": tr("History…"),
        "import": tr("Import notes…"),
        "move": tr("Move to other group"),
        "delete": tr("Delete"),
        "purge": tr("Purge…"),
        "tidy": tr("Tidy up"),
        "undo": tr("Undo"),
        "refresh": tr("Refresh"),
    }[key]


def _needs(key: str) -> str:
    """What a button acts on (its tooltip: why it is greyed out)."""
    if key in ("edit", "history"):
        return tr("Acts on one selected memory.")
    if key == "merge":
        return tr("Acts on two selected memories.")
    if key == "still_true":
        return tr(
            "Acts on the selected stale memories: their repository is checked again; "
            "names still missing stop counting."
        )
    if key == "tidy":
        return tr("Find near-duplicate and contradicting memories and propose merges; you confirm each.")
    if key in ("add", "import", "undo", "refresh"):
        return ""
    return tr("Acts on the selected memories.")
