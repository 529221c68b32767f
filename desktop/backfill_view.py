"""The panel's "From past sessions" tab: `memevo backfill --review` with a window
(core/importers/backfill.py finds the candidates; cli/backfill_commands.py is the terminal's face).

The scan runs on the view's worker: the clients' transcripts are read here, the candidates found
by the tray's own service (`backfill_scan`, its loaded model). Each candidate shows its evidence
and waits for the user: accept (written through `import_notes`), edit, change group, or skip
(recorded in backfill.json: never proposed again); one key each while the list has focus.
Nothing is written without a yes. Once every candidate is answered, the transcripts' signatures
are saved, so the next scan reads only what is new; a view closed midway proposes the rest
again next time."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from ..core.errors import InvalidInput
from ..core.importers import backfill, transcripts
from ..core.memories.text import check_text
from .i18n import tr
from .memtable import group_name
from .qt import (
    QAbstractItemView,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from .worker import OffUi

KEYS = {"a": "accept", "e": "edit", "g": "group", "s": "skip", "A": "accept_all"}


class CandidateList(QListWidget):
    """The candidates; a, e, g, s and A act on the current one while the list has focus."""

    pressed = Signal(str)

    def keyPressEvent(self, event: Any) -> None:
        key = event.text()
        if key in KEYS and not event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier:
            self.pressed.emit(KEYS[key])
            event.accept()
            return
        super().keyPressEvent(event)


def group_text(candidate: dict[str, Any]) -> str:
    if candidate["category"] == "project" and candidate["scope"] != "global":
        return tr("{group} in {repository}").format(
            group=group_name("project"), repository=candidate["scope"]
        )
    return group_name(candidate["category"])


def evidence_line(candidate: dict[str, Any]) -> str:
    evidence = candidate["evidence"]
    line = tr("said in {sessions} session(s), {first}..{last}").format(
        sessions=evidence["sessions"], first=evidence["first_day"], last=evidence["last_day"]
    )
    if evidence["repositories"]:
        line += " · " + ", ".join(evidence["repositories"])
    return line


def why_text(reason: str) -> str:
    """core's reasons (English) in the UI language."""
    if reason.startswith("said in ") and reason.endswith(" sessions"):
        return tr("said in {count} sessions").format(count=reason.split()[2])
    known = {
        "says it is to last": tr("says it is to last"),
        "a correction of the assistant": tr("a correction of the assistant"),
    }
    return known.get(reason, reason)


class BackfillView(QWidget):
    """BackfillView(host): `host.handle(op, params)` is the tray's service."""

    said = Signal(object)  # progress from the worker: (what, figures), shown on the UI thread

    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.home = Path.home()
        self.worker = OffUi(parent=self)
        self.items: list[dict[str, Any]] = []  # the candidates not answered yet, as shown
        self.files: dict[str, str] | None = None  # the transcripts as this scan read them
        self.kept = self.skipped = 0
        self.last_message = ""
        layout = QVBoxLayout(self)
        intro = QLabel(
            tr(
                "memevo can look through your past sessions in your coding assistants for what you said again and again, and propose it as memories. Nothing is kept until you accept it; what you skip is never proposed again."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.scan_button = QPushButton(tr("Look through past sessions"))
        self.scan_button.clicked.connect(self.scan)
        layout.addWidget(self.scan_button, 0, Qt.AlignmentFlag.AlignLeft)
        self.list = CandidateList()
        self.list.setWordWrap(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.pressed.connect(self.act)
        self.list.currentRowChanged.connect(lambda _row: self._show_evidence())
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
        self._sync_buttons()

    # -- the scan ---------------------------------------------------------------------------------
    def scan(self) -> None:
        if self.worker.busy:
            return
        self.scan_button.setEnabled(False)
        self.items, self.files = [], None
        self.kept = self.skipped = 0
        self._fill()
        self._say(tr("Reading your sessions…"))
        self.worker.run(self._scan, self._found, self._failed)

    def start(self) -> None:
        """Scan unless a scan runs or candidates wait (the tray and the wizard open the tab)."""
        if not self.worker.busy and not self.items:
            self.scan()

    def _scan(self) -> dict[str, Any]:
        """On the worker: what `memevo backfill` does before its review."""
        state = backfill.load_state()
        prompts, files = transcripts.read_all(self.home, skip=state["files"])
        if not prompts:
            return {"prompts": 0, "candidates": [], "files": files, "before": bool(state["files"])}
        sessions = len({(p.client, p.session) for p in prompts})
        self.said.emit(("read", len(prompts), sessions))
        report = self.host.handle("backfill_scan", {"prompts": [p.as_json() for p in prompts]})
        skipped = set(backfill.load_state()["skipped"])
        found = [c for c in report["candidates"] if c["sha"] not in skipped]
        return {"prompts": len(prompts), "candidates": found, "files": files, "before": bool(state["files"])}

    def _progress(self, what: tuple[str, int, int]) -> None:
        _kind, prompts, sessions = what
        self._say(
            tr("{prompts} prompts in {sessions} sessions; finding what lasts…").format(
                prompts=prompts, sessions=sessions
            )
        )

    def _found(self, report: dict[str, Any]) -> None:
        self.scan_button.setEnabled(True)
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

    def _failed(self, exc: Exception) -> None:
        self.scan_button.setEnabled(True)
        self._sync_buttons()
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
        elif action == "group":
            item = self.items[row]
            item["category"] = "project" if item["category"] == "rule" else "rule"
            repos = item["evidence"]["repositories"]
            item["scope"] = repos[0] if item["category"] == "project" and len(repos) == 1 else "global"
            self._fill(row)
        elif action == "edit":
            self._edit(row)

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
        self.worker.run(lambda: self.host.handle("import_notes", {"items": items}), done, self._failed)

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
            item = QListWidgetItem(f"{group_text(c)}: {c['text']}\n    {evidence_line(c)}")
            item.setToolTip(c["text"])
            self.list.addItem(item)
        if self.items:
            self.list.setCurrentRow(min(row, len(self.items) - 1))
        self._show_evidence()
        self._sync_buttons()

    def _show_evidence(self) -> None:
        row = self.list.currentRow()
        if not 0 <= row < len(self.items):
            self.evidence.setText("")
            return
        c = self.items[row]
        words = "<br>".join(f"“{html.escape(w)}”" for w in c["evidence"]["words"])
        self.evidence.setText(
            f"<b>{html.escape(group_text(c))}</b>: {html.escape(c['text'])}<br>"
            + html.escape(evidence_line(c))
            + "<br>"
            + tr("Why: {why}").format(why=html.escape(", ".join(why_text(w) for w in c["evidence"]["why"])))
            + "<br>"
            + tr("Your words:")
            + "<br>"
            + words
        )

    def _sync_buttons(self, busy: bool = False) -> None:
        for button in self.buttons.values():
            button.setEnabled(bool(self.items) and not busy)

    def _say(self, text: str) -> None:
        self.last_message = text
        self.message.setText(text)
