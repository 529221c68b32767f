"""The native confirmation dialog for learned proposals, and the queue that feeds it.

The dialog never blocks the service: it is shown without exec() (which would break the
qasync loop) and without taking keyboard focus from the editor the user is typing in; its
answer arrives as a signal. Closing it decides nothing: the proposal stays pending.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Any

from ..core import memories
from ..core.learning import jobs, resolve
from . import confirm_texts as texts
from .i18n import tr
from .learning_texts import proposer
from .qt import (
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QObject,
    QPlainTextEdit,
    QPushButton,
    Qt,
    QVBoxLayout,
    Signal,
)
from .worker import OffUi

log = logging.getLogger("memevo.desktop")
WARNING_STYLE = "color: #b00020; font-weight: bold;"


class ConfirmDialog(QDialog):
    """One proposal: where it came from, what it would do, the text (editable) and the choices
    it offers — every word in the UI's language but the proposal's text and the user's words."""

    decided = Signal(str, str, str)  # job id, decision, text (the user's own edit)
    dismissed = Signal(str)  # job id: closed without a decision

    def __init__(self, job: jobs.Job, now_ms: int | None = None) -> None:
        super().__init__(None)
        self.job = job
        self.proposal: dict[str, Any] = job.proposal or {}
        self._answered = False
        self.setWindowTitle(texts.title())
        self.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint)
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)  # the user's editor keeps focus
        self.setMinimumWidth(560)
        layout = QVBoxLayout(self)
        self.heading_label = _value(texts.heading())
        self.heading_label.setStyleSheet("font-weight: bold;")
        layout.addWidget(self.heading_label)
        grid = QGridLayout()
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        self._grid = grid
        self.row_titles: dict[QLabel, QLabel] = {}  # each row's value -> its name
        self.client_label = self._row(tr("Client:"), texts.client_name(job.client))
        name, path = texts.project(job.repo)
        self.project_label = self._row(tr("Project:"), name, path)
        self.session_label = self._row(tr("Session:"), texts.session(job.session), job.session)
        now = int(time.time() * 1000) if now_ms is None else now_ms
        self.time_label = self._row(tr("When:"), texts.when(job.created_ms, now))
        self.proposer_label = self._row(tr("Proposed by:"), proposer(self.proposal, job.client))
        self.words_label = self._row(tr("You said:"), job.words or "")
        for part in (self.words_label, self.row_titles[self.words_label]):
            part.setVisible(bool(job.words))  # a job made before words were kept has none
        # A client's model quotes the user's words; quoted words the user never typed in this
        # session may come from an injected instruction: said plainly before anything is saved.
        self.unverified_label = _value(
            tr("These words were not found in what you typed in this session — check before saving.")
        )
        self.unverified_label.setStyleSheet(WARNING_STYLE)
        self.unverified_label.setVisible(self.proposal.get("verified_words") is False)
        grid.addWidget(self.unverified_label, grid.rowCount(), 0, 1, 2)
        self.proposal_label = self._row(tr("Proposal:"), texts.describe(self.proposal))
        self.group_label = self._row(tr("Group:"), texts.group_label(str(self.proposal.get("category"))))
        self.editor = QPlainTextEdit(self._initial_text())
        self.editor.setFixedHeight(90)
        self.editor.textChanged.connect(self._validate)
        layout.addWidget(self.editor)
        self.counter = _value("")
        layout.addWidget(self.counter)
        row = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for decision in resolve.options(self.proposal):
            button = QPushButton(texts.choice(decision, self.proposal.get("target")))
            button.clicked.connect(lambda _=False, d=decision: self._answer(d))
            row.addWidget(button)
            self.buttons[decision] = button
        layout.addLayout(row)
        self._validate()

    def _row(self, name: str, value: str, tooltip: str = "") -> QLabel:
        """A "name: value" row of the grid; returns the value's label."""
        title_label = QLabel(name)
        title_label.setStyleSheet("font-weight: bold;")
        title_label.setAlignment(Qt.AlignmentFlag.AlignTop)
        shown = _value(value)
        shown.setToolTip(tooltip)
        row = self._grid.rowCount()
        self._grid.addWidget(title_label, row, 0)
        self._grid.addWidget(shown, row, 1)
        self.row_titles[shown] = title_label
        return shown

    def _initial_text(self) -> str:
        p = self.proposal
        return str(p.get("merged_text") or p.get("replace_text") or p.get("text") or "")

    def text(self) -> str:
        return self.editor.toPlainText().strip()

    def _validate(self) -> None:
        try:
            memories.check_text(self.text())
            ok, note = True, tr("{count} characters (6–400)").format(count=len(self.text()))
        except Exception:
            ok, note = False, tr("{count} characters: the text needs 6–400").format(count=len(self.text()))
        self.counter.setText(note)
        for decision, button in self.buttons.items():
            if decision not in ("discard", "reinforce"):
                button.setEnabled(ok)

    def _answer(self, decision: str) -> None:
        self._answered = True
        self.decided.emit(self.job.id, decision, self.text())
        self.close()

    def closeEvent(self, event: Any) -> None:
        if not self._answered:
            self.dismissed.emit(self.job.id)
        super().closeEvent(event)


class ConfirmQueue(QObject):
    """Shows ready proposals one at a time, from every client and session, losing none."""

    resolved = Signal(str, str)  # job id, the result message (for a notification)

    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.waiting: deque[str] = deque()
        self.current: ConfirmDialog | None = None
        self.dismissed_ids: set[str] = set()
        self.worker = OffUi("memevo-confirm", self)
        self.resolving: set[str] = set()

    def poll(self) -> None:
        """Pick up proposals that became ready since the last look, and announce results
        written without confirmation (one notification each)."""
        now = self.host.clock.now_ms()
        for job in jobs.unannounced(self.host.store):
            jobs.update(self.host.store, job.id, now, status="done", shown_ms=now)
            message = (job.result or {}).get("message") or tr("This memory was not written: {error}").format(
                error=job.error
            )
            self.resolved.emit(job.id, str(message))
        for job in jobs.pending(self.host.store):
            known = job.id in self.waiting or (self.current and self.current.job.id == job.id)
            if job.status == "ready" and not known and job.id not in self.dismissed_ids:
                self.waiting.append(job.id)
        self._show_next()

    def reopen_shown(self) -> None:
        """Proposals closed without an answer (still pending) go back in the queue."""
        for job in jobs.pending(self.host.store):
            current = self.current.job.id if self.current else None
            if job.status == "shown" and job.id != current and job.id not in self.waiting:
                self.waiting.append(job.id)

    def _show_next(self) -> None:
        if self.current is not None or not self.waiting:
            return
        job = jobs.get(self.host.store, self.waiting.popleft())
        if job is None or job.status not in ("ready", "shown"):
            self._show_next()
            return
        now = self.host.clock.now_ms()
        for stale in jobs.of_session(self.host.store, job.client, job.session, ("shown",)):
            if stale.id != job.id and stale.id not in self.resolving:  # answered, being written
                jobs.update(self.host.store, stale.id, now, status="voided")  # the seed's rule
        jobs.update(self.host.store, job.id, now, status="shown", shown_ms=now)
        job.status = "shown"
        self.current = ConfirmDialog(job)
        self.current.decided.connect(self._on_decided)
        self.current.dismissed.connect(self._on_dismissed)
        self.current.show()

    def _on_decided(self, job_id: str, decision: str, text: str) -> None:
        job = self.current.job if self.current else None
        self.current = None
        params = {
            "client": job.client if job else "",
            "sessionID": job_id,
            "decision": decision,
            "text": text,
            "from_dialog": True,
        }

        # Writing a memory rewrites memories.html and re-syncs the index (about a second at
        # 100k memories): on the worker, so the UI — and the service loop it hosts — never wait.
        def done(result: dict[str, Any]) -> None:
            self.resolving.discard(job_id)
            self.resolved.emit(job_id, str(result.get("message", "")))

        def failed(exc: Exception) -> None:
            self.resolving.discard(job_id)
            log.warning("resolve of %s failed: %s", job_id[:8], exc)
            self.resolved.emit(job_id, tr("Not written: {error}").format(error=exc))

        self.resolving.add(job_id)
        self.worker.run(lambda: self.host.handle("side.resolve", params), done, failed)
        self._show_next()

    def _on_dismissed(self, job_id: str) -> None:
        # Closing decides nothing: it stays pending (shown) until answered or cleaned up.
        self.current = None
        self.dismissed_ids.add(job_id)
        self._show_next()


def _value(text: str) -> QLabel:
    """Plain text (the user's words may hold < and &), wrapped."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


async def run_queue(queue: ConfirmQueue, stop: asyncio.Event, every_s: float = 1.0) -> None:
    while not stop.is_set():
        try:
            queue.poll()
        except Exception:
            log.exception("confirmation queue poll failed")
        await asyncio.sleep(every_s)
