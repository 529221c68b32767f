"""Issue 46, memevo off in a repository, on the desktop: the panel's Status tab lists the
repositories memevo is off in, switches one on again and another off (a folder chooser, the
repository's identity); the tray's menu counts them and opens that list; the wizard's last page
offers the review of past sessions, which the tray opens (pytest-qt, offscreen)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from memevo.core import config as config_mod
from memevo.core.service.host import ServiceHost
from memevo.desktop.panel import Panel
from memevo.desktop.status import StatusView
from memevo.desktop.tray import Tray
from test_panel_backfill import english
from test_tray_menu import settle


def _repo(folder: Path, name: str) -> Path:
    repo = folder / name
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(f'[remote "origin"]\n\turl = https://github.com/ann/{name}.git\n')
    return repo


def _status(qtbot: Any, host: ServiceHost) -> StatusView:
    view = StatusView(host)
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: not view.worker.busy, timeout=30_000)
    return view


def _listed(view: StatusView) -> list[str]:
    box = view.off_repos.list
    return [box.item(i).text() for i in range(box.count())]


def test_the_status_tab_lists_and_switches(qtbot: Any, host: ServiceHost, tmp_path: Path) -> None:
    view = _status(qtbot, host)
    assert _listed(view) == ["无：memevo 在所有仓库中都启用"] and not view.off_repos.on_button.isEnabled()
    host.handle("repository_off", {"repo": "github.com/ann/shop", "off": True})
    view.refresh()
    assert _listed(view) == ["github.com/ann/shop"] and view.off_repos.on_button.isEnabled()
    # Switch off in a repository…: a folder inside it names the repository by its remote
    blog = _repo(tmp_path, "blog")
    (blog / "docs").mkdir()
    view.off_repos.ask_folder = lambda: str(blog / "docs")  # type: ignore[method-assign]
    view.off_repos.off_button.click()
    qtbot.waitUntil(lambda: not view.off_repos.worker.busy, timeout=30_000)
    assert config_mod.load()["offRepositories"] == ["github.com/ann/shop", "github.com/ann/blog"]
    assert _listed(view) == ["github.com/ann/shop", "github.com/ann/blog"]
    assert view.off_repos.message.text() == "memevo 已在 github.com/ann/blog 中关闭。"
    assert host.ctx.status()["off_in"] == ["github.com/ann/shop", "github.com/ann/blog"]
    # Switch on: the selected one
    view.off_repos.list.setCurrentRow(0)
    view.off_repos.on_button.click()
    qtbot.waitUntil(lambda: not view.off_repos.worker.busy, timeout=30_000)
    assert config_mod.load()["offRepositories"] == ["github.com/ann/blog"]
    assert _listed(view) == ["github.com/ann/blog"]
    assert view.off_repos.message.text() == "memevo 已在 github.com/ann/shop 中重新启用。"
    view.off_repos.ask_folder = lambda: ""  # type: ignore[method-assign]
    view.off_repos.off_button.click()  # cancelled: nothing changes
    assert config_mod.load()["offRepositories"] == ["github.com/ann/blog"]


def test_in_english(qtbot: Any, qapp: Any, host: ServiceHost) -> None:
    host.handle("repository_off", {"repo": "github.com/ann/shop", "off": True})
    with english(qapp):
        view = _status(qtbot, host)
        assert view.off_repos.title() == "Repositories memevo is off in"
        assert view.off_repos.on_button.text() == "Switch on"
        assert view.off_repos.off_button.text() == "Switch off in a repository…"
        view.off_repos.on_button.click()
        qtbot.waitUntil(lambda: not view.off_repos.worker.busy, timeout=30_000)
        assert view.off_repos.message.text() == "memevo is on again in github.com/ann/shop."
        assert _listed(view) == ["none: memevo is on in every repository"]
        tray = Tray(host, asyncio.Event())
        settle(qtbot, tray)
        assert tray.off_action.text() == "On in every repository…"


def test_the_tray_counts_them_and_opens_the_list(qtbot: Any, host: ServiceHost) -> None:
    tray = Tray(host, asyncio.Event())
    settle(qtbot, tray)
    assert (
        tray.off_action.text() == "已在所有仓库中启用…"
    )  # a state (like 已在 2 个仓库中关闭…), not an action
    for repo in ("github.com/ann/shop", "github.com/ann/blog"):
        host.handle("repository_off", {"repo": repo, "off": True})
    tray.refresh_menu()
    settle(qtbot, tray)
    assert tray.off_action.text() == "已在 2 个仓库中关闭…"
    tray.off_action.trigger()
    panel = tray.panel
    assert isinstance(panel, Panel)
    qtbot.addWidget(panel)
    assert panel.tabs.currentWidget() is panel.status
    assert _listed(panel.status) == ["github.com/ann/shop", "github.com/ann/blog"]


def test_the_wizards_offer_opens_the_review(qtbot: Any, host: ServiceHost, isolated_home: Path) -> None:
    tray = Tray(host, asyncio.Event())
    settle(qtbot, tray)
    wizard = tray.open_wizard()
    qtbot.addWidget(wizard)
    page = wizard.done_page
    assert page.backfill_button.text() == "翻阅你的历史会话…"
    page.backfill_button.click()  # the panel's tab, its scan started: nothing written by itself
    panel = tray.panel
    qtbot.addWidget(panel)
    assert panel.tabs.currentWidget() is panel.backfill
    qtbot.waitUntil(lambda: not panel.backfill.worker.busy, timeout=30_000)
    assert panel.backfill.last_message == "没有找到历史会话：本机上没有编程助手的会话记录。"
