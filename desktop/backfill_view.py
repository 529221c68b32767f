"""The panel's "From past sessions" tab: `memevo backfill --review` with a window
(core/importers/backfill.py finds the candidates; cli/backfill_commands.py is the terminal's face).

The scan runs on the view's worker: the clients' transcripts are read here, the candidates found
by the tray's own service (`backfill_scan`, its loaded model). Each candidate shows its evidence
and waits for the user: accept (written through `import_notes`), edit, change group, or skip
(recorded in backfill.json: never proposed again); one key each while the list has focus.
Nothing is written without a yes. Once every candidate is answered, the transcripts' signatures
are saved, so the next scan reads only what is new; a view closed midway proposes the rest
again next time.

A scan shows how far it is and can be cancelled: the worker looks at Cancel between files and
between chunks of the service's work (backfill.watched), and a cancelled scan writes nothing.
*Improve the wording…* asks the side model (core/importers/improve.py) after the user saw the
number of calls; its wording is shown beside the one found, and the user can go back to it (o)."""

from __future__ import annotations

import html
import threading
from pathlib import Path
from typing import Any

from ..core.errors import InvalidInput
from ..core.importers import backfill, improve, transcripts
from ..core.memories.text import check_text
from .backfill_texts import evidence_line, group_text, reasons_text
from .core_texts import backfill_reason
from .i18n import tr
from .list_rows import WrappedRows
from .memories_dialogs import confirm
from .qt import (
    QAbstractItemView,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from .worker import OffUi

KEYS = {"a": "accept", "e": "edit", "g": "group", "o": "other", "s": "skip", "A": "accept_all"}


class CandidateList(QListWidget):
    """The candidates; a, e, g, o, s and A act on the current one while the list has focus."""

    pressed = Signal(str)

    def keyPressEvent(self, event: Any) -> None:
        key = event.text()
        if key in KEYS and not event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier:
            self.pressed.emit(KEYS[key])
            event.accept()
            return
        super().keyPressEvent(event)


class BackfillView(QWidget):
    """BackfillView(host): `host.handle(op, params)` is the tray's service."""

    said = Signal(object)  # progress from the worker: (stage, done, total), shown on the UI thread

    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.home = Path.home()
        self.worker = OffUi(parent=self)
        self.items: list[dict[str, Any]] = []  # the candidates not answered yet, as shown
        self.files: dict[str, str] | None = None  # the transcripts as this scan read them
        self.kept = self.skipped = 0
        self.last_message = ""
        self.stop = threading.Event()  # the user's Cancel, looked at by the worker
        self.read_counts = (0, 0)  # the scan's prompts and sessions, for its progress lines
        layout = QVBoxLayout(self)
        intro = QLabel(
            tr(
                "memevo can look through your past sessions in your coding assistants for what you said again and again, and propose it as memories. Nothing is kept until you accept it; what you skip is never proposed again."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        top = QHBoxLayout()
        self.scan_button = QPushButton(tr("Look through past sessions"))
        self.scan_button.clicked.connect(self.scan)
        self.cancel_button = QPushButton(tr("Cancel"))
        self.cancel_button.clicked.connect(self.cancel)
        self.improve_button = QPushButton(tr("Improve the wording…"))
        self.improve_button.setToolTip(
            tr(
                "Your side API's model proposes a clearer wording and group for each candidate; you see the number of calls before it starts."
            )
        )
        self.improve_button.clicked.connect(self.improve_wording)
        for button in (self.scan_button, self.cancel_button, self.improve_button):
            top.addWidget(button)
        top.addStretch(1)
        layout.addLayout(top)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        layout.addWidget(self.progress)
        self.list = CandidateList()
        self.list.setWordWrap(True)
        self.list.setItemDelegate(WrappedRows(self.list))
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.pressed.connect(self.act)
        self.list.currentRowChanged.connect(self._row_changed)
        layout.addWidget(self.list, 2)
        self.evidence = QLabel()
        self.evidence.setWordWrap(True)
        self.evidence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.evidence, 1)
        row = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for key, text in (
            ("accept", tr("Accept (a)")),
            ("edit", tr("Edit… (e)")),
            ("group", tr("Change group (g)")),
            ("other", tr("Other wording (o)")),
            ("skip", tr("Skip (s)")),
            ("accept_all", tr("Accept all shown (A)")),
        ):
            button = QPushButton(text)
            button.clicked.connect(lambda _checked=False, k=key: self.act(k))
            row.addWidget(button)
            self.buttons[key] = button
        row.addStretch(1)
        layout.addLayout(row)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.said.connect(self._progress)
        self._working(False)

    # -- the scan ---------------------------------------------------------------------------------
    def scan(self) -> None:
        if self.worker.busy:
            return
        self.items, self.files = [], None
        self.kept = self.skipped = 0
        self._fill()
        self._working(True)
        self._say(tr("Reading your sessions…"))
        self.worker.run(self._scan, self._found, self._failed)

    def start(self) -> None:
        """Scan unless a scan runs or candidates wait (the tray and the wizard open the tab)."""
        if not self.worker.busy and not self.items:
            self.scan()

    def cancel(self) -> None:
        self.stop.set()
        self.cancel_button.setEnabled(False)
        self._say(tr("Cancelling…"))

    def _scan(self) -> dict[str, Any]:
        """On the worker: what `memevo backfill` does before its review."""
        state = backfill.load_state()

        def step(done: int, total: int) -> None:
            if done % 10 == 0:  # a signal per file would only queue up behind the screen
                self.said.emit(("files", done, total))

        try:
            try:  # the folders memevo has seen repositories in, for the CodeBuddy IDE's workspaces
                known = self.host.handle("repo_folders", {})["folders"]
            except Exception:  # a busy store: the folders the transcripts name still count
                known = []
            prompts, files = transcripts.read_all(
                self.home, None, state["files"], step, self.stop.is_set, known
            )
            if not prompts:
                return {"prompts": 0, "candidates": [], "files": files, "before": bool(state["files"])}
            sessions = len({(p.client, p.session) for p in prompts})
            self.said.emit(("read", len(prompts), sessions))
            given = {"prompts": [p.as_json() for p in prompts]}
            with backfill.watched(lambda *stage: self.said.emit(stage), self.stop.is_set):
                report = self.host.handle("backfill_scan", given)
        except backfill.Cancelled:
            return {"cancelled": True}
        skipped = set(backfill.load_state()["skipped"])
        found = [c for c in report["candidates"] if c["sha"] not in skipped]
        return {"prompts": len(prompts), "candidates": found, "files": files, "before": bool(state["files"])}

    def _progress(self, what: tuple[str, int, int]) -> None:
        stage, done, total = what
        if stage == "read":
            self.read_counts = (done, total)
        else:
            self.progress.setRange(0, max(total, 1))
            self.progress.setValue(done)
        said = {
            "files": tr("Reading your sessions…"),
            "encoding": tr("{prompts} prompts in {sessions} sessions; reading their meaning…"),
            "comparing": tr("Comparing with your memories…"),
            "asking": tr("Asking the side model: call {call} of {calls}…"),
        }.get(stage, tr("{prompts} prompts in {sessions} sessions; finding what lasts…"))
        prompts, sessions = self.read_counts
        self._say(said.format(prompts=prompts, sessions=sessions, call=done + 1, calls=total))

    def _found(self, report: dict[str, Any]) -> None:
        self._working(False)
        if report.get("cancelled"):
            self._say(tr("Cancelled: nothing was kept or recorded."))
            return
        self.files = report["files"]
        self.items = [dict(c) for c in report["candidates"]]
        self._fill()
        if self.items:
            self._say(
                tr("{count} to review. Nothing is kept until you accept it.").format(count=len(self.items))
            )
            self.list.setFocus()
        elif not report["prompts"]:
            self._say(
                tr("Nothing new in your sessions since the last review.")
                if report["before"]
                else tr("No past sessions found: no coding assistant's transcripts are on this machine.")
            )
        else:
            self._say(
                tr("No candidates: nothing was said again, or said to last, that is not a memory already.")
            )
            self._finish()

    # -- the side model's wording ------------------------------------------------------------------
    def improve_wording(self) -> None:
        """Count the calls first (the key is read off the UI thread), then ask the user."""
        todo = [row for row, c in enumerate(self.items) if "original" not in c]
        if self.worker.busy or not todo:
            return
        self._sync_buttons(busy=True)
        self.worker.run(lambda: improve.plan(len(todo)), lambda plan: self._ask(plan, todo), self._failed)

    def confirm_calls(self, question: str) -> bool:
        """The user's yes before any call (tests replace it)."""
        return confirm(self, tr("Improve the wording"), question)

    def _ask(self, plan: improve.Plan, todo: list[int]) -> None:
        self._sync_buttons()
        if plan.endpoint is None:
            self._say(
                tr(
                    "No side API is set up, so the wording is not improved; the candidates stand as found. To use one, set its address, model and key in Settings."
                )
            )
            return
        calls = (  # plural() fills {count} only; both wordings still go through tr()
            tr("This makes {count} call to {address} (model {model}).")
            if plan.calls == 1
            else tr("This makes {count} calls to {address} (model {model}).")
        )
        question = " ".join(
            (
                tr("Improve the wording of {covered} of {count} candidates with your side API?").format(
                    covered=plan.covered, count=plan.candidates
                ),
                calls.format(count=plan.calls, address=plan.endpoint.base, model=plan.endpoint.model),
                tr(
                    "Sent: each candidate's text, group and repositories, and your words, with secrets redacted. Nothing is kept until you accept it."
                ),
            )
        )
        if not self.confirm_calls(question):
            self._say(tr("Not improved; the candidates stand as found."))
            return
        sent = [dict(self.items[row]) for row in todo]

        def work() -> dict[str, Any]:
            try:
                report = improve.improve(
                    sent,
                    plan,
                    lambda *call: self.said.emit(("asking", *call)),
                    self.stop.is_set,
                    count=lambda: bool(self.host.handle("side_call", {})["counted"]),
                )
            except backfill.Cancelled:
                report = {"cancelled": True}
            return report | {
                "answers": [(row, c) for row, c in zip(todo, sent, strict=True) if "improved" in c]
            }

        self._working(True)
        self.worker.run(work, self._improved, self._failed)

    def _improved(self, report: dict[str, Any]) -> None:
        self._working(False)
        for row, c in report["answers"]:
            if row < len(self.items) and self.items[row]["sha"] == c["sha"]:
                self.items[row] = improve.proposed(c)
        self._fill(max(self.list.currentRow(), 0))
        said = (
            tr("Cancelled. The side model improved {count} of them.")
            if report.get("cancelled")
            else tr("The side model improved {count} of them, then stopped: {reason}")
            if report.get("stopped")
            else tr("The side model improved {count} of them.")
        )
        stopped = report.get("stopped")
        reason = backfill_reason(stopped) if stopped else None
        self._say(said.format(count=len(report["answers"]), reason=reason))

    def _failed(self, exc: Exception) -> None:
        self._working(False)
        self._say(tr("Not done: {error}").format(error=exc))

    # -- the review ----------------------------------------------------------------------------------
    def act(self, action: str) -> None:
        row = self.list.currentRow()
        if self.worker.busy or not self.items or (action != "accept_all" and not 0 <= row < len(self.items)):
            return
        if action == "accept_all":
            self._accept(list(range(len(self.items))))
        elif action == "accept":
            self._accept([row])
        elif action == "skip":
            self._skip(row)
        elif action == "edit":
            self._edit(row)
        elif action == "group" or (action == "other" and improve.other_wording(self.items[row])):
            if action == "group":
                backfill.regroup(self.items[row])
            self._fill(row)

    def ask_text(self, current: str) -> str | None:
        """The text to keep (tests replace it)."""
        text, ok = QInputDialog.getMultiLineText(
            self, tr("Edit the candidate"), tr("The text to keep:"), current
        )
        return text if ok else None

    def _edit(self, row: int) -> None:
        text = self.ask_text(self.items[row]["text"])
        if text is None:
            return
        try:
            self.items[row]["text"] = check_text(text)
        except InvalidInput as exc:
            self._say(tr("Not changed: {error}").format(error=exc))
            return
        self._fill(row)

    def _accept(self, rows: list[int]) -> None:
        chosen = [self.items[r] for r in rows]
        self._sync_buttons(busy=True)

        def done(result: dict[str, Any]) -> None:
            self.kept += len(result["imported"])
            self._answered(
                rows,
                tr("Kept {count}.").format(count=len(result["imported"]))
                + (
                    " " + tr("{count} already there.").format(count=result["skipped"])
                    if result["skipped"]
                    else ""
                ),
            )

        items = [{k: c[k] for k in ("text", "category", "scope", "source")} for c in chosen]

        def work() -> dict[str, Any]:
            result: dict[str, Any] = self.host.handle("import_notes", {"items": items})
            reworded = backfill.reworded(chosen)  # the words found are not proposed again beside it
            if reworded:
                backfill.save_state(reworded, backfill.load_state()["files"])
            return result

        self.worker.run(work, done, self._failed)

    def _skip(self, row: int) -> None:
        sha = self.items[row]["sha"]
        self._sync_buttons(busy=True)

        def done(_none: Any) -> None:
            self.skipped += 1
            self._answered([row], tr("Skipped: it is not proposed again."))

        # the transcripts' signatures stay as the last whole review left them (the rest comes back)
        self.worker.run(
            lambda: backfill.save_state([sha], backfill.load_state()["files"]), done, self._failed
        )

    def _answered(self, rows: list[int], said: str) -> None:
        for row in sorted(rows, reverse=True):
            del self.items[row]
        self._fill(min(rows))
        if self.items:
            self._say(said)
            self.list.setFocus()
            return
        self._finish()
        self._say(
            said
            + " "
            + tr("Every candidate is answered: kept {kept}, skipped {skipped}.").format(
                kept=self.kept, skipped=self.skipped
            )
        )

    def _finish(self) -> None:
        """Every candidate answered: the next scan reads only sessions new or changed since."""
        files = self.files
        if files is None:
            return
        self.files = None
        self.worker.run(lambda: backfill.save_state([], files), lambda _none: None, self._failed)

    # -- showing ------------------------------------------------------------------------------------
    def _fill(self, row: int = 0) -> None:
        self.list.clear()
        for c in self.items:
            mark = " · " + tr("the side model's wording") if improve.uses_improved(c) else ""
            item = QListWidgetItem(f"{group_text(c)}: {c['text']}\n    {evidence_line(c)}{mark}")
            item.setToolTip(c["text"])
            self.list.addItem(item)
        if self.items:
            self.list.setCurrentRow(min(row, len(self.items) - 1))
        self._show_evidence()
        self._sync_buttons()

    def _row_changed(self, _row: int) -> None:
        self._show_evidence()
        self._sync_buttons(self.worker.busy)

    def _show_evidence(self) -> None:
        row = self.list.currentRow()
        if not 0 <= row < len(self.items):
            self.evidence.setText("")
            return
        c = self.items[row]
        words = "<br>".join(f"“{html.escape(w)}”" for w in c["evidence"]["words"])
        other = ""
        if "original" in c:
            label, was = (
                (tr("As found:"), c["original"])
                if improve.uses_improved(c)
                else (tr("The side model's wording:"), c["improved"])
            )
            other = f"{html.escape(label)} {html.escape(group_text(was))}: {html.escape(was['text'])}<br>"
        self.evidence.setText(
            f"<b>{html.escape(group_text(c))}</b>: {html.escape(c['text'])}<br>"
            + other
            + html.escape(evidence_line(c))
            + "<br>"
            + tr("Why: {why}").format(why=html.escape(reasons_text(c["evidence"])))
            + "<br>"
            + tr("Your words:")
            + "<br>"
            + words
        )

    def _sync_buttons(self, busy: bool = False) -> None:
        for button in self.buttons.values():
            button.setEnabled(bool(self.items) and not busy)
        row = self.list.currentRow()
        self.buttons["other"].setEnabled(
            not busy and 0 <= row < len(self.items) and "original" in self.items[row]
        )
        self.improve_button.setEnabled(not busy and any("original" not in c for c in self.items))

    def _working(self, on: bool) -> None:
        """A scan or the side model's pass under way: Cancel and the progress bar, and no other action."""
        if on:
            self.stop.clear()
            self.progress.setRange(0, 0)  # busy until the first figures come
        self.progress.setVisible(on)
        self.scan_button.setEnabled(not on)
        self.cancel_button.setEnabled(on)
        self._sync_buttons(busy=on)

    def _say(self, text: str) -> None:
        self.last_message = text
        self.message.setText(text)
