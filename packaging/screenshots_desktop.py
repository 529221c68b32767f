"""Screenshots of the tray menu and the panel's views on a real X server, for docs/.

    dbus-run-session -- sh -c 'echo -n x | gnome-keyring-daemon --unlock --components=secrets >/dev/null;
        xvfb-run -a -s "-screen 0 1280x800x24" python3 packaging/screenshots_desktop.py'

Runs `trayer` so a system tray exists, loads the real model (MEMEVO_MODELS_DIR is honoured)
into a throwaway MEMEVO_HOME with sample memories — one of them stale, one in the trash, a
repository to share, and a history of past sessions (tests/history.py) for "From past
sessions" — and writes docs/tray-menu.png and docs/panel-*.png. MEMEVO_LANG=en gives the
English UI (files get an -en suffix)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
SAMPLES = [
    ("rule", "回答问题时请一律使用中文", 95),
    ("rule", "改完代码不要自动 commit，等我确认后再提交", 88),
    ("rule", "Always write commit messages in English (Conventional Commits)", 74),
    ("rule", "新写的 Python 函数都要加类型注解", 61),
    ("rule", "不要在回答里贴整个文件，只贴改动的部分", 52),
    ("project", "ImageLoader 负责 App 内的图片加载与缓存，改它要跑 image_cache 的测试", 70),
    ("project", "测试环境的数据库每周一早上 6 点重置", 57),
    ("project", "订单服务的超时在 config/order.yaml 的 timeout_ms 里", 45),
    ("project", "旧版结算页 legacy_checkout 已下线，不再维护", 38),
]


def populate(store, clock) -> None:  # type: ignore[no-untyped-def]
    from memevo.core.learning import jobs
    from memevo.core.memories import live as memories

    for category, text, confidence in SAMPLES:
        memory = memories.create(store, category, text, clock)
        with store.transaction() as con:
            con.execute(
                "UPDATE memories SET confidence = ?, deprecated = ? WHERE id = ?",
                [confidence, confidence <= 40, memory.id],
            )
    jobs.create(store, "shot", "cursor", "s1", None, "以后生成的 SQL 都用大写关键字", clock.now_ms())
    proposal = {"text": "生成 SQL 时关键字一律大写", "category": "rule", "action": "create"}
    jobs.update(store, "shot", clock.now_ms(), status="ready", proposal=proposal)


STALE_FACT = "支付页新流程的灰度开关是 pay_new_flow_v2"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def stale_fact(store, clock, home: Path) -> None:  # type: ignore[no-untyped-def]
    """A fact whose repository dropped the name it gives, found by the real staleness check
    on a real git repository; and one memory in the trash."""
    from memevo.core.memories import live as memories
    from memevo.core.repos import identity, staleness

    repo = home / "code" / "pay"
    flags = repo / "src" / "pay" / "flags.py"
    flags.parent.mkdir(parents=True)
    flags.write_text("pay_new_flow_v2 = True\n", encoding="utf-8")
    git(repo, "init", "-q")
    git(repo, "remote", "add", "origin", "https://github.com/ann/pay.git")
    for key, value in (("user.name", "Ann"), ("user.email", "ann@example.com")):
        git(repo, "config", key, value)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the flag")
    memory = memories.create(store, "project", STALE_FACT, clock, str(repo))
    scope = str(memory.scope)  # the repository's name, from its remote
    with store.transaction() as con:  # where it lives, as a session there tells the service
        identity.remember(con, scope, str(repo))
    staleness.check_repo(store, scope, clock)  # the flag is seen: the name counts
    flags.write_text("checkout_v3 = True\n", encoding="utf-8")
    git(repo, "commit", "-q", "-am", "the flag is gone")
    staleness.check_repo(store, scope, clock)
    assert memories.get(store, memory.id).stale, "the screenshot wants a stale memory"
    gone = memories.create(store, "rule", "每次回答前先复述一遍需求", clock)
    memories.delete(store, [gone.id], clock)


def past_sessions(home: Path) -> None:
    """The realistic history the day-one figure is measured on, in the clients' real formats."""
    sys.path.insert(0, str(DOCS.parent / "tests"))
    import history

    history.realistic(home, history.make_repos(home))


def pump(app, seconds: float) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)


def main() -> int:
    import shutil

    from screenshots_wizard import fake_home  # this folder is on sys.path when run as a script

    os.environ.setdefault("MEMEVO_MODELS_DIR", str(DOCS.parent / ".cache" / "models"))
    os.environ.pop("QT_QPA_PLATFORM", None)
    os.environ.setdefault("MEMEVO_LANG", "zh_CN")
    suffix = "-en" if os.environ.get("MEMEVO_LANG", "").startswith("en") else ""
    home = fake_home()  # a throwaway HOME with the four clients, and MEMEVO_HOME inside it
    trayer = subprocess.Popen(
        ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request", "--height", "28"]
    )
    try:
        return shoot(suffix)
    finally:
        trayer.terminate()
        shutil.rmtree(home.parent, ignore_errors=True)


def shoot(suffix: str) -> int:
    import asyncio

    from memevo.core import config as config_mod
    from memevo.core.clock import SystemClock
    from memevo.core.service.host import ServiceHost
    from memevo.core.store.database import Store
    from memevo.desktop.i18n import install_translator
    from memevo.desktop.qt import QApplication
    from memevo.desktop.tray import Tray
    from memevo.installer import setup_engine

    app = QApplication(sys.argv[:1])
    install_translator(app)
    # the clients registered as setup leaves them (no `claude` binary here: Claude Code's MCP
    # server needs one command, which the Clients menu shows)
    setup_engine.run(setup_engine.Choices(), say=lambda line: None, provision_model=lambda progress: None)
    config_mod.set_key("sideApiBase", "https://api.example.com/v1")
    config_mod.set_key("sideApiModel", "gpt-4o-mini")
    try:  # the keyring when there is one (run under dbus-run-session with gnome-keyring)
        from memevo.core.privacy import side_api_key as secrets

        secrets.set_api_key("sk-screenshot-not-a-real-key")
    except Exception:
        os.environ["MEMEVO_SIDE_API_KEY"] = "sk-screenshot-not-a-real-key"
    store = Store.open()
    clock = SystemClock()
    populate(store, clock)
    home = Path(os.environ["HOME"])
    stale_fact(store, clock, home)
    past_sessions(home)
    host = ServiceHost(store, clock)
    host.ctx.desktop = True
    for client, event, ms in [
        ("claude", "prompt", 31.0),
        ("cursor", "session_start", 12.5),
        ("codebuddy", "prompt", 28.0),
    ]:
        host.ctx.books.record_hook(client, event, ms)
    from memevo.core.memories import live as memories

    injected = [m.id for m in memories.ranked(store, "rule")[:2]]  # what a prompt got, by id
    host.ctx.books.log_injection("cursor", "conv-7d21", "session_start", None, injected, 96)
    asked = (  # the prompt the recall answered: the log keeps a redacted excerpt of it
        "Where do I turn on the new checkout flow in the test environment? Remind me of the switch."
        if suffix
        else "支付页新流程要在测试环境打开，开关叫什么来着？顺便提醒我一下提交前要做什么"
    )
    host.ctx.books.log_injection(
        "claude", "0f3c9a1e-5b2d-4c1e-9a7b-2d4f6e8a0c13", "prompt", "p1", injected, 164, asked
    )
    host.ctx.books.flush()
    host.load_engine()
    tray = Tray(host, asyncio.Event())
    pump(app, 1.5)
    DOCS.mkdir(exist_ok=True)
    shot_tray_menu(app, tray, DOCS / f"tray-menu{suffix}.png")
    panel = tray.open_panel()
    panel.resize(1180, 640)
    panel.backfill.scan()  # what the wizard's offer and the tab's Scan button start
    until(app, lambda: not panel.backfill.worker.busy)
    for view in ("memories", "backfill", "trash", "proposals", "injections", "status", "sharing", "settings"):
        panel.show_view(view)
        pump(app, 1.0)
        until(app, lambda shown=panel.views[view]: not any(w.busy for w in workers(shown)))
        target = DOCS / f"panel-{view}{suffix}.png"
        panel.grab().save(str(target))
        print(f"wrote {target}")
    bar = panel.settings.scroll_area.verticalScrollBar()
    bar.setValue(bar.maximum())  # the model section, below the fold
    pump(app, 0.5)
    target = DOCS / f"panel-settings-model{suffix}.png"
    panel.grab().save(str(target))
    print(f"wrote {target}")
    host.close()
    store.close()
    return 0


def until(app, done, seconds: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while not done() and time.monotonic() < end:
        pump(app, 0.1)
    pump(app, 0.3)


def workers(view):  # type: ignore[no-untyped-def]
    return [w for w in (getattr(view, "worker", None), getattr(view, "sync_worker", None)) if w is not None]


def shot_tray_menu(app, tray, target: Path) -> None:  # type: ignore[no-untyped-def]
    """The whole top-right corner: trayer's icon and the menu open under it."""
    from memevo.desktop.qt import QApplication

    screen = QApplication.primaryScreen()
    width = screen.geometry().width()
    tray.refresh_menu()
    point = screen.geometry().topRight().__class__
    tray.menu.popup(point(width - 40, 30))
    tray.menu.move(width - tray.menu.sizeHint().width() - 8, 30)
    pump(app, 1.0)
    # the Clients submenu and Claude Code's entries, opened to the left of the menu
    clients = tray.clients_menu
    row = tray.menu.actionGeometry(clients.menuAction())
    left = tray.menu.x() - clients.sizeHint().width()
    clients.popup(point(left, tray.menu.y() + row.y()))
    pump(app, 0.5)
    claude = next(a.menu() for a in clients.actions() if a.menu() is not None)
    claude_left = clients.x() + clients.width() - claude.sizeHint().width()  # below it, right-aligned
    claude.popup(point(claude_left, clients.y() + clients.height() + 6))
    pump(app, 1.0)
    top = max(0, min(claude_left, left) - 8)
    bottom = max(
        tray.menu.y() + tray.menu.height(), claude.y() + claude.height(), clients.y() + clients.height()
    )
    region = screen.grabWindow(0, top, 0, width - top, bottom + 12)
    region.save(str(target))
    for menu in (claude, clients, tray.menu):
        menu.hide()
    print(f"wrote {target}")


if __name__ == "__main__":
    raise SystemExit(main())
