"""Issue 48 item 9, sharing on the desktop: the panel's Sharing tab lists the repositories memevo
knows with their facts file's state, shares a repository's facts to its file, shows a teammate's
edit and a broken file (its line and the remedy: Status and the tray's icon say it too), reviews
and trusts a waiting file; the sync remote is set from the tab and the tray's Sync memories now
waits for one; History says which changes the repository's file made (pytest-qt, offscreen;
real git repositories)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gitrepo import bare_remote, git, make_repo
from memevo.core.memories import history as memory_history
from memevo.core.memories import origins
from memevo.core.service import sharework
from memevo.core.service.host import ServiceHost
from memevo.desktop import status as status_mod
from memevo.desktop.sharing_view import SharingView
from memevo.desktop.tray import Tray
from memevo.desktop.tray_state import tray_state
from test_panel_backfill import english
from test_tray_menu import settle

FACT = "支付页新流程的灰度开关是 pay_new_flow_v2"


@pytest.fixture(autouse=True)
def _no_problems_left() -> Iterator[None]:
    """The service's note of refused files is the process's: none is left for the next test."""
    sharework.note_problems([])
    yield
    sharework.note_problems([])


EDITED = "支付页新流程的灰度开关是 pay_new_flow_v3"


def _repo(tmp_path: Path, name: str = "shop") -> Path:
    repo = make_repo(tmp_path / name, {"README.md": "a shop\n"})
    git(repo, "remote", "add", "origin", f"https://github.com/ann/{name}.git")
    return repo


def _view(qtbot: Any, host: ServiceHost) -> SharingView:
    view = SharingView(host)
    qtbot.addWidget(view)
    _idle(qtbot, view)
    return view


def _idle(qtbot: Any, view: SharingView) -> None:
    qtbot.waitUntil(lambda: not view.worker.busy and not view.sync_worker.busy, timeout=30_000)


def _selected(view: SharingView) -> dict[str, Any]:
    repo = view._selected()
    assert repo is not None
    return repo


def test_share_a_teammates_edit_and_a_broken_file(qtbot: Any, host: ServiceHost, tmp_path: Path) -> None:
    sharework.note_problems([])
    repo = _repo(tmp_path)
    fact = host.handle("add", {"category": "project", "text": FACT, "scope": "github.com/ann/shop"})["memory"]
    view = _view(qtbot, host)
    assert view.list.count() == 1 and not view.list.isEnabled()  # none known yet
    view.ask_folder = lambda: str(repo)  # type: ignore[method-assign]
    view.other_button.click()  # Another repository…: the folder named by its remote
    _idle(qtbot, view)
    shop = _selected(view)
    assert (shop["repo"], shop["state"], len(shop["unshared"])) == ("github.com/ann/shop", "none", 1)
    assert "还没有事实文件" in view.list.item(0).text()
    assert view.share_button.isEnabled() and not view.untrust_button.isEnabled()
    view.share_button.click()  # as `memevo share --all --pending`
    _idle(qtbot, view)
    written = (repo / ".memevo" / "facts.md").read_text("utf-8")
    assert FACT in written and f"memevo:{fact['id']}" in written
    assert "已写入" in view.message.text()
    shop = _selected(view)
    assert (shop["state"], shop["facts"], shop["unshared"]) == ("trusted", 1, [])
    assert view.untrust_button.isEnabled() and not view.share_button.isEnabled()

    # a teammate's edit of the file, pulled: read again, the fact's text is the file's
    (repo / ".memevo" / "facts.md").write_text(written.replace(FACT, EDITED), "utf-8")
    view.read_button.click()
    _idle(qtbot, view)
    assert "你审阅" in view.message.text()  # changed content waits for the review
    assert _selected(view)["state"] == "waiting"
    view.review_button.click()
    _idle(qtbot, view)
    assert EDITED in view.details.text() and view.trust_button.isEnabled()
    view.trust_button.click()
    _idle(qtbot, view)
    shop = _selected(view)
    assert shop["state"] == "trusted" and shop["teammate_edits"] == 1
    assert shop["from_file"] == [{"id": fact["id"], "text": EDITED, "edited": True}]
    assert "队友" in view.details.text()
    # History: the file changed it, not "edited", and the file is named
    line = next(n for n, text in enumerate(written.splitlines(), 1) if FACT in text)
    found = [o.as_json()["by"] for o in origins.of(host.store, fact["id"])]
    assert found == [
        f"changed by the repository's shared facts file ({repo / '.memevo' / 'facts.md'} line {line})"
    ]
    _memory, versions = memory_history.history(host.store, fact["id"])
    assert (
        versions[0].reason
        == f"changed by the repository's shared facts file ({repo / '.memevo' / 'facts.md'})"
    )

    # a broken file: its line and the remedy in the tab, in Status, on the tray's icon
    (repo / ".memevo" / "facts.md").write_text("# Project facts (memevo)\n\na paragraph\n", "utf-8")
    view.read_button.click()
    _idle(qtbot, view)
    shop = _selected(view)
    assert shop["state"] == "problem" and "line 3" in shop["problem"]
    assert "line 3" in view.details.text() and "git checkout -- .memevo/facts.md" in view.details.text()
    assert sharework.problems()[0]["folder"] == str(repo)
    assert host.ctx.status()["shared_facts_problems"][0]["problem"] == shop["problem"]
    state, tooltip = tray_state(host)
    assert state == "problem" and "line 3" in tooltip and "共享" in tooltip
    report = status_mod.status_report(host)
    page = status_mod.render(report)
    assert "共享事实文件无法读取" in page and "line 3" in page and "git checkout -- .memevo/facts.md" in page
    # fixed: read again, the problem is gone everywhere
    (repo / ".memevo" / "facts.md").write_text(written.replace(FACT, EDITED), "utf-8")
    view.read_button.click()
    _idle(qtbot, view)
    assert _selected(view)["state"] == "trusted" and sharework.problems() == []
    assert tray_state(host)[0] != "problem"


def test_a_waiting_file_is_reviewed_and_declined(qtbot: Any, host: ServiceHost, tmp_path: Path) -> None:
    sharework.note_problems([])
    repo = _repo(tmp_path, "blog")
    (repo / ".memevo").mkdir()
    (repo / ".memevo" / "facts.md").write_text("# Project facts (memevo)\n\n- the blog deploys on Fridays\n")
    host.handle("share_read", {"cwd": str(repo)})  # a session there: recorded as waiting
    view = _view(qtbot, host)
    blog = _selected(view)
    assert blog["state"] == "waiting" and not view.share_button.isEnabled()
    assert "等待你审阅" in view.list.item(0).text()
    view.review_button.click()
    _idle(qtbot, view)
    assert "the blog deploys on Fridays" in view.details.text()
    assert view.decline_button.isEnabled()
    view.decline_button.click()
    _idle(qtbot, view)
    assert _selected(view)["state"] == "declined"
    assert host.handle("share_waiting", {})["waiting"] == []


def test_the_sync_remote_from_the_tab_and_the_trays_action(
    qtbot: Any, host: ServiceHost, tmp_path: Path
) -> None:
    tray = Tray(host, asyncio.Event())
    settle(qtbot, tray)
    assert not tray.sync_action.isEnabled()  # no remote: nothing to sync
    view = _view(qtbot, host)
    assert "还没有同步远程仓库" in view.remote_label.text()
    remote = bare_remote(tmp_path, "memories")
    view.remote_edit.setText(str(remote))
    view.remote_button.click()
    _idle(qtbot, view)
    assert str(remote) in view.remote_label.text(), view.sync_message.text()
    tray.refresh_menu()
    settle(qtbot, tray)
    assert tray.sync_action.isEnabled()


def test_in_english(qtbot: Any, qapp: Any, host: ServiceHost, tmp_path: Path) -> None:
    sharework.note_problems([])
    repo = _repo(tmp_path)
    (repo / ".memevo").mkdir()
    (repo / ".memevo" / "facts.md").write_text("# Project facts (memevo)\n\nnot an item\n")
    host.handle("share_read", {"cwd": str(repo)})
    with english(qapp):
        view = _view(qtbot, host)
        assert view.list.item(0).text() == "github.com/ann/shop — cannot be read"
        assert "What to do" in view.details.text() and "line 3" in view.details.text()
        assert view.share_button.text() == "Share to the file" and view.read_button.text() == "Read again"
        assert "No sync remote yet" in view.remote_label.text()
        sharework.note_problems(status_mod.status_report(host)["facts_file_problems"])
        state, tooltip = tray_state(host)
        assert state == "problem" and tooltip.startswith(
            "memevo: a repository's shared facts file cannot be read"
        )


def test_history_says_added_by_you_for_a_row_with_no_proposer(host: ServiceHost) -> None:
    memory = host.handle("add", {"category": "rule", "text": "提交前先跑单元测试"})["memory"]
    origins.record(host.store, memory["id"], 1, {"client": "desktop"}, "create")
    assert [o.as_json()["by"] for o in origins.of(host.store, memory["id"])] == ["added by you"]
    assert origins.describe("claude-code", origins.SIDE) == "proposed by the side judge"
