"""The memories table: one lazy model over both groups, and the confidence bar.

Rows come from the store a page at a time as the view scrolls (fetchMore), and every query
runs on the worker thread: the model asks, the answer arrives as a signal, and only then does
the view change. So 100k memories open as fast as 100 and the UI never waits on DuckDB.

Semantic search asks the service's recall engine for the nearest memories (no award, no
gate) and shows them in score order."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..core.clock import iso
from ..core.memories import confidence as conf
from ..core.memories.listing import Listing, listed_among, listed_count, listed_page
from ..core.memories.live import Memory
from ..core.memories.scopes import name as scope_name
from .i18n import tr
from .qt import (
    QAbstractTableModel,
    QColor,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QStyledItemDelegate,
    Qt,
)
from .worker import OffUi

PAGE = 500
CONFIDENCE_COLUMN = 2
STATE_COLUMN = 5
SCOPE_COLUMN = 7
SEMANTIC_LIMIT = 50


def headers() -> list[str]:
    return [
        tr("Text"),
        tr("Group"),
        tr("Confidence"),
        tr("Last seen"),
        tr("Created"),
        tr("State"),
        tr("Match"),
        tr("Scope"),
    ]


def header_tips() -> dict[int, str]:
    """What a column's header means, where its name alone does not say it."""
    return {
        2: tr(
            "How much memevo trusts the memory, 0.4 to 1.0: it rises when the memory is recalled or confirmed again, and falls when it goes unused."
        ),
        6: tr(
            "How closely the memory matches what you searched for (By meaning): higher is closer; it orders the list."
        ),
    }


def group_name(category: str) -> str:
    return tr("Rule") if category == "rule" else tr("Project fact")


@dataclass
class Query:
    """What the table shows: filters, and either a text search or a semantic one."""

    search: str = ""
    category: str | None = None
    show_deprecated: bool = True
    scope: str | None = None  # None: all; "global"; "repo": those of one repository or another
    stale_only: bool = False  # only memories whose repository no longer has the names they give
    semantic: str = ""
    scores: dict[str, float] = field(default_factory=dict)

    def listing(self) -> Listing:
        """The store's side of it: the text search is left out while a semantic one runs."""
        return Listing(
            search="" if self.semantic else self.search,
            category=self.category,
            show_deprecated=self.show_deprecated,
            scope=self.scope,
            stale_only=self.stale_only,
        )


class MemoryTableModel(QAbstractTableModel):
    def __init__(self, host: Any, worker: OffUi | None = None) -> None:
        super().__init__()
        self.host = host
        self.worker = worker or OffUi()
        self.query = Query()
        self.rows: list[Memory] = []
        self.total = 0
        self.error = ""
        self._generation = 0  # answers to an older query are dropped
        self._fetching = False
        self._headers = headers()
        self.on_error: Any = None
        self.changes_seen = 0  # the host's count of changes when the rows were last asked for
        self.reload()

    @property
    def loading(self) -> bool:
        return self.worker.busy

    # -- asking the store (on the worker thread) -------------------------------------------------------
    def reload(self) -> None:
        self.changes_seen = self.host.changes()
        self._generation += 1
        generation, query = self._generation, self.query
        self.worker.run(
            lambda: self._first_page(query),
            lambda answer: self._reset(generation, answer),
            lambda exc: self._fail(generation, exc),
        )

    def _first_page(self, query: Query) -> tuple[int, list[Memory], dict[str, float]]:
        if query.semantic:
            scores = self._semantic_scores(query)
            rows = self._by_ids(list(scores), query)
            return len(rows), rows, scores
        total = listed_count(self.host.store, query.listing())
        return total, self._page(query, PAGE, None), {}

    def _page(self, query: Query, count: int, after: Memory | None) -> list[Memory]:
        """The next page after the last row shown (keyset: see core/listing.listed_page)."""
        return listed_page(self.host.store, query.listing(), count, after)

    def _semantic_scores(self, query: Query) -> dict[str, float]:
        answer = self.host.handle("search", {"text": query.semantic, "limit": SEMANTIC_LIMIT})
        return {hit["id"]: float(hit["score"]) for hit in answer["hits"]}

    def _by_ids(self, ids: list[str], query: Query) -> list[Memory]:
        return listed_among(self.host.store, query.listing(), ids)

    # -- answers (on the UI thread) --------------------------------------------------------------------
    def _reset(self, generation: int, answer: tuple[int, list[Memory], dict[str, float]]) -> None:
        if generation != self._generation:
            return
        self.beginResetModel()
        self.total, self.rows, self.query.scores = answer
        self.error = ""
        self._fetching = False
        self.endResetModel()

    def _fail(self, generation: int, exc: Exception) -> None:
        self._fetching = False
        if generation != self._generation:
            return
        self.error = str(exc)
        if self.on_error is not None:  # the view says it (semantic search before the model loaded…)
            self.on_error(self.error)

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> bool:  # noqa: B008 - Qt's API
        return not self._fetching and len(self.rows) < self.total

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> None:  # noqa: B008
        count = min(PAGE, self.total - len(self.rows))
        if count <= 0 or self._fetching:
            return
        self._fetching = True
        generation, query, last = self._generation, self.query, self.rows[-1] if self.rows else None
        self.worker.run(
            lambda: self._page(query, count, last),
            lambda page: self._append(generation, page, count),
            lambda exc: self._fail(generation, exc),
        )

    def _append(self, generation: int, page: list[Memory], asked: int) -> None:
        self._fetching = False
        if generation != self._generation:
            return
        if len(page) < asked:  # the end: rows that moved up while scrolling are not counted twice
            self.total = len(self.rows) + len(page)
        shown = {m.id for m in self.rows[-PAGE:]}
        page = [m for m in page if m.id not in shown]  # a memory that decayed past the edge
        if not page:
            return
        start = len(self.rows)
        self.beginInsertRows(QModelIndex(), start, start + len(page) - 1)
        self.rows += page
        self.endInsertRows()

    # -- Qt's table interface ---------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return len(self._headers)

    def headerData(self, section: int, orientation: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._headers[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return header_tips().get(section)
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid():
            return None
        m = self.rows[index.row()]
        if role == Qt.ItemDataRole.UserRole:
            return m
        if m.stale and role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return _stale_look(m, index.column(), role)
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        if index.column() == SCOPE_COLUMN:  # the folder's name; its whole path as the tooltip
            if m.scope is None:
                return tr("Global")
            return m.scope if role == Qt.ItemDataRole.ToolTipRole else scope_name(m.scope)
        if index.column() == STATE_COLUMN and role == Qt.ItemDataRole.ToolTipRole and m.stale:
            return stale_reason(m.stale)  # why it may be outdated; the cell only says that it may
        score = self.query.scores.get(m.id)
        values = [
            m.text,
            group_name(m.category),
            conf.as_decimal_text(m.confidence),
            iso(m.last_seen_ms)[:16].replace("T", " "),
            iso(m.created_ms)[:10],
            _state(m),
            f"{score:.2f}" if score is not None else "",
        ]
        return values[index.column()]

    def memory_at(self, row: int) -> Memory:
        return self.rows[row]


STALE_BACKGROUND = "#fff3e0"  # a stale row: a light amber behind it
STALE_TEXT = "#a65c00"  # the State cell's word, beside the warning sign


def _stale_look(m: Memory, column: int, role: int) -> Any:
    """How a stale row looks and what a screen reader says of it: every cell on light amber,
    the State cell's word in dark amber with a warning sign, and its reason as its accessible
    text (the colour alone would say nothing to one who cannot see it)."""
    if role == Qt.ItemDataRole.BackgroundRole:
        return QColor(STALE_BACKGROUND)
    if column == STATE_COLUMN:
        if role == Qt.ItemDataRole.ForegroundRole:
            return QColor(STALE_TEXT)
        if role == Qt.ItemDataRole.DecorationRole:
            return stale_icon()
    if role == Qt.ItemDataRole.AccessibleTextRole and column in (0, STATE_COLUMN):
        said = m.text if column == 0 else _state(m)
        return tr("{text} (may be out of date: {reason})").format(
            text=said, reason=stale_reason(m.stale or "")
        )
    return None


_ICON: list[Any] = []


def stale_icon() -> Any:
    """A small amber warning sign (drawn here: the same on every desktop and theme)."""
    if not _ICON:
        from .qt import QIcon, QPainter, QPixmap, QPointF, QPolygonF

        pixmap = QPixmap(16, 16)
        pixmap.fill(QColor(0, 0, 0, 0))
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QColor(STALE_TEXT))
        painter.setBrush(QColor("#ffb300"))
        painter.drawPolygon(QPolygonF([QPointF(8, 1), QPointF(15, 14.5), QPointF(1, 14.5)]))
        painter.setPen(QColor("#3e2723"))
        painter.drawLine(8, 5, 8, 10)
        painter.drawPoint(8, 12)
        painter.end()
        _ICON.append(QIcon(pixmap))
    return _ICON[0]


def _state(m: Memory) -> str:
    return state_text(m.pinned, m.deprecated, stale=m.stale is not None)


def state_text(pinned: bool, deprecated: bool, stale: bool = False) -> str:
    words = ([tr("Pinned")] if pinned else []) + ([tr("Deprecated")] if deprecated else [])
    return ", ".join(words + ([tr("Stale")] if stale else []))


# core/staleness._reason's words: the names, the repository's folder, the local day.
_STALE_REASON = re.compile(r"(?P<names>.+) not found in (?P<repo>.+) since (?P<day>\d{4}-\d{2}-\d{2})")


def stale_reason(reason: str) -> str:
    """A stale memory's reason (core writes it in English, for the MCP tools and the CLI) in the
    UI language when its shape is known; otherwise as it is."""
    found = _STALE_REASON.fullmatch(reason)
    if found is None:
        return reason
    return tr("{names} not found in {repo} since {day}").format(
        names=found["names"], repo=found["repo"], day=found["day"]
    )


def bar_color(confidence: int, deprecated: bool) -> str:
    if deprecated:
        return "#9e9e9e"
    if confidence >= 70:
        return "#66bb6a"
    return "#64b5f6" if confidence >= 50 else "#ffb74d"


class ConfidenceDelegate(QStyledItemDelegate):
    """A bar behind the confidence: green when strong (0.7 and up), blue in between (where a
    new or hand-added memory starts, at 0.5), amber when weak (below 0.5, near 0.4 where it
    drops out), grey when deprecated."""

    def paint(self, painter: Any, option: Any, index: QModelIndex | QPersistentModelIndex) -> None:
        memory = index.data(Qt.ItemDataRole.UserRole)
        if memory is None:
            super().paint(painter, option, index)
            return
        rect = option.rect.adjusted(3, 4, -3, -4)
        filled = QRect(
            rect.x(), rect.y(), int(rect.width() * min(memory.confidence, 100) / 100), rect.height()
        )
        color = bar_color(memory.confidence, memory.deprecated)
        painter.save()
        painter.fillRect(rect, QColor("#eeeeee"))
        painter.fillRect(filled, QColor(color))
        painter.setPen(QColor("#212121"))
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), conf.as_decimal_text(memory.confidence))
        painter.restore()
