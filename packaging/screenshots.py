"""Render the GUI's screenshots for docs/ on a real X server (Xvfb) with CJK fonts.

    xvfb-run -a -s "-screen 0 1280x800x24" env QT_QPA_PLATFORM=xcb python3 packaging/screenshots.py
    python3 packaging/screenshots.py memories-page      # headless Chromium (apt package chromium)

Uses a throwaway MEMEVO_HOME; needs the apt packages that tests/setup-and-test.sh installs.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def main() -> int:
    os.environ["MEMEVO_HOME"] = tempfile.mkdtemp(prefix="memevo-shots-")
    from memevo.core.clock import SystemClock
    from memevo.core.learning import jobs
    from memevo.core.memories import live as memories
    from memevo.core.store.database import Store
    from memevo.desktop.confirm import ConfirmDialog
    from memevo.desktop.i18n import install_translator
    from memevo.desktop.qt import QApplication

    app = QApplication(sys.argv[:1])
    install_translator(app)  # the locale's language (MEMEVO_LANG overrides), as the tray app
    store = Store.open()
    clock = SystemClock()
    old = memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v1", clock)
    proposal = {
        "text": "支付页新流程的灰度开关改为 pay_new_flow_v2",
        "category": "project",
        "action": "replace",
        "target": old.id,
        "target_text": old.text,
        "replace_text": "支付页新流程的灰度开关改为 pay_new_flow_v2",
    }
    jobs.create(
        store,
        "screenshot",
        "claude",
        "8c1e4f2a-6d3b-4b7e-9f10-2a5c7e9d1b34",
        None,
        "记一下，支付页新流程的灰度开关现在改成 pay_new_flow_v2 了",
        clock.now_ms(),
        "/home/dev/code/payments-app",
    )
    jobs.update(store, "screenshot", clock.now_ms(), status="ready", proposal=proposal)
    job = jobs.get(store, "screenshot")
    assert job is not None
    dialog = ConfirmDialog(job)
    dialog.show()
    for _ in range(20):
        app.processEvents()
    DOCS.mkdir(exist_ok=True)
    target = DOCS / "confirm-dialog.png"
    dialog.grab().save(str(target))
    print(f"wrote {target}")
    store.close()
    return 0


def memories_page() -> Path:
    """docs/memories-html.png: the snapshot page in headless Chromium."""
    import subprocess

    os.environ["MEMEVO_HOME"] = tempfile.mkdtemp(prefix="memevo-shots-")
    from memevo.core.clock import FakeClock
    from memevo.core.memories import html_page as snapshot
    from memevo.core.memories import live as memories
    from memevo.core.store.database import Store

    with Store.open() as store:
        clock = FakeClock()
        for category, text in [
            ("rule", "回答问题时请一律使用中文"),
            ("rule", "改完代码不要自动 commit，等我确认后再提交"),
            ("rule", "Always write commit messages in English (Conventional Commits)"),
            ("project", "支付页新流程的灰度开关是 pay_new_flow_v2"),
            ("project", "ImageLoader 负责 App 内的图片加载与缓存"),
            ("project", "<script>alert(1)</script> 这条正文会被转义显示"),
        ]:
            memories.create(store, category, text, clock)
        page = snapshot.write(store)
    target = DOCS / "memories-html.png"
    subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            f"--user-data-dir={tempfile.mkdtemp()}",
            "--window-size=1100,620",
            f"--screenshot={target}",
            f"file://{page}",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    print(f"wrote {target}")
    return target


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "memories-page":
    memories_page()

elif __name__ == "__main__":
    raise SystemExit(main())
