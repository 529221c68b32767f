"""Run as a process by tests/test_confirm_dialog_language.py: the confirmation dialog as the
tray app builds it, under whatever locale the process was given, read back widget by widget.

    python tests/dialogprobe.py CASES_JSON   ->   one JSON object per case on stdout

Each case is a job written to the real store in MEMEVO_HOME (the test's own) the way the
service writes it, read back, and shown; what a user would see of it is printed: the window
title, every visible label (and its tooltip) and every button, in order."""

from __future__ import annotations

import json
import sys
from typing import Any


def job_of(store: Any, case: dict[str, Any]) -> Any:
    from memevo.core.learning import jobs

    jobs.create(
        store,
        case["id"],
        case["client"],
        case["session"],
        None,
        case.get("words", ""),
        case["created_ms"],
        case.get("repo"),
    )
    jobs.update(store, case["id"], case["created_ms"], status="ready", proposal=case["proposal"])
    return jobs.get(store, case["id"])


def read(dialog: Any) -> dict[str, Any]:
    from memevo.desktop.qt import QLabel

    labels = [w for w in dialog.findChildren(QLabel) if w.isVisibleTo(dialog)]
    return {
        "title": dialog.windowTitle(),
        "labels": [w.text() for w in labels],
        "tooltips": [w.toolTip() for w in labels if w.toolTip()],
        "buttons": [b.text() for b in dialog.buttons.values()],
        "editor": dialog.editor.toPlainText(),
        "rows": {
            name: getattr(dialog, f"{name}_label").text()
            for name in ("client", "project", "session", "time", "proposer", "words", "proposal", "group")
        },
        "project_tooltip": dialog.project_label.toolTip(),
        "words_shown": dialog.words_label.isVisibleTo(dialog),
    }


def main() -> int:
    from memevo.core.store.database import Store
    from memevo.desktop.confirm import ConfirmDialog
    from memevo.desktop.i18n import install_translator
    from memevo.desktop.qt import QApplication

    app = QApplication(sys.argv[:1])
    language = install_translator(app)  # as the tray app does at start
    cases = json.loads(sys.argv[1])
    with Store.open() as store:
        for case in cases:
            dialog = ConfirmDialog(job_of(store, case), now_ms=case["now_ms"])
            dialog.show()
            app.processEvents()
            print(json.dumps({"language": language, "case": case["id"]} | read(dialog), ensure_ascii=False))
            dialog.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
