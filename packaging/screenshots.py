"""Render the GUI's screenshots for docs/ on a real X server (Xvfb) with CJK fonts.

    xvfb-run -a -s "-screen 0 1280x800x24" env QT_QPA_PLATFORM=xcb python3 packaging/screenshots.py

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
    from memevo.core import memories
    from memevo.core.clock import SystemClock
    from memevo.core.side import jobs
    from memevo.core.store import Store
    from memevo.desktop.confirm import ConfirmDialog
    from memevo.desktop.qt import QApplication

    app = QApplication(sys.argv[:1])
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
        "s",
        None,
        "记一下，支付页新流程的灰度开关现在改成 pay_new_flow_v2 了",
        clock.now_ms(),
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


if __name__ == "__main__":
    raise SystemExit(main())
