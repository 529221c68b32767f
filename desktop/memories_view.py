"""The panel's Memories view: search (text or semantic), filters, the table, and the actions.

Every action goes through the service host's `handle` — the path a hook or the CLI takes — so
it voids proposals about the memory, keeps the recall index in step and rewrites
memories.html. Actions run on the worker thread (rewriting memories.html over 100k memories
is not a UI-thread job); the last undoable one can be undone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.memories import Memory
from ..core.scopes import name as scope_name
from . import memories_dialogs as dialogs
from .i18n import tr
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
from .undo import DEPTH, IN_TRASH, ChangedSince, Undo, button_text, check, id_list
from .worker import OffUi


class MemoriesView(QWidget):
    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.worker = OffUi(parent=self)
        self.model = MemoryTableModel(host, self.worker)
        self.undo_stack: list[Undo] = []
        self._busy = False  # an action runs: the action buttons wait
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
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._sync_buttons())
        self.model.modelReset.connect(self._sync_buttons)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.model.on_error = lambda error: self.say(tr("Search failed: {error}").format(error=error))

    def _size_columns(self) -> None:
        """The text takes the room left; every other column is at least as wide as its header
        and its longest usual value, so no "全局" or date is cut (issue 31, item 13)."""
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

    # -- actions ---------------------------------------------------------------------------------------------
    def act(self, key: str) -> None:
        if self.worker.busy and key != "refresh":  # one change at a time: undo must know what it undoes
            self.say(tr("Still working on the last change…"))
            return
        if key == "refresh":
            self.model.reload()
            self.refresh_undo()
            return
        if key in ("add", "undo", "import", "tidy"):
            {"add": self._add, "undo": self._undo, "import": self._import_notes, "tidy": self._tidy}[key]()
            return
        chosen = self.selected()
        if not chosen:
            self.say(tr("Select a memory first."))
            return
        handlers: dict[str, Callable[[list[Memory]], None]] = {
            "edit": self._edit,
            "merge": self._merge,
            "reinforce": self._reinforce,
            "pin": self._pin,
            "history": self._history,
            "move": self._move,
            "delete": self._delete,
            "purge": self._purge,
        }
        handlers[key](chosen)

    def _row_menu(self, pos: Any) -> None:
        from .stale_menu import row_menu

        index = self.table.indexAt(pos)
        if not index.isValid():
            return
        self.table.selectRow(index.row())
        row_menu(self, self.model.memory_at(index.row())).popup(self.table.viewport().mapToGlobal(pos))

    def act_on(self, key: str, memory: Memory) -> None:
        """An action of a row's menu, on that row's memory."""
        if self.worker.busy:
            self.say(tr("Still working on the last change…"))
            return
        if key == "still_true":
            self._still_true(memory)
            return
        {"edit": self._edit, "delete": self._delete}[key]([memory])

    def _tidy(self) -> None:
        """The consolidation pass (core/consolidation/): it only proposes; each proposal comes
        up in the confirmation dialog, and nothing changes until it is answered there."""

        def done(results: list[dict[str, Any]]) -> None:
            found = results[0]
            self.say(
                tr(
                    "Found {duplicates} groups of near-duplicates and {contradictions} contradictions; "
                    "{proposed} new proposals wait for your answer in the confirmation dialog."
                ).format(
                    duplicates=found["duplicates"],
                    contradictions=found["contradictions"],
                    proposed=len(found["proposed"]),
                )
            )

        self._submit([("consolidate", {})], done)

    def _still_true(self, memory: Memory) -> None:
        def done(results: list[dict[str, Any]]) -> None:
            if results[0]["found_again"]:
                self.say(tr("#{id} is not stale: its repository has its names again.").format(id=memory.id))
            else:
                self.say(tr("Kept #{id} as true.").format(id=memory.id))

        self._submit([("still_true", {"id": memory.id})], done)

    def _submit(
        self,
        steps: list[tuple[str, dict[str, Any]]],
        done: Callable[[list[dict[str, Any]]], None],
        expect: list[tuple[str, str, Any]] | None = None,
        failed_undo: Undo | None = None,
    ) -> None:
        """Run service ops in order off the UI thread; report, record undo, reload. The action
        buttons wait meanwhile, so an undo never pops an action that has not finished."""

        def work() -> list[dict[str, Any]]:
            if expect:
                check(self.host, Undo("", [], expect))
            return [self.host.handle(op, params) for op, params in steps]

        def finished(results: list[dict[str, Any]]) -> None:
            self._set_busy(False)
            done(results)
            self.model.reload()

        def failed(exc: Exception) -> None:
            self._set_busy(False)
            if failed_undo is not None:  # the older undos assumed what this one would have put back
                self._drop_undo(failed_undo, str(exc))
            else:
                self.say(tr("Not done: {error}").format(error=exc))
            self.model.reload()

        self._set_busy(True)
        self.worker.run(work, finished, failed)

    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._sync_buttons()

    def _sync_buttons(self) -> None:
        """A button is enabled only when it can act: nothing runs, and the selection fits it
        (Edit and History one memory, Merge two, the others at least one)."""
        selected = len({i.row() for i in self.table.selectionModel().selectedRows()})
        needs = {"edit": selected == 1, "history": selected == 1, "merge": selected == 2}
        for key, button in self.buttons.items():
            if key in ("undo", "refresh"):
                continue
            fits = needs.get(key, selected > 0) if key not in ("add", "import", "tidy") else True
            button.setEnabled(not self._busy and fits)
        self._show_undo()

    def _show_undo(self) -> None:
        text, tip = button_text(self.undo_stack)
        self.buttons["undo"].setText(text)
        self.buttons["undo"].setToolTip(tip)
        self.buttons["undo"].setEnabled(bool(self.undo_stack) and not self._busy)

    def refresh_undo(self) -> None:
        """Coming back to the view (the trash, another client or the side judge may have
        changed things): an undo that would no longer put back what it says is dropped now,
        with the older ones, and the view says why — the button never offers a stale one."""
        if not self.undo_stack:
            return
        top = self.undo_stack[-1]

        def stale(exc: Exception) -> None:
            if isinstance(exc, ChangedSince) and self.undo_stack and self.undo_stack[-1] is top:
                self._drop_undo(top, str(exc))

        self.worker.run(lambda: check(self.host, top), lambda _none: None, stale)

    def _drop_undo(self, undo: Undo, why: str) -> None:
        self.undo_stack = []
        self._show_undo()
        self.say(tr("Undo of “{what}” is no longer possible: {why}.").format(what=undo.label, why=why))

    def _remember(
        self,
        label: str,
        steps: list[tuple[str, dict[str, Any]]],
        expect: list[tuple[str, str, Any]] | None = None,
    ) -> None:
        self.undo_stack = [*self.undo_stack[-(DEPTH - 1) :], Undo(label, steps, expect)]
        self._show_undo()

    def _add(self) -> None:
        """Text, group and scope from the dialog (the group filter only suggests the group)."""
        asked = self.ask_new_memory("project" if self.group.currentIndex() == 2 else "rule")
        if asked is None:
            return
        category, text, scope = asked

        def done(results: list[dict[str, Any]]) -> None:
            memory = results[0]["memory"]
            if results[0].get("action") == "reinforce":  # that text is there already: nothing to undo
                self.say(tr("Already there: #{id} was reinforced instead").format(id=memory["id"]))
                return
            where = scope_name(scope) if scope else tr("everywhere")
            self.say(
                tr("Added #{id} ({group}, {scope}, confidence 0.5)").format(
                    id=memory["id"], group=group_name(category), scope=where
                )
            )
            self._remember(
                tr("add #{id}").format(id=memory["id"]),
                [("delete", {"ids": [memory["id"]]})],
                [(memory["id"], "text", memory["text"])],
            )

        self._submit([("add", {"category": category, "text": text, "scope": scope})], done)

    def _edit(self, chosen: list[Memory]) -> None:
        memory = chosen[0]
        text = self.ask_text(
            tr("Edit"), tr("New text of #{id} (confidence unchanged):").format(id=memory.id), memory.text
        )
        if text is None or text == memory.text:
            return

        def done(results: list[dict[str, Any]]) -> None:
            self.say(tr("Edited #{id}").format(id=memory.id))
            self._remember(
                tr("edit #{id}").format(id=memory.id),
                [("replace", {"id": memory.id, "text": memory.text})],
                [(memory.id, "text", results[0]["memory"]["text"])],
            )

        self._submit([("replace", {"id": memory.id, "text": text})], done)

    def _merge(self, chosen: list[Memory]) -> None:
        if len(chosen) != 2:
            self.say(tr("Select exactly two memories to merge."))
            return
        keep, other = sorted(chosen, key=lambda m: -m.confidence)
        text = self.ask_text(
            tr("Merge two"),
            tr(
                "Text of the merged memory (#{keep} stays with the higher confidence; #{other} goes to the trash):"
            ).format(keep=keep.id, other=other.id),
            f"{keep.text}；{other.text}",
        )
        if text is None:
            return

        def done(results: list[dict[str, Any]]) -> None:
            self.say(tr("Merged #{other} into #{keep}").format(other=other.id, keep=keep.id))
            undo = [("replace", {"id": keep.id, "text": keep.text}), ("restore", {"id": other.id})]
            merged = results[0]["memory"]["text"]
            self._remember(tr("merge into #{id}").format(id=keep.id), undo, [(keep.id, "text", merged)])

        self._submit([("merge", {"id": keep.id, "id2": other.id, "text": text})], done)

    def _reinforce(self, chosen: list[Memory]) -> None:
        # Not undoable: the points are the day's reinforcement, capped, as the seed's rules say.
        def done(results: list[dict[str, Any]]) -> None:
            gained = ", ".join(f"#{m.id} +{r['gained']:g}" for m, r in zip(chosen, results, strict=True))
            self.say(gained)

        self._submit([("reinforce", {"id": m.id}) for m in chosen], done)

    def _pin(self, chosen: list[Memory]) -> None:
        """Pins the selection, or unpins it when every selected memory is pinned already."""
        pin = not all(m.pinned for m in chosen)
        op, back = ("pin", "unpin") if pin else ("unpin", "pin")
        names = " ".join(f"#{m.id}" for m in chosen)

        def done(_results: list[dict[str, Any]]) -> None:
            said = tr("Pinned {names}: they never decay") if pin else tr("Unpinned {names}")
            self.say(said.format(names=names))
            undo = [(back, {"id": m.id}) for m in chosen if m.pinned != pin]
            if undo:
                touched = [m.id for m in chosen if m.pinned != pin]
                label = tr("pin {names}") if pin else tr("unpin {names}")
                self._remember(
                    label.format(names=id_list(touched)), undo, [(i, "pinned", pin) for i in touched]
                )

        self._submit([(op, {"id": m.id}) for m in chosen], done)

    def _history(self, chosen: list[Memory]) -> None:
        """Reads the history off the UI thread, then offers to restore one version."""
        memory = chosen[0]

        def shown(results: list[dict[str, Any]]) -> None:
            versions = results[0]["versions"]
            if not versions:
                self.say(tr("#{id} has no earlier texts.").format(id=memory.id))
                return
            version = self.choose_version(memory, versions, results[0].get("cues"))
            if version is None:
                return

            def restored(results: list[dict[str, Any]]) -> None:
                self.say(tr("#{id} has version {version}'s text again").format(id=memory.id, version=version))
                text = results[0]["memory"]["text"]
                self._remember(
                    tr("restore version {version} of #{id}").format(version=version, id=memory.id),
                    [("replace", {"id": memory.id, "text": memory.text})],
                    [(memory.id, "text", text)],
                )

            self._submit([("restore_version", {"id": memory.id, "version": version})], restored)

        self._submit([("history", {"id": memory.id})], shown)

    def _import_notes(self) -> None:
        """`memevo import-notes` in the panel: candidates found off the UI thread, chosen in a
        dialog, written through the same operation."""
        from pathlib import Path

        from ..core import notes
        from ..core.scopes import folder_of

        go, folder = self.ask_import_source()
        if not go:
            self.say(tr("Nothing imported."))
            return
        repo = folder_of(folder) if folder else None

        def found() -> list[dict[str, Any]]:
            candidates = notes.candidates(Path.home(), Path(repo) if repo else None)
            if not candidates:
                return []
            known = set(
                self.host.handle(
                    "notes_known",
                    {"shas": [c.sha for c in candidates], "texts": [c.text for c in candidates]},
                )["known"]
            )
            return [c.as_json() for c in candidates if c.sha not in known]

        def shown(answer: list[dict[str, Any]]) -> None:
            self._set_busy(False)
            if not answer:
                self.say(tr("Nothing new to import."))
                return
            chosen = self.choose_notes(answer)
            if not chosen:
                return
            self._submit(
                [("import_notes", {"items": chosen})],
                lambda results: self.say(
                    tr("Imported {count} statements.").format(count=len(results[0]["imported"]))
                ),
            )

        def failed(exc: Exception) -> None:
            self._set_busy(False)
            self.say(tr("Not done: {error}").format(error=exc))

        self._set_busy(True)
        self.worker.run(found, shown, failed)

    def _move(self, chosen: list[Memory]) -> None:
        steps = [("move", {"id": m.id, "category": _other(m.category)}) for m in chosen]

        def done(_results: list[dict[str, Any]]) -> None:
            names = " ".join(f"#{m.id} → {group_name(_other(m.category))}" for m in chosen)
            self.say(tr("Moved {names}").format(names=names))
            self._remember(
                tr("move {names}").format(names=id_list([m.id for m in chosen])),
                [("move", {"id": m.id, "category": m.category}) for m in chosen],
                [(m.id, "category", _other(m.category)) for m in chosen],
            )

        self._submit(steps, done)

    def _delete(self, chosen: list[Memory]) -> None:
        def done(results: list[dict[str, Any]]) -> None:
            deleted = results[0]["deleted"]
            self.say(tr("Deleted {count} (kept in the trash for 30 days)").format(count=len(deleted)))
            self._remember(
                tr("delete {names}").format(names=id_list(deleted)),
                [("restore", {"id": i}) for i in deleted],
                [(i, IN_TRASH, "") for i in deleted],
            )

        self._submit([("delete", {"ids": [m.id for m in chosen]})], done)

    def _purge(self, chosen: list[Memory]) -> None:
        names = ", ".join(f"#{m.id}" for m in chosen)
        question = tr("Remove the text of {names} from everywhere memevo keeps it? This cannot be undone.")
        if not self.confirm(tr("Purge"), question.format(names=names)):
            return
        self._submit(
            [("purge", {"id": m.id}) for m in chosen],
            lambda _r: self.say(tr("Purged {names}").format(names=names)),
        )

    def _undo(self) -> None:
        if not self.undo_stack:
            return
        undo = self.undo_stack.pop()
        self._submit(
            undo.steps,
            lambda _r: self.say(tr("Undone: {what}").format(what=undo.label)),
            undo.expect,
            failed_undo=undo,
        )


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


def _other(category: str) -> str:
    return "project" if category == "rule" else "rule"
