"""The README's learning screenshot: the confirmation dialog raised by a real prompt.

    xvfb-run -a -s "-screen 0 1280x800x24" python3 packaging/screenshot_learning.py

Nothing is staged: in a throwaway HOME and MEMEVO_HOME it runs `memevo setup --only claude`,
points learning at a local chat/completions server that plays the judge, starts the real
`memevo tray` on the X display (with `trayer` as the system tray), sends 「记住：…」 through
the UserPromptSubmit command that setup registered, waits for the tray's own dialog and grabs
the screen from a separate process. Writes docs/confirm-dialog-live.png (cropped to the
dialog) and docs/confirm-dialog-live-screen.png (the whole screen, tray icon included).
MEMEVO_MODELS_DIR is honoured, so an already provisioned model is reused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[1] / "docs"
WORDS = "记住：以后回答问题都用中文，代码注释也用中文"
LEARNED = "回答问题和写代码注释时一律使用中文"


def judge_server() -> ThreadingHTTPServer:
    """Plays the user's side model: every judge call says "remember this rule"."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            content = json.dumps({"remember": True, "text": LEARNED, "category": "rule"}, ensure_ascii=False)
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
        [sys.executable, "-m", "memevo.core.cli", *args], capture_output=True, text=True, env=env, timeout=300
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

    return client.call("ui.test", {"action": "state"}, timeout_s=10)


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
    root = Path(tempfile.mkdtemp(prefix="memevo-learning-shot-"))
    home, data = root / "home", root / "memevo-home"
    (home / ".claude").mkdir(parents=True)
    server = judge_server()
    env = dict(os.environ) | {
        "HOME": str(home),
        "MEMEVO_HOME": str(data),
        "MEMEVO_SIDE_API_KEY": "sk-local-judge-for-the-screenshot",
        "MEMEVO_TRAY_TEST_HOOK": "1",
        "MEMEVO_LANG": os.environ.get("MEMEVO_LANG", "zh_CN"),
    }
    env.pop("QT_QPA_PLATFORM", None)
    memevo(env, "setup", "--only", "claude")
    memevo(env, "config", "sideApiBase", f"http://127.0.0.1:{server.server_address[1]}/v1")
    memevo(env, "config", "sideApiModel", "local-judge")
    memevo(env, "rule", "add", "改完代码不要自动 commit，等我确认后再提交")
    trayer = subprocess.Popen(["trayer", "--edge", "top", "--align", "right", "--widthtype", "request"])
    tray = subprocess.Popen([sys.executable, "-m", "memevo.core.cli", "tray"], env=env)
    try:
        deadline = time.monotonic() + 180
        while not ping(env).get("model_ready") and time.monotonic() < deadline:
            time.sleep(0.5)
        payload = {
            "session_id": "shot",
            "hook_event_name": "UserPromptSubmit",
            "cwd": str(home),
            "prompt": WORDS,
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
        grab(env, DOCS / "confirm-dialog-live.png", dialog["geometry"])
        grab(env, DOCS / "confirm-dialog-live-screen.png", None)
        print(f"wrote {DOCS / 'confirm-dialog-live.png'} (dialog for job {dialog['job'][:8]})")
    finally:
        memevo(env, "service", "stop")
        tray.wait(30)
        trayer.terminate()
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
