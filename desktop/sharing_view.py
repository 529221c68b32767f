"""The panel's Sharing tab: each repository memevo knows on this machine with its shared facts
file (`.memevo/facts.md`, docs/sharing.md) — trusted, waiting for review, refused (the message
with its line, and what to do), the facts read from it, local changes not yet written, the facts
a teammate's edit of the file changed — and its actions: Share (as `memevo share --all
--pending`), Review, Trust, Not now, Untrust and Read again; and the sync remote (`memevo sync
REMOTE`). Everything goes through the service's operations on the view's workers: the UI thread
never waits on the store or on git; a sync, which may take minutes, has a worker of its own."""

from __future__ import annotations

import html
from typing import Any

from .i18n import plural, tr
from .qt import (
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
)
from .worker import OffUi


def state_text(kind: str) -> str:
    return {
        "none": tr("no facts file yet"),
        "problem": tr("cannot be read"),
        "waiting": tr("waiting for your review"),
        "declined": tr("not trusted (you said no)"),
        "trusted": tr("trusted"),
        "untrusted": tr("not reviewed yet"),
    }.get(kind, kind)


def details(repo: dict[str, Any]) -> str:
    """The selected repository, as rich text."""
    e = html.escape
    lines = [
        f"<b>{e(repo['repo'])}</b> — {e(repo['folder'])}",
        tr("<b>Facts file</b>: {file} ({state})").format(
            file=e(repo["file"]), state=state_text(repo["state"])
        ),
    ]
    if repo["problem"]:
        lines.append(tr("<b>Problem</b>: {problem}").format(problem=e(repo["problem"])))
        lines.append(
            tr(
                "<b>What to do</b>: fix the file at the line named (or put back the committed one: git checkout -- .memevo/facts.md), then choose Read again. Nothing is read from it until then; the facts read before stay."
            )
        )
    if repo["state"] == "waiting":
        lines.append(
            tr(
                "memevo reads nothing from this file until you have seen its facts and trust them: choose Review."
            )
        )
    lines.append(
        plural(repo["facts"], tr("{count} fact read from the file"), tr("{count} facts read from the file"))
        + " · "
        + plural(
            len(repo["pending"]),
            tr("{count} local change not yet written to it"),
            tr("{count} local changes not yet written to it"),
        )
        + " · "
        + plural(
            len(repo["unshared"]),
            tr("{count} project fact not shared yet"),
            tr("{count} project facts not shared yet"),
        )
    )
    for change in repo["pending"]:
        if change["local"] is None:
            lines.append(tr("Deleted here: {text}").format(text=e(change["file"])))
        else:
            lines.append(
                tr("Edited here: {before} → {after}").format(
                    before=e(change["file"]), after=e(change["local"])
                )
            )
    if repo["from_file"]:
        lines.append(tr("<b>The repository's words</b> (their text comes from the file):"))
        for fact in repo["from_file"]:
            mark = tr("changed by the file (a teammate's edit)") + ": " if fact["edited"] else ""
            lines.append(f"&nbsp;&nbsp;#{e(fact['id'])} {mark}{e(fact['text'])}")
    return "<br>".join(lines)


def review_text(review: dict[str, Any]) -> str:
    """What trusting the file would read (core/sharing/trust.py review), as rich text."""
    e = html.escape
    lines = [tr("<b>Review of {file}</b>:").format(file=e(review["file"]))]
    if review["sha"] is None:
        return tr("There is no facts file in this repository: nothing to review.")
    facts, added, changed, removed = review["facts"], review["added"], review["changed"], review["removed"]
    if not (changed or removed) and len(added) == len(facts):
        lines.append(
            plural(
                len(facts),
                tr("{count} fact, the repository's words — none read into memevo yet:"),
                tr("{count} facts, the repository's words — none read into memevo yet:"),
            )
        )
        lines += [f"+ {e(f['text'])}" for f in facts]
    else:
        lines.append(
            tr(
                "Changed since memevo last read it: {added} added, {changed} changed, {removed} removed"
            ).format(added=len(added), changed=len(changed), removed=len(removed))
        )
        lines += [f"+ {e(f['text'])}" for f in added]
        lines += [f"- {e(f['before'])}<br>+ {e(f['text'])}" for f in changed]
        lines += [f"- {e(f['text'])}" for f in removed]
        if removed:
            lines.append(tr("A removed fact goes to the trash once you trust this."))
    return "<br>".join(lines)


class SharingView(QWidget):
    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.worker = OffUi(parent=self)
        self.sync_worker = OffUi("memevo-panel-sync", parent=self)  # a sync may take minutes
        self.repos: list[dict[str, Any]] = []
        self.review: dict[str, Any] | None = None  # the review shown: Trust trusts exactly this content
        self.extra: str | None = None  # a folder chosen with Another repository…
        layout = QVBoxLayout(self)
        intro = QLabel(
            tr(
                "A repository's project facts can live in its .memevo/facts.md, reviewed and committed like code; memevo reads a teammate's file only once you trust its content."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.list = QListWidget()
        self.list.setMaximumHeight(140)
        self.list.currentRowChanged.connect(lambda _row: self._show_selected())
        layout.addWidget(self.list)
        self.details = QLabel("")
        self.details.setWordWrap(True)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        from .qt import QScrollArea

        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.details)
        layout.addWidget(scroll, 1)
        row = QHBoxLayout()
        self.share_button = QPushButton(tr("Share to the file"))
        self.share_button.setToolTip(
            tr(
                "Writes this repository's unshared project facts and your local changes to its .memevo/facts.md (as memevo share --all --pending). Review it and commit it: memevo never commits or pushes."
            )
        )
        self.share_button.clicked.connect(self.share)
        self.review_button = QPushButton(tr("Review…"))
        self.review_button.clicked.connect(self.show_review)
        self.trust_button = QPushButton(tr("Trust these facts"))
        self.trust_button.clicked.connect(self.trust)
        self.decline_button = QPushButton(tr("Not now"))
        self.decline_button.clicked.connect(self.decline)
        self.untrust_button = QPushButton(tr("Stop trusting"))
        self.untrust_button.clicked.connect(self.untrust)
        self.read_button = QPushButton(tr("Read again"))
        self.read_button.clicked.connect(self.read_again)
        self.other_button = QPushButton(tr("Another repository…"))
        self.other_button.clicked.connect(self.choose_other)
        self.buttons = [
            self.share_button,
            self.review_button,
            self.trust_button,
            self.decline_button,
            self.untrust_button,
            self.read_button,
        ]
        for button in [*self.buttons, self.other_button]:
            row.addWidget(button)
        row.addStretch(1)
        layout.addLayout(row)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        layout.addWidget(self._sync_box())
        self.refresh()

    # -- the sync remote ----------------------------------------------------------------------------
    def _sync_box(self) -> QGroupBox:
        box = QGroupBox(tr("Sync your memories through a git remote"))
        inner = QVBoxLayout(box)
        self.remote_label = QLabel(tr("Sync remote: reading…"))
        self.remote_label.setWordWrap(True)
        inner.addWidget(self.remote_label)
        row = QHBoxLayout()
        self.remote_edit = QLineEdit()
        self.remote_edit.setPlaceholderText(tr("git@github.com:you/memories.git, an HTTPS URL or a folder"))
        self.remote_button = QPushButton(tr("Set and sync now"))
        self.remote_button.clicked.connect(self.set_remote)
        row.addWidget(self.remote_edit, 1)
        row.addWidget(self.remote_button)
        inner.addLayout(row)
        self.sync_message = QLabel("")
        self.sync_message.setWordWrap(True)
        inner.addWidget(self.sync_message)
        return box

    def set_remote(self) -> None:
        remote = self.remote_edit.text().strip()
        if not remote:
            self.sync_message.setText(tr("Enter a git remote you own first."))
            return
        self.remote_button.setEnabled(False)
        self.sync_message.setText(tr("Syncing with {remote}…").format(remote=remote))

        def done(report: dict[str, Any]) -> None:
            self.remote_button.setEnabled(True)
            self.remote_edit.clear()
            self.sync_message.setText(
                tr("Synced with {remote}: {out} written out, {taken} taken in, {merged} merged.").format(
                    remote=report.get("remote") or remote,
                    out=report.get("exported", 0),
                    taken=report.get("imported", 0),
                    merged=len(report.get("merged", [])),
                )
                + (
                    " "
                    + plural(
                        len(report["conflicts"]),
                        tr("{count} conflict: memevo sync lists it."),
                        tr("{count} conflicts: memevo sync lists them."),
                    )
                    if report.get("conflicts")
                    else ""
                )
            )
            self._read_remote()

        def failed(exc: Exception) -> None:
            self.remote_button.setEnabled(True)
            self.sync_message.setText(tr("Not synced: {error}").format(error=exc))
            self._read_remote()

        self.sync_worker.run(lambda: self.host.handle("sync", {"remote": remote}), done, failed)

    def _read_remote(self) -> None:
        from ..core.sync import remote as syncgit

        def show(remote: str | None) -> None:
            self.remote_label.setText(
                tr("Sync remote: {remote}. The tray syncs every syncMinutes (Settings).").format(
                    remote=remote
                )
                if remote
                else tr("No sync remote yet: enter a git remote you own (an empty repository is fine).")
            )

        self.sync_worker.run(syncgit.current_remote, show, lambda exc: show(None))

    # -- the repositories ---------------------------------------------------------------------------
    def refresh(self) -> None:
        params = {"cwd": self.extra} if self.extra else {}
        self.worker.run(lambda: self.host.handle("share_overview", params), self._show, self._failed)
        self._read_remote()

    def _show(self, result: dict[str, Any]) -> None:
        from ..core.service import sharework

        sharework.note_problems(result["problems"])  # the tray's icon says them too
        selected = self._selected()
        self.repos = result["repositories"]
        self.list.blockSignals(True)
        self.list.clear()
        for repo in self.repos:
            self.list.addItem(f"{repo['repo']} — {state_text(repo['state'])}")
        self.list.blockSignals(False)
        if not self.repos:
            self.list.addItem(tr("none yet: memevo knows a repository once a session ran in it"))
        folders = [r["folder"] for r in self.repos]
        row = folders.index(selected["folder"]) if selected and selected["folder"] in folders else 0
        self.list.setEnabled(bool(self.repos))
        if self.repos:
            self.list.setCurrentRow(row)
        self._show_selected()

    def _failed(self, exc: Exception) -> None:
        self.extra = None  # a folder chosen that is no repository is not asked again
        self._say(tr("Not done: {error}").format(error=exc))
        self._show_selected()

    def _selected(self) -> dict[str, Any] | None:
        row = self.list.currentRow()
        return self.repos[row] if self.repos and 0 <= row < len(self.repos) else None

    def _show_selected(self) -> None:
        repo = self._selected()
        self.review = None
        self.details.setText(details(repo) if repo else "")
        kind = repo["state"] if repo else ""
        can_share = bool(
            repo and (repo["unshared"] or repo["pending"]) and kind not in ("waiting", "problem")
        )
        self.share_button.setEnabled(can_share)
        self.review_button.setEnabled(kind in ("waiting", "declined", "untrusted", "trusted"))
        self.trust_button.setEnabled(False)  # only for a review shown
        self.decline_button.setEnabled(False)
        self.untrust_button.setEnabled(kind == "trusted")
        self.read_button.setEnabled(bool(repo) and kind != "none")

    def _run(self, op: str, params: dict[str, Any], said: Any) -> None:
        """An operation on the selected repository, then the list read again."""
        for button in self.buttons:
            button.setEnabled(False)

        def done(result: dict[str, Any]) -> None:
            self._say(said(result))
            self.refresh()

        def failed(exc: Exception) -> None:
            self._say(tr("Not done: {error}").format(error=exc))
            self.refresh()

        self.worker.run(lambda: self.host.handle(op, params), done, failed)

    def share(self) -> None:
        repo = self._selected()
        if repo is None:
            return
        self._run(
            "share",
            {"cwd": repo["folder"], "all": True, "pending": True},
            lambda r: (
                tr(
                    "Wrote {file}: {shared} shared, {pending} local changes written. Review it and commit it like code (nothing is pushed)."
                ).format(file=r["file"], shared=len(r["shared"]), pending=len(r["pending_written"]))
                if r["diff"]
                else tr("Nothing to write.")
            ),
        )

    def show_review(self) -> None:
        repo = self._selected()
        if repo is None:
            return

        def done(review: dict[str, Any]) -> None:
            if self._selected() is not repo:
                return
            self.review = review
            self.details.setText(review_text(review) + "<br><br>" + details(repo))
            waiting = review["sha"] is not None and not review["trusted"]
            self.trust_button.setEnabled(waiting)
            self.decline_button.setEnabled(waiting and repo["state"] == "waiting")

        self.worker.run(lambda: self.host.handle("share_review", {"cwd": repo["folder"]}), done, self._failed)

    def trust(self) -> None:
        repo, review = self._selected(), self.review
        if repo is None or review is None or review["sha"] is None:
            return
        self._run(
            "share_trust",
            {"cwd": repo["folder"], "sha": review["sha"]},
            lambda r: tr("Trusted: {new} new, {changed} changed, {retired} retired.").format(
                new=len(r["created"]), changed=len(r["updated"]), retired=len(r["deleted"])
            ),
        )

    def decline(self) -> None:
        repo, review = self._selected(), self.review
        if repo is None or review is None or review["sha"] is None:
            return
        self._run(
            "share_decline",
            {"cwd": repo["folder"], "sha": review["sha"]},
            lambda _r: tr("Not trusted: nothing was read, and this content is not announced again."),
        )

    def untrust(self) -> None:
        repo = self._selected()
        if repo is None:
            return
        self._run(
            "share_untrust",
            {"cwd": repo["folder"]},
            lambda r: tr(
                "memevo no longer reads the facts file of {repo}; the facts read from it stay as they are."
            ).format(repo=r["repo"]),
        )

    def read_again(self) -> None:
        repo = self._selected()
        if repo is None:
            return

        def said(r: dict[str, Any]) -> str:
            if r.get("problem"):
                return tr("Still cannot be read: {problem}").format(problem=r["problem"])
            if r.get("review"):
                return tr("The file waits for your review: choose Review.")
            return tr("Read: {new} new, {changed} changed, {retired} retired.").format(
                new=len(r["created"]), changed=len(r["updated"]), retired=len(r["deleted"])
            )

        self._run("share_read", {"cwd": repo["folder"]}, said)

    def ask_folder(self) -> str:
        """A folder inside the repository (tests replace it); '' when cancelled."""
        return QFileDialog.getExistingDirectory(self, tr("A repository to share facts in"))

    def choose_other(self) -> None:
        folder = self.ask_folder()
        if folder:
            self.extra = folder
            self.refresh()

    def _say(self, text: str) -> None:
        self.message.setText(text)
