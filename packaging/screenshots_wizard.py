"""Screenshots of the setup wizard's pages on a real X server, for docs/.

    xvfb-run -a -s "-screen 0 1280x800x24" python3 packaging/screenshots_wizard.py

Runs the real setup engine (the real model provisioning: MEMEVO_MODELS_DIR, by default the
repo's .cache/models, makes it fast when the model is already there) in a throwaway HOME with
the four client folders and a throwaway MEMEVO_HOME (both removed afterwards); nothing outside
them is written, and no key is stored anywhere (the side API page is shown with a key typed,
then the key is cleared).
Writes docs/wizard-<page>.png. MEMEVO_LANG=en gives the English UI (files get an -en suffix)."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from screenshots_desktop import pump  # this folder is on sys.path when run as a script

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
CLIENT_FILES = {
    ".claude/settings.json": {"theme": "dark"},
    ".cursor/hooks.json": {"version": 1, "hooks": {}},
    ".codebuddy/settings.json": {},
    ".workbuddy/settings.json": {"language": "zh-CN"},
}


def fake_home() -> Path:
    root = Path(tempfile.mkdtemp(prefix="memevo-wizard-shots-"))
    home = root / "home"
    for relative, data in CLIENT_FILES.items():
        path = home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    os.environ["HOME"] = str(home)
    # the default folder inside that HOME: a moved one would put `--home`/`-e MEMEVO_HOME=…` in
    # every command the screenshots show (the commands a user who never moved it does not see)
    os.environ["MEMEVO_HOME"] = str(home / ".memory-self-evolution")
    os.environ["XDG_CONFIG_HOME"] = str(home / ".config")  # the login entry goes here, not yours
    for variable in ("CLAUDE_CONFIG_DIR", "CODEBUDDY_CONFIG_DIR", "MEMEVO_SIDE_API_KEY"):
        os.environ.pop(variable, None)
    return home


def main() -> int:
    os.environ.setdefault("MEMEVO_MODELS_DIR", str(REPO / ".cache" / "models"))
    os.environ.pop("QT_QPA_PLATFORM", None)
    os.environ.setdefault("MEMEVO_LANG", "zh_CN")
    suffix = "-en" if os.environ.get("MEMEVO_LANG", "").startswith("en") else ""
    home = fake_home()
    try:
        return shoot_all(suffix)
    finally:
        shutil.rmtree(home.parent, ignore_errors=True)


def shoot_all(suffix: str) -> int:
    from memevo.desktop.i18n import install_translator
    from memevo.desktop.qt import QApplication
    from memevo.desktop.wizard import SetupWizard

    app = QApplication(sys.argv[:1])
    install_translator(app)
    wizard = SetupWizard()
    wizard.show()
    pump(app, 1.0)
    DOCS.mkdir(exist_ok=True)

    def shoot(name: str) -> None:
        pump(app, 0.6)
        target = DOCS / f"wizard-{name}{suffix}.png"
        wizard.grab().save(str(target))
        print(f"wrote {target}")

    shoot("welcome")
    wizard.next()
    shoot("confirmation")
    wizard.next()
    side = wizard.side_page
    side.base_edit.setText("https://api.example.com/v1")
    side.model_edit.setText("gpt-4o-mini")
    deadline = time.monotonic() + 30
    while side.keyring_missing is None and time.monotonic() < deadline:
        pump(app, 0.1)  # the keyring's answer: without one the key field is closed and says why
    if side.key_edit.isEnabled():
        side.key_edit.setText("sk-screenshot-not-a-real-key")
    shoot("side-api")
    side.key_edit.clear()  # never stored: the run below leaves the keyring alone
    wizard.next()
    shoot("claude")
    wizard.next()
    shoot("autostart")
    wizard.next()
    deadline = time.monotonic() + 900
    while wizard.result is None and time.monotonic() < deadline:
        pump(app, 0.2)
    if wizard.result is None:
        print("the setup run did not finish in 15 minutes", file=sys.stderr)
        return 1
    shoot("progress")
    if not wizard.progress_page.isComplete():
        print(f"setup stopped: {wizard.result.reason}", file=sys.stderr)
        return 1
    wizard.next()
    shoot("done")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
