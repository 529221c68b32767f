"""Issue 31, item 2: a Chinese desktop entirely in Chinese. Every window a user meets — the
wizard's pages (its log too), the tray menu and its Clients submenu, each panel tab with
something in it, the add / edit / history / purge / import dialogs, the folder chooser, and
the notifications — is walked under zh_CN, and each text it shows is read for English
(tests/uiwalk.py): a string that is not translated, or a raw identifier shown as a label,
fails here with the window it is in."""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

import history
import pytest
import uiwalk
import xdisplay
from deadlines import HANG_MS
from gitrepo import commit, make_repo
from memevo.core.clock import FakeClock
from memevo.core.importers import notes
from memevo.core.learning import jobs
from memevo.core.memories import live as memories
from memevo.core.repos import staleness
from memevo.core.service.host import ServiceHost
from memevo.desktop.i18n import qt_translated, ui_language
from memevo.desktop.qt import QApplication, QTimer
from test_client_state import no_claude_cli  # noqa: F401 - a fixture
from test_panel import select_rows
from test_tray_menu import settle
from test_wizard import fast_provision, set_up, walk
from uiwalk import menu_texts

LANGUAGE = ui_language()  # the suite runs in Chinese; tests/test_english_ui.py runs this module in English


def _settle(qtbot, *views: Any) -> None:
    for view in views:
        qtbot.waitUntil(lambda v=view: not v.worker.busy, timeout=30_000)


USER_TEXTS: list[str] = []  # what the test wrote as the user: shown as it is, never translated


def untranslated(root: Any) -> dict[str, list[str]]:
    from memevo.core.config import BY_NAME

    return uiwalk.untranslated(root, (*USER_TEXTS, *(f"({key})" for key in BY_NAME)), LANGUAGE)


def english(text: str) -> list[str]:
    """The other language's words left in `text` (English here; Chinese in an English run)."""
    if LANGUAGE == "zh":
        return uiwalk.english(text, tuple(USER_TEXTS))
    return uiwalk.chinese(text, tuple(USER_TEXTS))


def on_screen(qtbot, window: Any) -> None:
    """On a real display (tests/test_ui_display.py runs this module on xcb) the window is
    mapped and viewable on the X server, not only shown to Qt; offscreen there is no server."""
    import os

    if QApplication.platformName() != "xcb":
        return
    title = window.windowTitle()
    qtbot.waitUntil(lambda: title in xdisplay.viewable_windows(os.environ["DISPLAY"]), timeout=30_000)


class Modal:
    """Reads the modal dialog an action opens, then closes it (Cancel)."""

    def __init__(self) -> None:
        self.seen: dict[str, dict[str, list[str]]] = {}
        self.texts: dict[str, list[str]] = {}

    def read_then_cancel(self, name: str, action: Callable[[], Any]) -> Any:
        def look() -> None:
            dialog = QApplication.activeModalWidget()
            if dialog is None:
                QTimer.singleShot(10, look)
                return
            self.seen[name] = untranslated(dialog)
            self.texts[name] = uiwalk.shown(dialog)
            dialog.reject()

        QTimer.singleShot(0, look)
        return action()


@pytest.mark.skipif(LANGUAGE != "zh", reason="reads a Chinese UI")
def test_the_walk_finds_english_and_passes_names_and_commands(qtbot) -> None:
    from memevo.desktop.qt import QLabel, QWidget

    window = QWidget()
    QLabel("Refresh", window)
    QLabel("Claude Code：hook 已注册；请运行 claude mcp add --scope user memory-self-evolution", window)
    QLabel("#118bed2c 的历史 · ~/.claude/settings.json", window)
    assert uiwalk.untranslated(window) == {"Refresh": ["Refresh"]}
    assert uiwalk.english("<b>Hook</b>: rule 0.43") == ["Hook", "rule"]


def test_every_window_is_in_the_ui_language(
    qtbot,
    model_host: ServiceHost,  # the real model: From past sessions finds its candidates with it
    clock: FakeClock,
    no_claude_cli: Path,  # noqa: F811
) -> None:
    host = model_host
    import os

    from memevo.desktop.confirm import ConfirmQueue
    from memevo.desktop.panel import Panel
    from memevo.desktop.tray import Tray
    from memevo.desktop.wizard import SetupWizard

    assert qt_translated() == (LANGUAGE == "zh")  # Qt's own words (OK, Cancel, the folder chooser) too
    # the platform asked for: offscreen in the suite, the real X display's xcb in test_ui_display
    assert QApplication.platformName() == os.environ.get("QT_QPA_PLATFORM", "offscreen")
    found: dict[str, dict[str, list[str]]] = {}
    home = no_claude_cli
    (home / ".claude" / "CLAUDE.md").write_text(
        "- 回答问题时一律使用中文\n- Always run the tests before a commit\n"
    )
    USER_TEXTS[:] = [  # what the user wrote, in either language: shown as it is
        "Always run the tests before a commit",
        "pnpm",
        home.name,
        "sess-abc",
        "回答问题时一律使用简体中文",
        "回答问题时一律使用中文",
        "这个仓库用 pnpm 管理依赖",
        "提交前先跑测试",
        "以后回答我都用中文",
        "回答用中文",
    ]
    # the wizard, page by page, through a run
    wizard = SetupWizard(provision_model=fast_provision)
    wizard.notes_page.call = lambda op, params: host.handle(op, params)  # the tray's service
    qtbot.addWidget(wizard)
    wizard.show()
    on_screen(qtbot, wizard)
    found["wizard: welcome"] = untranslated(wizard)
    walk(wizard)
    found["wizard: start at login"] = untranslated(wizard)
    set_up(qtbot, wizard)
    found["wizard: progress"] = untranslated(wizard)
    wizard.next()
    qtbot.waitUntil(lambda: not wizard.worker.busy)
    found[f"wizard: page {wizard.currentId()}"] = untranslated(wizard)
    while wizard.currentId() != -1 and wizard.button(wizard.WizardButton.NextButton).isVisible():
        wizard.next()
        qtbot.waitUntil(lambda: not wizard.worker.busy)
        found[f"wizard: page {wizard.currentId()}"] = untranslated(wizard)
    # something in every tab
    rule = memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    fact = memories.create(host.store, "project", "这个仓库用 pnpm 管理依赖", clock)
    gone = memories.create(host.store, "rule", "提交前先跑测试", clock)
    host.handle("replace", {"id": rule.id, "text": "回答问题时一律使用简体中文"})
    host.handle("delete", {"ids": [gone.id]})
    jobs.create(host.store, "p1", "claude", "s", None, "以后回答我都用中文", clock.now_ms())
    jobs.update(
        host.store,
        "p1",
        clock.now_ms(),
        status="ready",
        proposal={"text": "回答用中文", "category": "rule", "action": "create"},
    )
    host.ctx.books.log_injection("claude", "sess-abc", "prompt", "p", [rule.id, fact.id], 120)
    host.ctx.books.record_hook("claude", "prompt", 12.5)
    host.ctx.books.record_hook("cursor", "session_start", 3.0)
    host.ctx.books.flush()
    # the tray menu with its submenus, and its notifications
    queue = ConfirmQueue(host)
    tray = Tray(host, asyncio.Event(), queue)
    settle(qtbot, tray)
    tray.notifier._show = lambda title, message: None
    found["tray menu"] = {t: english(t) for t in menu_texts(tray.menu) if english(t)}
    tray.repair_client("claude")  # needs one command
    (home / ".cursor" / "hooks.json").write_text('{"version": 1, "hooks": {}}')
    tray.repair_client("cursor")  # put back
    settle(qtbot, tray)
    broken = home / ".codebuddy" / "settings.json"
    broken.write_text("{", encoding="utf-8")
    tray.repair_client("codebuddy")  # a client file that is not JSON: the installer's reason
    settle(qtbot, tray)
    from memevo.installer import watcher

    gave_up = watcher.RegistrationWatcher(lambda *a: None, tray.on_repair_failed)
    gave_up._recent["workbuddy"] = [__import__("time").monotonic()] * watcher.MAX_REPAIRS
    assert gave_up._too_often("workbuddy")
    tray.refresh_icon()
    assert len(tray.notifier.shown) >= 4  # needs a command, repaired, could not repair twice
    found["notifications"] = {
        f"{t} / {m}": english(t + " " + m) for t, m in tray.notifier.shown if english(t + " " + m)
    }
    # the newer tabs with something in them: a stale fact of a real repository (the Memories
    # tab's stale row), that repository in Sharing with its facts file not written yet, and
    # what From past sessions proposes from a history of transcripts
    import shutil

    found_git = shutil.which("git", path="/usr/local/bin:/usr/bin:/bin")
    assert found_git is not None
    (Path(os.environ["PATH"]) / "git").symlink_to(found_git)  # git, and still no claude
    shop = make_repo(home / "code" / "shop", {"src/pay/flags.py": "pay_new_flow_v2 = True\n"})
    stale = memories.create(host.store, "project", "支付页的灰度开关是 pay_new_flow_v2", clock, str(shop))
    staleness.check_repo(host.store, str(shop), clock)
    (shop / "src/pay/flags.py").write_text("checkout_v3 = True\n")
    commit(shop, "the flag is gone")
    clock.advance(days=1)
    assert staleness.check_repo(host.store, str(shop), clock).stale == [stale.id]
    USER_TEXTS.extend([stale.text, "shop"])
    history.realistic(home, history.make_repos(home))
    # the panel, tab by tab
    panel = Panel(host, queue)
    panel.sharing.extra = str(shop)  # as Another repository… adds it
    qtbot.addWidget(panel)
    panel.show()
    on_screen(qtbot, panel)
    panel.settings.rows["sideApiBase"].editor.setText("ftp://example.com")  # refused: its reason shown
    panel.settings.rows["recallTopK"].editor.setValue(99)
    panel.settings.save()
    panel.backfill.scan()  # the real model over 36 sessions: longer than a query on a busy machine
    qtbot.waitUntil(lambda: not panel.backfill.worker.busy, timeout=HANG_MS)
    assert len(panel.backfill.items) >= 5, panel.backfill.last_message
    said = (  # the user's own words, which the tab shows as they were said
        [c["text"] for c in panel.backfill.items]
        + [w for c in panel.backfill.items for w in c["evidence"]["words"]]
        + [r for c in panel.backfill.items for r in c["evidence"]["repositories"]]
    )
    USER_TEXTS.extend(said + [html.escape(t) for t in said])  # plain, and in the rich text
    for name, view in panel.views.items():
        panel.show_view(name)
        panel.reload_current()
        qtbot.wait(50)
        for worker_view in (view, *[v for v in (getattr(view, "model", None),) if hasattr(v, "worker")]):
            if hasattr(worker_view, "worker"):
                _settle(qtbot, worker_view)
        if hasattr(view, "key_worker"):  # the settings' key status, and with no keyring the key file's offer
            qtbot.waitUntil(
                lambda v=view: not v.key_worker.busy and v.key_present is not None, timeout=30_000
            )
        found[f"panel: {name}"] = untranslated(panel)
    # the newer tabs were read with something in them
    assert [r["state"] for r in panel.sharing.repos] == ["none"] and panel.sharing.list.isEnabled()
    assert [m.id for m in panel.memories.model.rows if m.stale] == [stale.id]
    assert panel.settings.file_check.isVisibleTo(panel.settings)  # the tests have no keyring: it was read
    # the memories view's dialogs
    view = panel.memories
    panel.show_view("memories")
    _settle(qtbot, view)
    select_rows(view.table, [0])
    modal = Modal()
    modal.read_then_cancel("add", lambda: view.act("add"))
    modal.read_then_cancel("edit", lambda: view.act("edit"))
    modal.read_then_cancel("purge", lambda: view.act("purge"))
    modal.read_then_cancel("folder chooser", view.ask_folder)
    modal.read_then_cancel("import source", view.ask_import_source)
    modal.read_then_cancel(
        "history",
        lambda: view.choose_version(
            view.selected()[0],
            [
                {
                    "version": 1,
                    "valid_from": "2026-01-01T00:00",
                    "valid_to": "2026-01-02T00:00",
                    "reason": "replaced",
                    "text": "回答问题时一律使用中文",
                }
            ],
        ),
    )
    modal.read_then_cancel(
        "import notes", lambda: view.choose_notes([c.as_json() for c in notes.candidates(home, None)])
    )
    found.update({f"dialog: {k}": v for k, v in modal.seen.items()})
    # the walk read what it should: Qt's own buttons in the UI language, every dialog reached
    ok, cancel = ("确定", "取消") if LANGUAGE == "zh" else ("OK", "Cancel")
    assert {ok, cancel} <= set(modal.texts["edit"])
    assert cancel in modal.texts["add"] and cancel in modal.texts["import notes"]
    assert set(modal.texts) == {
        "add",
        "edit",
        "purge",
        "folder chooser",
        "import source",
        "history",
        "import notes",
    }
    problems: dict[str, dict[str, list[str]]] = {}
    reported: set[str] = set()  # a text is reported in the first window it was seen in
    for where, texts in found.items():
        fresh = {t: w for t, w in texts.items() if t not in reported}
        reported.update(fresh)
        if fresh:
            problems[where] = fresh
    assert not problems, "\n".join(
        f"{where}:\n" + "\n".join(f"   {t!r}: {w}" for t, w in texts.items())
        for where, texts in problems.items()
    )
