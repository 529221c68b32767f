"""The Memories table's context menu: Edit… and Delete for the memory under the pointer, and — for a
stale one (its repository no longer has the names it gives) — why it may be out of date and Still
true, which has the repository checked again and, if the names are still missing, keeps the memory
as true (core/staleness.still_true). Each entry runs the view's own action, so undo, the worker and
the messages are the buttons' own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.memories.live import Memory
from .i18n import tr
from .memtable import stale_reason
from .qt import QMenu

if TYPE_CHECKING:
    from .memories_view import MemoriesView


def row_menu(view: MemoriesView, memory: Memory) -> QMenu:
    menu = QMenu(view)
    if memory.stale:
        why = menu.addAction(tr("May be out of date: {reason}").format(reason=stale_reason(memory.stale)))
        why.setEnabled(False)
        menu.addSeparator()
    menu.addAction(tr("Edit…")).triggered.connect(lambda _=False: view.act_on("edit", memory))
    menu.addAction(tr("Delete")).triggered.connect(lambda _=False: view.act_on("delete", memory))
    if memory.stale:
        still = menu.addAction(tr("Still true"))
        still.setToolTip(tr("Check its repository again; if the names are still missing, keep it as true."))
        still.triggered.connect(lambda _=False: view.act_on("still_true", memory))
    return menu
