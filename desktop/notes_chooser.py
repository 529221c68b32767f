"""Choosing which statements of the user's own notes to import (`memevo import-notes` on a
screen): each candidate with a check box and its group. Shared by the panel's dialog and the
setup wizard's page, so both show and return the same thing."""

from __future__ import annotations

from typing import Any

from .i18n import tr
from .memtable import group_name
from .qt import QHBoxLayout, QListWidget, QListWidgetItem, QPushButton, Qt, QVBoxLayout, QWidget


class NotesChooser(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.listing = QListWidget()
        layout.addWidget(self.listing)
        row = QHBoxLayout()
        self.as_rule = QPushButton(tr("As rule"))
        self.as_fact = QPushButton(tr("As project fact"))
        self.as_rule.clicked.connect(lambda: self.switch("rule"))
        self.as_fact.clicked.connect(lambda: self.switch("project"))
        row.addWidget(self.as_rule)
        row.addWidget(self.as_fact)
        row.addStretch(1)
        layout.addLayout(row)
        self.items: list[dict[str, Any]] = []

    def show_candidates(self, found: list[dict[str, Any]]) -> None:
        """found: candidates as notes.Candidate.as_json() gives them; all checked at first."""
        self.items = [dict(c) for c in found]
        self.listing.clear()
        for c in self.items:
            row = QListWidgetItem(_label(c))
            row.setFlags(row.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            row.setCheckState(Qt.CheckState.Checked)
            self.listing.addItem(row)

    def switch(self, category: str) -> None:
        """The selected statement goes to this group (a project fact keeps its repository)."""
        index = self.listing.currentRow()
        if index < 0:
            return
        c = self.items[index]
        c["category"] = category
        c["scope"] = (c.get("repo") or "global") if category == "project" else "global"
        self.listing.item(index).setText(_label(c))

    def chosen(self) -> list[dict[str, Any]]:
        return [
            c for i, c in enumerate(self.items) if self.listing.item(i).checkState() == Qt.CheckState.Checked
        ]


def _label(c: dict[str, Any]) -> str:
    where = "" if c["scope"] == "global" else f" · {c['scope']}"
    return f"[{group_name(c['category'])}{where}] {c['text']}\n    {c['source']}"
