"""The tray app on a real X display (Xvfb, the xcb platform, openbox, trayer), and on the two
broken desktops met in use: one without Qt's xcb libraries, one whose DISPLAY cannot be
reached. There the tray app must say why in one sentence and a working service must answer
(the hooks recall project facts), never an abort that leaves hooks on their cache for good.

The processes are the real ones: `memevo tray`, the hook command `memevo setup` registered in
Claude Code's settings, the side judge a local server; the tray's test hook (desktop/testhook.py)
reports what the tray shows, and the X server's pointer (xdotool) clicks it as a user does."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import servicerun
import xdisplay
from deadlines import CALL_S, HANG_S
from memevo.core.service import client
from test_tray_learning import Judge, prompt_payload, registered_command
from test_tray_learning import wait_until as tray_learning_wait

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("provisioned_model")]

FACT = "支付页新流程的灰度开关是 pay_new_flow_v2"
ASK = "支付页新流程要在测试环境打开，开关叫什么来着"
SENTENCE = "the tray app cannot start on this desktop"


def desktop_env(data_dir: Path, display: str, **extra: str) -> dict[str, str]:
    """A desktop session's environment: DISPLAY set, Qt left to pick its platform (no offscreen)."""
    env = dict(os.environ) | {
        "MEMEVO_HOME": str(data_dir),
        "DISPLAY": display,
        "MEMEVO_LANG": "en",
        "MEMEVO_SIDE_API_KEY": "sk-test-local-judge-0001",
    }
    for name in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "MEMEVO_HEADLESS"):
        env.pop(name, None)
    return env | extra


def memevo(
    env: dict[str, str], *args: str, prefix: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*(prefix or []), sys.executable, "-m", "memevo.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
    )
    assert done.returncode == 0, f"memevo {' '.join(args)}: {done.stdout}{done.stderr}"
    return done


def hook(
    env: dict[str, str], event: str, payload: dict[str, Any], prefix: list[str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """The command Claude Code runs for the event, through a shell, the payload on stdin."""
    done = subprocess.run(
        [*(prefix or []), "sh", "-c", registered_command(event)],
        input=json.dumps(payload, ensure_ascii=False).encode(),
        capture_output=True,
        env=env,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    return done


def set_up_claude(env: dict[str, str]) -> None:
    (Path(env["HOME"]) / ".claude").mkdir(exist_ok=True)
    memevo(env, "setup", "--only", "claude")


def recalls_the_fact(env: dict[str, str], prefix: list[str] | None = None) -> str:
    """A prompt hook's answer: the project fact comes from the service (the cache has rules only)."""
    return hook(env, "UserPromptSubmit", prompt_payload("s-recall", ASK), prefix).stdout.decode()


def click_entry(display: str, menu: dict[str, Any], text: str) -> None:
    [entry] = [item for item in menu["items"] if item["text"] == text]
    x, y, width, height = entry["geometry"]
    xdisplay.click(display, x + width // 2, y + height // 2)


def wait_until(what: str, check: Callable[[], Any]) -> Any:
    return tray_learning_wait(what, check, HANG_S)


def log_text(data_dir: Path, name: str) -> str:
    path = data_dir / "logs" / name
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def tray_in_foreground(
    env: dict[str, str], data_dir: Path
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """`memevo tray` as a terminal runs it, where it turns into the headless service: the
    service's status once it answers, then its output after it was asked to stop."""
    import threading

    answered: list[dict[str, Any]] = []

    def stop_once_it_answers() -> None:
        answered.append(servicerun.wait_for(data_dir, model=False))
        servicerun.stop(data_dir)

    stopper = threading.Thread(target=stop_once_it_answers, daemon=True)
    stopper.start()
    done = subprocess.run(
        [sys.executable, "-m", "memevo.cli", "tray"],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
    )
    stopper.join(HANG_S)
    assert answered, f"the service never answered: {done.stderr}"
    return done, answered[0]


@pytest.fixture
def x_display() -> Iterator[str]:
    with xdisplay.x_display() as display:
        yield display


@pytest.fixture
def judge() -> Iterator[Judge]:
    j = Judge()
    yield j
    j.server.close()


@pytest.fixture
def stop_service(data_dir: Path) -> Iterator[None]:
    yield
    servicerun.stop(data_dir)


# -- the tray app on a real X display -------------------------------------------------------------------
def test_on_a_real_x_display_the_tray_shows_its_icon_menu_and_the_dialog_a_prompt_raises(
    data_dir: Path, x_display: str, judge: Judge, tmp_path: Path
) -> None:
    env = desktop_env(data_dir, x_display, MEMEVO_TRAY_TEST_HOOK="1")
    set_up_claude(env)
    memevo(env, "config", "sideApiBase", judge.server.base)
    memevo(env, "config", "sideApiModel", "local-judge")
    memevo(env, "config", "confirm", "true")
    out = (tmp_path / "tray.out").open("w+b")
    tray = subprocess.Popen(
        [sys.executable, "-m", "memevo.cli", "tray"], env=env, stdout=out, stderr=subprocess.STDOUT
    )

    def ui(**params: Any) -> dict[str, Any]:
        os.environ["MEMEVO_HOME"] = str(data_dir)
        return client.call("ui_test", params, timeout_s=CALL_S)

    try:
        status = servicerun.wait_for(data_dir)
        assert status["desktop"] and status["pid"] == tray.pid
        assert not (data_dir / "tray-start.json").exists()  # the GUI came up: no dead start on record
        state = ui(action="state")
        assert state["platform"] == "xcb"  # the real display, not offscreen
        icon = wait_until("the icon in trayer", lambda: ui(action="state")["icon"])
        assert icon["visible"], icon
        x, y, width, height = icon["geometry"]
        assert width > 0 and height > 0, icon

        # The menu: a right click on the icon in the system tray opens it; a click on an entry runs it.
        xdisplay.click(x_display, x + width // 2, y + height // 2, button=3)
        menu = wait_until("the menu to open", lambda: (m := ui(action="state")["menu"])["visible"] and m)
        texts = [item["text"] for item in menu["items"]]
        assert {"Open panel", "Pause memory", "Quit memevo (until you start it again)"} <= set(texts), texts
        click_entry(x_display, menu, "Pause memory")
        wait_until("memevo to pause", lambda: ui(action="state")["tray_state"] == "paused")
        assert not ui(action="state")["menu"]["visible"]
        assert json.loads(memevo(env, "config", "enabled", "--json").stdout)["value"] is False
        # And back, the same way: learning needs it on.
        xdisplay.click(x_display, x + width // 2, y + height // 2, button=3)
        menu = wait_until(
            "the menu to open again", lambda: (m := ui(action="state")["menu"])["visible"] and m
        )
        click_entry(x_display, menu, "Resume memory")
        wait_until("memevo to resume", lambda: ui(action="state")["tray_state"] != "paused")
        assert json.loads(memevo(env, "config", "enabled", "--json").stdout)["value"] is True

        # A real prompt through the registered hook: the side judge proposes, the dialog shows on X.
        words = "记住：改完代码不要自动 commit"
        judge.verdicts[words] = {"remember": True, "text": "改完代码后不要自动 commit", "category": "rule"}
        hook(env, "UserPromptSubmit", prompt_payload("s-x", words))

        def dialog() -> dict[str, Any] | None:
            shown = ui(action="state")["dialog"]
            return shown if shown and shown["visible"] else None

        shown = wait_until("the confirmation dialog", dialog)
        assert shown["text"] == "改完代码后不要自动 commit"
        # Mapped and viewable on the X server, framed by the window manager.
        wait_until("the dialog's window on X", lambda: shown["title"] in xdisplay.viewable_windows(x_display))
        edited = "改完代码后不要自动 git commit，先给我看 diff"
        ui(action="answer", job=shown["job"], decision="create_rule", text=edited)

        def stored() -> bool:
            memories = json.loads(memevo(env, "read", "rule", "--json").stdout)["memories"]
            return [m["text"] for m in memories] == [edited]

        wait_until("the answer in the store", stored)
        assert ui(action="state")["store_on_ui_thread"] == []  # as on offscreen (test_tray_learning)
    finally:
        servicerun.stop(data_dir, tray)  # type: ignore[arg-type]
        out.seek(0)
        output = out.read().decode(errors="replace")
        out.close()
    assert tray.returncode == 0, output
    assert "qt.qpa" not in output, output  # Qt said nothing about its platform


# -- broken desktops: a sentence and a working service ---------------------------------------------------
def test_without_the_xcb_libraries_a_hook_gets_a_headless_service_and_the_log_says_why(
    data_dir: Path, x_display: str, tmp_path: Path, stop_service: None
) -> None:
    """A fresh Debian desktop without libxcb-cursor0 and libxcb-icccm4: Qt would abort."""
    hidden = xdisplay.hiding_libraries(["libxcb-cursor.so", "libxcb-icccm.so"], tmp_path)
    env = desktop_env(data_dir, x_display)
    set_up_claude(env)
    # The first prompt finds no service: the hook starts "the tray app on a desktop", as always.
    hook(env, "UserPromptSubmit", prompt_payload("s-first", "你好"), prefix=hidden)
    assert "started the service (tray)" in log_text(data_dir, "hooks.log")
    status = servicerun.wait_for(data_dir)
    assert not status["desktop"]  # the headless service, not a dead tray app
    started = log_text(data_dir, "service-start.log")
    assert SENTENCE in started and "libxcb-cursor.so.0" in started, started
    assert "sudo apt install libxcb-cursor0 libxcb-icccm4" in started, started
    assert "Aborted" not in started and "qt.qpa" not in started, started
    memevo(env, "project", "add", FACT, prefix=hidden)
    assert FACT in recalls_the_fact(env, prefix=hidden)

    # `memevo` alone on that desktop says the same, and what runs instead.
    alone = subprocess.run(
        [*hidden, sys.executable, "-m", "memevo.cli"],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
    )
    assert alone.returncode == 0, alone.stderr
    assert SENTENCE in alone.stderr and "libxcb-cursor0" in alone.stderr, alone.stderr
    assert "1 project fact" in alone.stdout and "memevo serve" in alone.stdout, alone.stdout


def test_with_an_unreachable_display_the_tray_says_so_and_serves_headless(
    data_dir: Path, stop_service: None
) -> None:
    """A stale DISPLAY (ssh, WSL without an X server): nothing listens on it."""
    env = desktop_env(data_dir, xdisplay.unreachable_display())
    set_up_claude(env)
    tray, status = tray_in_foreground(env, data_dir)
    assert tray.returncode == 0, tray.stderr
    assert not status["desktop"] and status["pid"], status
    sentence = [line for line in tray.stderr.splitlines() if SENTENCE in line]
    assert len(sentence) == 1, tray.stderr
    assert f"DISPLAY={env['DISPLAY']} cannot be reached" in sentence[0]
    assert "running the headless service instead (`memevo serve`)" in sentence[0]
    assert "qt.qpa" not in tray.stderr and "Aborted" not in tray.stderr


def test_an_mcp_server_and_a_hook_on_an_unreachable_display_get_a_working_service(
    data_dir: Path, stop_service: None
) -> None:
    """The client starts memevo's MCP server, which starts "the tray app on a desktop"."""
    env = desktop_env(data_dir, xdisplay.unreachable_display())
    set_up_claude(env)
    mcp = subprocess.Popen(
        [sys.executable, "-m", "memevo.cli", "mcp", "--client", "claude"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        status = servicerun.wait_for(data_dir)
    finally:
        assert mcp.stdin is not None
        mcp.stdin.close()  # the client went away
        mcp.wait(HANG_S)
    assert not status["desktop"]
    started = log_text(data_dir, "service-start.log")
    assert SENTENCE in started and "cannot be reached" in started, started
    memevo(env, "project", "add", FACT)
    assert FACT in recalls_the_fact(env)
    # `memevo service` says why the service on this desktop is the headless one.
    service = json.loads(memevo(env, "service", "--json").stdout)
    assert service["running"] and not service["desktop"]
    assert (
        "cannot start on this desktop" in service["tray_app"] and "cannot be reached" in service["tray_app"]
    )


def test_a_display_that_never_answers_is_given_up_on_within_the_probes_bound(
    data_dir: Path, stop_service: None
) -> None:
    """DISPLAY=host:N where the host takes the connection and then says nothing."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    port = silent.getsockname()[1]
    env = desktop_env(data_dir, f"127.0.0.1:{port - 6000}")
    try:
        tray, status = tray_in_foreground(env, data_dir)
    finally:
        silent.close()
    assert tray.returncode == 0, tray.stderr
    assert not status["desktop"] and status["pid"], status
    assert SENTENCE in tray.stderr and "no answer within 3 s" in tray.stderr, tray.stderr


def test_a_tray_qt_kills_anyway_leaves_its_start_on_record_and_the_next_hook_starts_serve(
    data_dir: Path, x_display: str, tmp_path: Path, stop_service: None
) -> None:
    """What the probe cannot foresee: a libxcb-cursor.so.0 that is another library (a wrong or
    too old one: present for ldd, missing its symbols). Qt aborts; the record it leaves sends
    the next starter to `memevo serve`, and the hooks recall again."""
    wrong = xdisplay.hiding_libraries(["libxcb-cursor.so"], tmp_path, replace_with="libxcb-util.so.1")
    env = desktop_env(data_dir, x_display)
    set_up_claude(env)
    died = subprocess.run(
        [*wrong, sys.executable, "-m", "memevo.cli", "tray"],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
    )
    assert died.returncode in (-signal.SIGABRT, 128 + signal.SIGABRT), (died.returncode, died.stderr)
    record = json.loads((data_dir / "tray-start.json").read_text(encoding="utf-8"))
    assert record["display"].startswith(x_display + "|")

    hook(env, "UserPromptSubmit", prompt_payload("s-after", "你好"), prefix=wrong)
    assert "the tray app died on this display" in log_text(data_dir, "hooks.log")
    status = servicerun.wait_for(data_dir)
    assert not status["desktop"]
    memevo(env, "project", "add", FACT, prefix=wrong)
    assert FACT in recalls_the_fact(env, prefix=wrong)
    service = json.loads(memevo(env, "service", "--json").stdout)
    assert "died on this display" in service["tray_app"], service


def test_starters_honour_a_dead_tray_start_only_on_its_own_display(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """spawn.service_mode (MCP servers, commands) and the hooks' start_service read the record
    the same way: a dead start on this display means serve; a live one, or another display, tray."""
    from memevo.core.service import spawn

    dead = subprocess.Popen(["true"])
    dead.wait()  # reaped: its pid names no process now
    data_dir.mkdir(parents=True, exist_ok=True)
    hooks_dir = str(Path(__file__).resolve().parents[1] / "hooks")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("MEMEVO_HEADLESS", raising=False)

    def modes(display: str, pid: int) -> tuple[str, str]:
        record = {"pid": pid, "display": ":5|", "at": time.time()}
        (data_dir / "tray-start.json").write_text(json.dumps(record), encoding="utf-8")
        monkeypatch.setenv("DISPLAY", display)
        hooks = subprocess.run(
            [sys.executable, "-I", "-S", "-c", _HOOK_MODE, hooks_dir],
            env=dict(os.environ),
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
        assert hooks.returncode == 0, hooks.stderr
        return spawn.service_mode(), hooks.stdout.strip()

    assert modes(":5", dead.pid) == ("serve", "True")
    assert modes(":6", dead.pid) == ("tray", "False")  # another display is tried afresh
    assert modes(":5", os.getpid()) == ("tray", "False")  # still starting


# What hooks/hookio.py decides, run as the hooks run (-I -S: the standard library only).
_HOOK_MODE = "import sys; sys.path.insert(0, sys.argv[1]); import wire; print(wire.tray_died_here())"


def test_a_wayland_session_whose_compositor_is_gone_gets_the_x_display_qt_would_not_try(
    x_display: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Qt picks wayland alone in a (non-GNOME) Wayland session and aborts when it fails; the
    probe tries the X display too and names it, so the tray asks Qt for xcb."""
    from memevo.core.process import display

    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setenv("XDG_SESSION_TYPE", "wayland")
    monkeypatch.setenv("XDG_CURRENT_DESKTOP", "KDE")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")  # no compositor's socket there
    monkeypatch.setenv("DISPLAY", x_display)
    assert display.probe() == display.Desktop(platform="xcb")
    monkeypatch.setenv("DISPLAY", xdisplay.unreachable_display())
    problem = display.probe().problem
    assert problem is not None and "WAYLAND_DISPLAY=wayland-0 cannot be reached" in problem
    assert "cannot be reached" in problem.split(";")[-1], problem  # and the X display's reason too


def test_the_sentence_names_the_debian_packages_to_install() -> None:
    from memevo.core.process import display

    names = ["libxcb-cursor.so.0", "libxkbcommon-x11.so.0", "libX11-xcb.so.1", "libglib-2.0.so.0"]
    assert [display.debian_package(name) for name in names] == [
        "libxcb-cursor0",
        "libxkbcommon-x11-0",
        "libx11-xcb1",
        "libglib2.0-0",
    ]
    broken = display.debian_package("/lib/x86_64-linux-gnu/libxcb-cursor.so.0: file too short")
    assert broken == "libxcb-cursor0"
