"""The panel's Memories view: one lazy table over both groups, search, filters and actions.

Rows are fetched from the store a page at a time as the view scrolls (fetchMore), so 100k
memories open as fast as 100. Every action goes through the service host's `handle`, the
same path a hook or the CLI takes, so it voids proposals about the memory, keeps the recall
index in step and rewrites memories.html.
"""

from __future__ import annotations

from typing import Any

from memevo.core import confidence as conf
from memevo.core.clock import iso
from memevo.core.memories import _COLUMNS, Memory
from memevo.desktop.logview import RowsModel
from memevo.desktop.qt import (
    QAbstractItemView,
    QAbstractTableModel,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QMainWindow,
    QModelIndex,
    QPushButton,
    Qt,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

PAGE = 500
HEADERS = ["正文", "分组", "置信度", "最近使用", "创建", "状态"]


class MemoryTableModel(QAbstractTableModel):
    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.rows: list[Memory] = []
        self.total = 0
        self.search = ""
        self.category: str | None = None
        self.show_deprecated = True
        self.reload()

    # -- what to show -----------------------------------------------------------------------------------
    def _where(self) -> tuple[str, list[Any]]:
        clauses, params = ["1 = 1"], []
        if self.category:
            clauses.append("category = ?")
            params.append(self.category)
        if not self.show_deprecated:
            clauses.append("NOT deprecated")
        if self.search:
            clauses.append("(contains(lower(text), lower(?)) OR id = ?)")
            params += [self.search, self.search]
        return " AND ".join(clauses), params

    def reload(self) -> None:
        self.beginResetModel()
        where, params = self._where()
        self.total = int(self.host.store.query(f"SELECT count(*) FROM memories WHERE {where}", params)[0][0])
        self.rows = []
        self._fetch(PAGE)
        self.endResetModel()

    def _fetch(self, count: int) -> list[Memory]:
        where, params = self._where()
        sql = (
            f"SELECT {_COLUMNS} FROM memories WHERE {where} "
            "ORDER BY confidence DESC, last_seen_ms DESC, id LIMIT ? OFFSET ?"
        )
        page = [Memory.from_row(r) for r in self.host.store.query(sql, [*params, count, len(self.rows)])]
        self.rows += page
        return page

    def canFetchMore(self, parent: QModelIndex = QModelIndex()) -> bool:  # noqa: B008 - Qt's API
        return len(self.rows) < self.total

    def fetchMore(self, parent: QModelIndex = QModelIndex()) -> None:  # noqa: B008
        start = len(self.rows)
        count = min(PAGE, self.total - start)
        if count <= 0:
            return
        self.beginInsertRows(QModelIndex(), start, start + count - 1)
        self._fetch(count)
        self.endInsertRows()

    # -- Qt's table interface ---------------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return len(HEADERS)

    def headerData(self, section: int, orientation: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return HEADERS[section]
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        m = self.rows[index.row()]
        values = [
            m.text,
            "规则" if m.category == "rule" else "项目事实",
            f"{'█' * (m.confidence // 10):<10} {conf.as_decimal_text(m.confidence)}",
            iso(m.last_seen_ms)[:16].replace("T", " "),
            iso(m.created_ms)[:10],
            "已废弃" if m.deprecated else "",
        ]
        return values[index.column()]

    def memory_at(self, row: int) -> Memory:
        return self.rows[row]


class MemoriesView(QWidget):
    """Search, filters, the table, and the actions on the selected memories."""

    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.model = MemoryTableModel(host)
        layout = QVBoxLayout(self)
        bar = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText("搜索正文或 id")
        self.search.returnPressed.connect(self.apply_filters)
        self.group = QComboBox()
        self.group.addItems(["全部", "规则", "项目事实"])
        self.group.currentIndexChanged.connect(self.apply_filters)
        self.deprecated = QCheckBox("显示已废弃")
        self.deprecated.setChecked(True)
        self.deprecated.toggled.connect(self.apply_filters)
        for widget in (self.search, self.group, self.deprecated):
            bar.addWidget(widget)
        layout.addLayout(bar)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setStretchLastSection(False)
        self.table.setColumnWidth(0, 420)
        layout.addWidget(self.table)
        actions = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for key, label in (
            ("add", "手动添加"),
            ("edit", "改写"),
            ("reinforce", "强化"),
            ("move", "换到另一组"),
            ("delete", "删除"),
            ("purge", "彻底清除"),
            ("refresh", "刷新"),
        ):
            button = QPushButton(label)
            button.clicked.connect(lambda _=False, k=key: self.act(k))
            actions.addWidget(button)
            self.buttons[key] = button
        layout.addLayout(actions)
        self.last_message = ""

    def apply_filters(self) -> None:
        self.model.search = self.search.text().strip()
        self.model.category = {1: "rule", 2: "project"}.get(self.group.currentIndex())
        self.model.show_deprecated = self.deprecated.isChecked()
        self.model.reload()

    def selected(self) -> list[Memory]:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        return [self.model.memory_at(r) for r in rows]

    # Questions to the user go through these two hooks so tests can answer them.
    def ask_text(self, title: str, label: str, text: str = "") -> str | None:
        from memevo.desktop.qt import QInputDialog

        value, ok = QInputDialog.getMultiLineText(self, title, label, text)
        return value if ok else None

    def confirm(self, title: str, question: str) -> bool:
        from memevo.desktop.qt import QMessageBox

        answer = QMessageBox.question(self, title, question)
        return bool(answer == QMessageBox.StandardButton.Yes)

    def act(self, key: str) -> None:
        if key == "refresh":
            self.model.reload()
            return
        if key == "add":
            self._add()
            return
        chosen = self.selected()
        if not chosen:
            return
        try:
            if key == "edit":
                self._edit(chosen[0])
            if key == "purge":
                self._purge(chosen)
            if key == "delete":
                result = self.host.handle("delete", {"ids": [m.id for m in chosen]})
                self.last_message = f"已删除 {len(result['deleted'])} 条（回收站保留 30 天）"
            for memory in chosen if key in ("reinforce", "move") else []:
                if key == "reinforce":
                    result = self.host.handle("reinforce", {"id": memory.id})
                    self.last_message = f"#{memory.id} +{result['gained']:g}"
                else:
                    other = "project" if memory.category == "rule" else "rule"
                    self.host.handle("move", {"id": memory.id, "category": other})
                    self.last_message = f"#{memory.id} 换到了 {other}"
        except Exception as exc:  # shown to the user, never a crash
            self.last_message = f"没有完成：{exc}"
        self.model.reload()

    def _add(self) -> None:
        category = "project" if self.group.currentIndex() == 2 else "rule"
        text = self.ask_text("手动添加", "新记忆的正文（6–400 字）：")
        if text is None:
            return
        try:
            memory = self.host.handle("add", {"category": category, "text": text})["memory"]
            self.last_message = f"已添加 #{memory['id']}（{category}，置信度 0.5）"
        except Exception as exc:
            self.last_message = f"没有添加：{exc}"
        self.model.reload()

    def _edit(self, memory: Memory) -> None:
        text = self.ask_text("改写", f"#{memory.id} 的新正文（置信度不变）：", memory.text)
        if text is not None:
            self.host.handle("replace", {"id": memory.id, "text": text})
            self.last_message = f"已改写 #{memory.id}"

    def _purge(self, chosen: list[Memory]) -> None:
        names = "、".join(f"#{m.id}" for m in chosen)
        if not self.confirm("彻底清除", f"从所有地方清除 {names} 的正文？这一步不能撤销。"):
            return
        for memory in chosen:
            self.host.handle("purge", {"id": memory.id})
        self.last_message = f"已彻底清除 {names}"


class TrashView(QWidget):
    """The trash (kept 30 days), with restore."""

    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        from memevo.desktop.qt import QLabel

        layout = QVBoxLayout(self)
        self.list = QTableView()
        self.model = TrashModel(host)
        self.list.setModel(self.model)
        self.list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.list.setColumnWidth(0, 480)
        layout.addWidget(QLabel("回收站保留 30 天"))
        layout.addWidget(self.list)
        self.restore_button = QPushButton("恢复")
        self.restore_button.clicked.connect(self.restore)
        layout.addWidget(self.restore_button)

    def restore(self) -> None:
        rows = sorted({i.row() for i in self.list.selectionModel().selectedRows()})
        for row in rows:
            self.host.handle("restore", {"id": self.model.items[row]["id"]})
        self.model.reload()


class TrashModel(RowsModel):
    """The trash as rows; `items` keeps the memories behind them (for restore)."""

    def __init__(self, host: Any) -> None:
        super().__init__(["正文", "分组", "删除于"])
        self.host = host
        self.items: list[dict[str, Any]] = []
        self.reload()

    def reload(self) -> None:
        self.items = self.host.handle("trash", {})["trash"]
        group = {"rule": "规则", "project": "项目事实"}
        self.set_rows([[i["text"], group[i["category"]], i["deleted"][:16]] for i in self.items])


class Panel(QMainWindow):
    def __init__(self, host: Any, confirmations: Any = None) -> None:
        super().__init__()
        self.setWindowTitle("memevo")
        self.resize(960, 640)
        self.tabs = QTabWidget()
        self.memories = MemoriesView(host)
        self.tabs.addTab(self.memories, "记忆")
        self.trash = TrashView(host)
        self.tabs.addTab(self.trash, "回收站")
        from memevo.desktop.logview import InjectionLogView, ProposalsView
        from memevo.desktop.status import StatusView

        self.proposals = ProposalsView(host, confirmations)
        self.tabs.addTab(self.proposals, "待确认")
        self.injections = InjectionLogView(host)
        self.tabs.addTab(self.injections, "注入记录")
        self.status = StatusView(host)
        self.tabs.addTab(self.status, "状态")
        self.tabs.currentChanged.connect(self._on_tab)

    def _on_tab(self, _index: int) -> None:
        self.trash.model.reload()
        self.proposals.refresh()
        self.injections.refresh()
        self.status.refresh()
        self.setCentralWidget(self.tabs)
