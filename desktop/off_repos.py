"""The repositories memevo is off in (`memevo off`, the config key offRepositories): listed in
the panel's Status tab, each with Switch on, and Switch off in a repository… (a folder chooser;
the repository's identity is core.memories.scopes.repo_of's). Every switch goes through the
`repository_off` operation, on the view's worker."""

from __future__ import annotations

from typing import Any

from ..core import config as config_mod
from ..core.memories.scopes import repo_of
from .i18n import tr
from .qt import (
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
)
from .worker import OffUi


def off_repositories() -> list[str]:
    return list(config_mod.load().values["offRepositories"])


class OffReposBox(QGroupBox):
    """OffReposBox(host): the list, Switch on, and Switch off in a repository…."""

    def __init__(self, host: Any) -> None:
        super().__init__(tr("Repositories memevo is off in"))
        self.host = host
        self.worker = OffUi(parent=self)
        layout = QVBoxLayout(self)
        help_label = QLabel(
            tr(
                "In these repositories memevo does nothing: no recall, no learning, no backfill, no staleness checks."
            )
        )
        help_label.setWordWrap(True)
        layout.addWidget(help_label)
        self.list = QListWidget()
        self.list.setMaximumHeight(110)
        self.list.currentRowChanged.connect(lambda _row: self._sync())
        layout.addWidget(self.list)
        row = QHBoxLayout()
        self.on_button = QPushButton(tr("Switch on"))
        self.on_button.clicked.connect(self.switch_on)
        self.off_button = QPushButton(tr("Switch off in a repository…"))
        self.off_button.clicked.connect(self.switch_off)
        row.addWidget(self.on_button)
        row.addWidget(self.off_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.repos: list[str] = []
        self.refresh()

    def refresh(self) -> None:
        self.show_list(off_repositories())  # a small file: read here, as the tray's menu does

    def show_list(self, repos: list[str]) -> None:
        self.repos = list(repos)
        self.list.clear()
        if repos:
            self.list.addItems(repos)
            self.list.setCurrentRow(0)
        else:
            self.list.addItem(tr("none: memevo is on in every repository"))
        self.list.setEnabled(bool(repos))
        self._sync()

    def _sync(self) -> None:
        self.on_button.setEnabled(bool(self.repos) and self.list.currentRow() >= 0)
        self.off_button.setEnabled(True)

    def ask_folder(self) -> str:
        """The repository's folder (tests replace it); '' when cancelled."""
        return QFileDialog.getExistingDirectory(self, tr("Switch memevo off in a repository"))

    def switch_on(self) -> None:
        row = self.list.currentRow()
        if 0 <= row < len(self.repos):
            self._switch(self.repos[row], False)

    def switch_off(self) -> None:
        folder = self.ask_folder()
        if not folder:
            return
        repo = repo_of(folder)
        if not repo:
            self._say(tr("{folder} is not in a repository.").format(folder=folder))
            return
        self._switch(repo, True)

    def _switch(self, repo: str, off: bool) -> None:
        def done(result: dict[str, Any]) -> None:
            self.show_list(result["off_repositories"])
            self._say(
                tr("memevo is off in {repo}.").format(repo=repo)
                if off
                else tr("memevo is on again in {repo}.").format(repo=repo)
            )

        def failed(exc: Exception) -> None:
            self._sync()
            self._say(tr("Not done: {error}").format(error=exc))

        self.on_button.setEnabled(False)
        self.off_button.setEnabled(False)
        self.worker.run(lambda: self.host.handle("repository_off", {"repo": repo, "off": off}), done, failed)

    def _say(self, text: str) -> None:
        self.message.setText(text)
