"""The learning screenshots (README.md, docs/learning.md): the confirmation dialog raised by a
real prompt, once on a Chinese desktop and once on an English one.

    xvfb-run -a -s "-screen 0 1280x800x24" python3 packaging/screenshot_learning.py [zh|en ...]

Nothing is staged: for each language, in a throwaway HOME and MEMEVO_HOME it runs `memevo
setup --only claude`, points learning at a local chat/completions server that plays the judge,
starts the real `memevo tray` on the X display (with `trayer` as the system tray and, when
installed, `openbox` to draw the window's title bar) under that language's locale (LANG and
LC_ALL, as a desktop session sets them), sends "remember: …" from a project folder through the
UserPromptSubmit command that setup registered, waits for the tray's own dialog and grabs the
screen from a separate process. Writes docs/confirm-dialog-live-LANG.png (cropped to the
dialog) and docs/confirm-dialog-live-screen-LANG.png (the whole screen, tray icon included).
MEMEVO_MODELS_DIR is honoured, so an already provisioned model is reused."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[1] / "docs"
# What the user says on each desktop, and what the judge makes of it.
SAID = {
    "zh": ("记住：以后回答问题都用中文，代码注释也用中文", "回答问题和写代码注释时一律使用中文"),
    "en": (
        "Remember: answer me in English from now on, code comments too",
        "Answer questions and write code comments in English",
    ),
}
LOCALES = {"zh": "zh_CN.UTF-8", "en": "en_US.UTF-8"}
PROJECT = "payments-app"  # the folder the prompt is sent from: the dialog names it


def judge_server(learned: str) -> ThreadingHTTPServer:
    """Plays the user's side model: every judge call says "remember this rule"."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            content = json.dumps({"remember": True, "text": learned, "category": "rule"}, ensure_ascii=False)
            body = json.dumps(
                {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
            )
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body.encode())))
            self.end_headers()
            self.wfile.write(body.encode())

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def memevo(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "memevo.cli", *args], capture_output=True, text=True, env=env, timeout=300
    )
    if done.returncode != 0:
        raise SystemExit(f"memevo {' '.join(args)} failed: {done.stdout}{done.stderr}")
    return done.stdout


def registered(home: Path, event: str) -> str:
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    return next(
        h["command"] for g in settings["hooks"][event] for h in g["hooks"] if "memevo_hook.py" in h["command"]
    )


def ui_state(env: dict[str, str]) -> dict[str, Any]:
    os.environ["MEMEVO_HOME"] = env["MEMEVO_HOME"]
    from memevo.core.service import client

    return client.call("ui_test", {"action": "state"}, timeout_s=10)


def ping(env: dict[str, str]) -> dict[str, Any]:
    os.environ["MEMEVO_HOME"] = env["MEMEVO_HOME"]
    from memevo.core.service import client

    try:
        return client.call("ping", {}, timeout_s=5)
    except Exception:  # not up yet
        return {}


def grab(env: dict[str, str], target: Path, crop: list[int] | None) -> None:
    """A separate process on the same display grabs the screen, as any screenshot tool would."""
    code = (
        "import sys; from PySide6.QtGui import QGuiApplication; app = QGuiApplication(sys.argv[:1]); "
        "shot = app.primaryScreen().grabWindow(0); c = json.loads(sys.argv[2]); "
        "shot = shot.copy(*c) if c else shot; sys.exit(0 if shot.save(sys.argv[1]) else 1)"
    )
    subprocess.run(
        [sys.executable, "-c", "import json; " + code, str(target), json.dumps(crop)],
        env={k: v for k, v in env.items() if k != "QT_QPA_PLATFORM"},
        check=True,
        timeout=60,
    )


def main() -> int:
    if not os.environ.get("DISPLAY"):
        raise SystemExit("no X display: run under xvfb-run (see the docstring)")
    languages = sys.argv[1:] or list(LOCALES)
    unknown = set(languages) - set(LOCALES)
    if unknown:
        raise SystemExit(f"languages are {', '.join(LOCALES)}, not {', '.join(sorted(unknown))}")
    wm = shutil.which("openbox")
    manager = subprocess.Popen([wm]) if wm else None  # the title bar names memevo: draw it
    try:
        for language in languages:
            shoot(language)
    finally:
        if manager is not None:
            manager.terminate()
            manager.wait(10)
    return 0


def shoot(language: str) -> None:
    root = Path(tempfile.mkdtemp(prefix="memevo-learning-shot-"))
    home, data = root / "home", root / "memevo-home"
    (home / ".claude").mkdir(parents=True)
    project = home / "code" / PROJECT
    (project / ".git").mkdir(parents=True)
    words, learned = SAID[language]
    server = judge_server(learned)
    env = dict(os.environ) | {
        "HOME": str(home),
        "MEMEVO_HOME": str(data),
        "MEMEVO_SIDE_API_KEY": "sk-local-judge-for-the-screenshot",
        "MEMEVO_TRAY_TEST_HOOK": "1",
        "MEMEVO_LANG": "",  # the locale decides, as on a user's desktop
        "LANG": LOCALES[language],
        "LC_ALL": LOCALES[language],
    }
    env.pop("QT_QPA_PLATFORM", None)
    memevo(env, "setup", "--only", "claude")
    memevo(env, "config", "sideApiBase", f"http://127.0.0.1:{server.server_address[1]}/v1")
    memevo(env, "config", "sideApiModel", "local-judge")
    memevo(env, "rule", "add", "改完代码不要自动 commit，等我确认后再提交")
    trayer = subprocess.Popen(["trayer", "--edge", "top", "--align", "right", "--widthtype", "request"])
    tray = subprocess.Popen([sys.executable, "-m", "memevo.cli", "tray"], env=env)
    try:
        deadline = time.monotonic() + 180
        while not ping(env).get("model_ready") and time.monotonic() < deadline:
            time.sleep(0.5)
        payload = {
            "session_id": "3b9d2c71-5e4f-4a86-9c1d-7f0e2a6b8d45",
            "hook_event_name": "UserPromptSubmit",
            "cwd": str(project),
            "prompt": words,
        }
        hook = subprocess.run(
            registered(home, "UserPromptSubmit"),
            shell=True,
            input=json.dumps(payload, ensure_ascii=False).encode(),
            capture_output=True,
            env=env,
            timeout=30,
        )
        print("hook answered:", hook.stdout.decode()[:200].replace("\n", " "))
        while time.monotonic() < deadline:
            dialog = ui_state(env)["dialog"]
            if dialog and dialog["visible"]:
                break
            time.sleep(0.3)
        else:
            raise SystemExit("the confirmation dialog did not appear")
        time.sleep(1.0)  # let the window manager-less X server paint it
        dialog = ui_state(env)["dialog"]
        target = DOCS / f"confirm-dialog-live-{language}.png"
        grab(env, target, dialog["geometry"])
        grab(env, DOCS / f"confirm-dialog-live-screen-{language}.png", None)
        print(f"wrote {target} (dialog for job {dialog['job'][:8]}: {dialog['title']})")
    finally:
        memevo(env, "service", "stop")
        tray.wait(30)
        trayer.terminate()
        trayer.wait(10)
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
