"""Start a real `memevo serve` for a data dir and wait until it answers (model loaded)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from deadlines import HANG_S
from memevo.core.service import client


def ping(home: Path) -> dict[str, Any] | None:
    previous = os.environ.get("MEMEVO_HOME")
    os.environ["MEMEVO_HOME"] = str(home)
    try:
        return client.call("ping", {}, timeout_s=2)
    except (client.ServiceUnavailable, Exception):
        return None
    finally:
        if previous is None:
            os.environ.pop("MEMEVO_HOME", None)
        else:
            os.environ["MEMEVO_HOME"] = previous


def wait_for(
    home: Path, timeout: float = HANG_S, model: bool = True, not_pid: int | None = None
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = ping(home)
        if status and status["pid"] != not_pid and (status["model_ready"] or not model):
            return status
        time.sleep(0.25)
    log = home / "logs" / "service.log"
    raise AssertionError(f"no ready service in {home}: {log.read_text() if log.exists() else 'no log'}")


@contextmanager
def service(home: Path, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[str]]:
    full_env = os.environ | {"MEMEVO_HOME": str(home)} | (env or {})
    with subprocess.Popen(
        [sys.executable, "-m", "memevo.cli", "serve"],
        env=full_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as proc:
        try:
            wait_for(home)
            yield proc
        finally:
            stop(home, proc)


def stop(home: Path, proc: subprocess.Popen[str] | None = None, pid: int | None = None) -> None:
    status = ping(home)
    if status is not None:
        previous = os.environ.get("MEMEVO_HOME")
        os.environ["MEMEVO_HOME"] = str(home)
        try:
            client.call("shutdown", {}, timeout_s=5)
        except Exception:
            pass
        finally:  # put back as found: unset stays unset (a module fixture's stop had left its
            # folder as every later module's MEMEVO_HOME, and a setup there named it in hooks)
            if previous is None:
                os.environ.pop("MEMEVO_HOME", None)
            else:
                os.environ["MEMEVO_HOME"] = previous
    if proc is not None:
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    elif pid is not None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)


@contextmanager
def populated(home: Path, populate: Any) -> Iterator[Path]:
    """Fill `home` (without touching the caller's MEMEVO_HOME) and run a service on it."""
    saved = os.environ.get("MEMEVO_HOME")
    try:
        populate(home)
    finally:
        if saved is None:
            os.environ.pop("MEMEVO_HOME", None)
        else:
            os.environ["MEMEVO_HOME"] = saved
    with service(home):
        yield home


def module_service(name: str, populate: Any) -> tuple[Any, Any]:
    """A module's two fixtures: `home`, a data dir filled by `populate` with one service on it
    for the whole module, and an autouse one that points each test's MEMEVO_HOME at it. In the
    module: `home, _home_env = servicerun.module_service("x-home", _populate)`."""
    import pytest

    @pytest.fixture(scope="module")
    def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
        with populated(tmp_path_factory.mktemp(name), populate) as filled:
            yield filled

    @pytest.fixture(autouse=True)
    def home_env(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("MEMEVO_HOME", str(home))

    return home, home_env


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`memevo ARGS` in a process of its own, on the MEMEVO_HOME of the test."""
    return subprocess.run(
        [sys.executable, "-m", "memevo.cli", *args], capture_output=True, text=True, timeout=HANG_S
    )


@contextmanager
def offscreen_tray(
    home: Path, env: dict[str, str] | None = None, without: tuple[str, ...] = ()
) -> Iterator[subprocess.Popen[str]]:
    """A real `memevo tray` on `home` (offscreen, no display named), answering with its model
    loaded, then asked the planted fact `pay_new_flow_v2` once: a tray that has served a prompt.
    Stopped however the body ends."""
    import json

    tray_env = os.environ | {"MEMEVO_HOME": str(home), "QT_QPA_PLATFORM": "offscreen"} | (env or {})
    for name in ("DISPLAY", "WAYLAND_DISPLAY", *without):
        tray_env.pop(name, None)
    tray = subprocess.Popen(
        [sys.executable, "-m", "memevo.cli", "tray"],
        env=tray_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        status = wait_for(home)
        assert status["desktop"] and status["pid"] == tray.pid, status
        answer = client.call(
            "hook_prompt", {"prompt": "支付页新流程的开关叫什么", "session_id": "tray"}, timeout_s=60
        )
        assert "pay_new_flow_v2" in json.dumps(answer, ensure_ascii=False), answer
        yield tray
    finally:
        stop(home, tray)
