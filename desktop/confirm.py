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

from ..core.learning import jobs, resolve
from ..core.memories import live as memories
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
        # the tray's dialog lets the user write a text: near-duplicates merge without a side model
        self.offered = resolve.options(self.proposal, by_hand=True)
        self.setWindowTitle(texts.title(self.proposal))
        self.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint)
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)  # the user's editor keeps focus
        self.setMinimumWidth(560)
        layout = QVBoxLayout(self)
        self.heading_label = _value(texts.heading(self.proposal, self.offered))
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
        if self.proposal.get("origin") == "consolidate":  # memevo's own pass: no client, no session
            for shown in (self.client_label, self.session_label):
                for part in (shown, self.row_titles[shown]):
                    part.setVisible(False)
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
        # A consolidation that cannot merge (a contradiction) offers the members' own texts to
        # keep: nothing to edit. One that can holds the merged text in the editor — the side
        # model's, else the first member's — and a button per member puts that member's text
        # there; the user may edit it before merging.
        consolidating = self.proposal.get("origin") == "consolidate"
        editable = not consolidating or "merge" in self.offered
        members = texts.member_texts(self.proposal) if consolidating else {}
        self.editor = QPlainTextEdit(self._initial_text())
        self.editor.setFixedHeight(90)
        self.editor.textChanged.connect(self._validate)
        self.pick_buttons: dict[str, QPushButton] = {}  # member id -> "use its text"
        if consolidating and editable:
            picks = QHBoxLayout()
            picks.addWidget(QLabel(tr("Merged text:")))
            for member_id, member_text in members.items():
                pick = QPushButton(
                    tr("Use #{id} “{excerpt}”").format(id=member_id, excerpt=texts.excerpt(member_text))
                )
                pick.setToolTip(member_text)
                pick.clicked.connect(lambda _=False, t=member_text: self.editor.setPlainText(t))
                picks.addWidget(pick)
                self.pick_buttons[member_id] = pick
            picks.addStretch(1)
            layout.addLayout(picks)
        layout.addWidget(self.editor)
        self.counter = _value("")
        layout.addWidget(self.counter)
        self.editor.setVisible(editable)
        self.counter.setVisible(editable)
        row = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        target = self.proposal.get("target")
        for decision in self.offered:
            button = QPushButton(texts.choice(decision, target, consolidating, members))
            kept = decision.removeprefix("keep:")
            if decision.startswith("keep:") and kept in members:
                button.setToolTip(members[kept])
            elif consolidating and decision == "merge":
                others = " ".join(f"#{i}" for i in members if i != str(target))
                button.setToolTip(
                    tr(
                        "The text above becomes memory #{id}; {others} go to the trash (they can be restored)."
                    ).format(id=target, others=others)
                )
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
            if decision not in ("discard", "reinforce") and not decision.startswith("keep:"):
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
    """Shows ready proposals one at a time, from every client and session, losing none.

    The store is read and written only on the queue's worker thread, never on the UI thread
    (which also runs the service's loop): the service announces each change to a job
    (Store.watch), the queue reads what is new on its worker and shows the next dialog when
    the answer comes back."""

    resolved = Signal(str, str)  # job id, the result message (for a notification)
    _woken = Signal()  # a job changed, on whatever thread wrote it: delivered on the UI thread

    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.waiting: deque[str] = deque()
        self.current: ConfirmDialog | None = None
        self.dismissed_ids: set[str] = set()
        self.worker = OffUi("memevo-confirm", self)
        self.resolving: set[str] = set()
        self._reading = False  # a look at the store is on the worker
        self._again = False  # something changed meanwhile: look once more when it is back
        self._opening: str | None = None  # the job being marked shown before its dialog opens
        # The first look also takes proposals an earlier tray app had shown and never got an
        # answer to (it quit or was restarted with the dialog open): they come back by themselves.
        self._first_look = True
        self._woken.connect(self.poll)
        self._unwatch = host.store.watch(jobs.TOPIC, self._woken.emit)
        self.destroyed.connect(lambda *_: self._unwatch())

    @property
    def busy(self) -> bool:
        """Work is on the worker or waiting to be done (tests wait for it)."""
        return self._reading or self._again or self._opening is not None or self.worker.busy

    def poll(self) -> None:
        """Pick up proposals that became ready since the last look, and announce results
        written without confirmation (one notification each): read on the worker."""
        if self._reading:
            self._again = True
            return
        self._reading = True
        self.worker.run(self._look, self._looked, self._look_failed)

    def _look(self) -> tuple[list[tuple[str, str]], list[jobs.Job]]:
        """On the worker: the results to announce (marked done here, so each is told once),
        and every pending proposal."""
        store, now = self.host.store, self.host.clock.now_ms()
        announced = []
        for job in jobs.unannounced(store):
            jobs.update(store, job.id, now, status="done", shown_ms=now)
            if job.result:  # worded in the UI's language from its fields (its message is Chinese)
                message = texts.result(job.result)
            else:
                message = tr("This memory was not written: {error}").format(error=job.error)
            announced.append((job.id, message))
        return announced, jobs.pending(store)

    def _looked(self, found: tuple[list[tuple[str, str]], list[jobs.Job]]) -> None:
        announced, pending = found
        for job_id, message in announced:
            self.resolved.emit(job_id, message)
        wanted = ("ready", "shown") if self._first_look else ("ready",)
        self._first_look = False
        for job in pending:
            if job.status in wanted and not self._known(job.id) and job.id not in self.dismissed_ids:
                self.waiting.append(job.id)
        self._finish_look()

    def _look_failed(self, exc: Exception) -> None:
        log.warning("confirmation queue: could not read the proposals: %s", exc)
        self._finish_look()

    def _finish_look(self) -> None:
        self._reading = False
        if self._again:
            self._again = False
            self.poll()
        self._show_next()

    def _known(self, job_id: str) -> bool:
        current = self.current.job.id if self.current else None
        return job_id in self.waiting or job_id in (current, self._opening)

    def reopen_shown(self) -> None:
        """Proposals closed without an answer (still pending) go back in the queue."""

        def add(pending: list[jobs.Job]) -> None:
            for job in pending:
                if job.status == "shown" and not self._known(job.id):
                    self.waiting.append(job.id)
            self._show_next()

        self.worker.run(lambda: jobs.pending(self.host.store), add, self._look_failed)

    def _show_next(self) -> None:
        if self.current is not None or self._opening is not None or not self.waiting:
            return
        job_id = self.waiting.popleft()
        self._opening = job_id
        self.worker.run(lambda: self._mark_shown(job_id), self._open, self._open_failed)

    def _mark_shown(self, job_id: str) -> jobs.Job | None:
        """On the worker: the job, now shown (older shown proposals of its session voided, the
        seed's rule), or None when it is no longer waiting for the user."""
        store, now = self.host.store, self.host.clock.now_ms()
        job = jobs.get(store, job_id)
        if job is None or job.status not in ("ready", "shown"):
            return None
        for stale in jobs.of_session(store, job.client, job.session, ("shown",)):
            if stale.id != job.id and stale.id not in self.resolving:  # answered, being written
                jobs.update(store, stale.id, now, status="voided")
        jobs.update(store, job.id, now, status="shown", shown_ms=now)
        job.status = "shown"
        return job

    def _open(self, job: jobs.Job | None) -> None:
        self._opening = None
        if job is not None:
            self.current = ConfirmDialog(job)
            self.current.decided.connect(self._on_decided)
            self.current.dismissed.connect(self._on_dismissed)
            self.current.show()
        self._show_next()

    def _open_failed(self, exc: Exception) -> None:
        log.warning("confirmation queue: could not open a proposal: %s", exc)
        self._opening = None  # it stays pending: `Pending proposals` or the next start shows it

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
            self.resolved.emit(job_id, texts.result(result))  # in the UI's language, not core's

        def failed(exc: Exception) -> None:
            self.resolving.discard(job_id)
            log.warning("resolve of %s failed: %s", job_id[:8], exc)
            self.resolved.emit(job_id, tr("Not written: {error}").format(error=exc))

        self.resolving.add(job_id)
        self.worker.run(lambda: self.host.handle("side_resolve", params), done, failed)
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


# A proposal is announced when it is written (Store.watch); this slow look only catches what an
# announcement could not carry (a job written before the queue existed, a failed read).
SWEEP_S = 30.0


async def run_queue(queue: ConfirmQueue, stop: asyncio.Event, every_s: float = SWEEP_S) -> None:
    while not stop.is_set():
        try:
            queue.poll()
        except Exception:
            log.exception("confirmation queue poll failed")
        await asyncio.sleep(every_s)
