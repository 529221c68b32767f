"""A headless service started on demand exits when idle; the next caller starts it again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import servicerun
from deadlines import CALL_S, HANG_S
from hookrun import run_hook
from memevo.core import config as config_mod
from memevo.core.service import client
from memevo.core.service.idle import IDLE_ENV, idle_limit_s

pytestmark = pytest.mark.usefixtures("provisioned_model")

IDLE_MINUTES = 0.05  # 3 s


def _call(home: Path, op: str) -> None:
    saved = os.environ.get("MEMEVO_HOME")
    os.environ["MEMEVO_HOME"] = str(home)
    try:
        client.call(op, {}, timeout_s=CALL_S)
    finally:
        if saved is None:
            os.environ.pop("MEMEVO_HOME", None)
        else:
            os.environ["MEMEVO_HOME"] = saved


def test_an_idle_headless_service_exits_and_the_next_hook_starts_one(data_dir: Path) -> None:
    env = os.environ | {"MEMEVO_HOME": str(data_dir), IDLE_ENV: str(IDLE_MINUTES)}
    with subprocess.Popen(
        [sys.executable, "-m", "memevo.cli", "serve"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as proc:
        first = servicerun.wait_for(data_dir)  # idling starts once the model is in
        # requests keep it alive well past the limit
        until = time.monotonic() + IDLE_MINUTES * 60 * 2.5
        while time.monotonic() < until:
            _call(data_dir, "counts")
            assert proc.poll() is None
            time.sleep(0.5)
        # then silence: it leaves on its own, cleanly (a ping does not count as a request)
        servicerun.ping(data_dir)
        try:
            assert proc.wait(timeout=HANG_S) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
    log = (data_dir / "logs" / "service.log").read_text(encoding="utf-8")
    assert "no request for 0.05 minutes" in log and "service stopped" in log
    assert not (data_dir / "memevo.sock").exists() and not (data_dir / "service.json").exists()

    # the next hook answers from the cached text at once and starts a new service
    answered = run_hook("claude", "SessionStart", json.dumps({"session_id": "idle"}))
    assert answered.returncode == 0
    second = servicerun.wait_for(data_dir, model=False, not_pid=first["pid"])
    servicerun.stop(data_dir, pid=second["pid"])


def test_the_idle_limit_comes_from_config_and_zero_means_never(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(IDLE_ENV, raising=False)
    assert idle_limit_s() == 30 * 60  # the default
    config_mod.replace_raw({"serviceIdleMinutes": 0})
    assert idle_limit_s() is None
    config_mod.replace_raw({"serviceIdleMinutes": 2.5})
    assert idle_limit_s() == 150
    config_mod.replace_raw({"serviceIdleMinutes": -1})
    assert config_mod.load().problems and idle_limit_s() == 30 * 60  # invalid: the default
    monkeypatch.setenv(IDLE_ENV, "0.5")
    assert idle_limit_s() == 30
