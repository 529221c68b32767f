"""A service (`memevo serve`, or the tray app hosting it) over the bench's pool in a temporary
home, model loaded: started, timed to ready, and stopped; the tray's figures."""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
import time
from typing import Any

from ...core import envvars
from .measure import process_rss_mb
from .pool import HOME_ENV, synthetic_store


@contextlib.contextmanager
def bench_service(
    python: str, pool: int = 10_000, mode: str = "serve", first: list[float] | None = None
) -> Any:
    """`memevo serve` (or, mode="tray", the tray app offscreen, set up, in a HOME of its own)
    over the benchmark pool in a temporary home, model loaded: yields (env for hooks, the
    process's Popen, seconds to ready); shut down afterwards.

    The measured start is the second: a first one, started and stopped before it, meets the
    pool as the benchmark wrote it (51 memories without vectors to encode, no lexical index
    kept beside the store), which a user's service meets only after memories were written with
    no service running; a service's start at login or after its idle exit meets the store as
    its last run left it. `first` (a list) gets the first start's seconds to ready."""
    from ...core.encoder.models import models_dir
    from ...installer import state

    with tempfile.TemporaryDirectory(prefix="memevo-bench-") as home:
        # the model already provisioned for the caller, not a fresh one in the temporary home
        env = os.environ | {HOME_ENV: home, envvars.MODELS_DIR.name: str(models_dir())}
        if mode == "tray":
            user_home = os.path.join(home, "user")
            os.makedirs(user_home)
            # the tray may write autostart or keyring files: never the user's
            env |= {"HOME": user_home, "QT_QPA_PLATFORM": "offscreen"}
        else:
            env[envvars.HEADLESS.name] = "1"
        saved = os.environ.get(HOME_ENV)
        os.environ[HOME_ENV] = home
        try:
            _bench_pool(pool)
            if mode == "tray":
                state.mark_setup_run()  # no wizard
            settling, first_s = _start_service(python, mode, env)
            _stop_service(settling)
            if first is not None:
                first.append(first_s)
            service, ready_s = _start_service(python, mode, env)
            try:
                yield env, service, ready_s
            finally:
                _stop_service(service)
        finally:
            if saved is None:
                os.environ.pop(HOME_ENV, None)
            else:
                os.environ[HOME_ENV] = saved


def _start_service(python: str, mode: str, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], float]:
    from ...core.service import client

    started = time.perf_counter()
    service = subprocess.Popen(
        [python, "-P", "-m", "memevo.cli", mode],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        return service, _wait_model(client, started)
    except BaseException:
        _stop_service(service)
        raise


def _stop_service(service: subprocess.Popen[bytes]) -> None:
    from ...core.service import client

    with contextlib.suppress(Exception):
        client.call("shutdown", {}, timeout_s=10)
    try:
        service.wait(30)
    except subprocess.TimeoutExpired:
        service.terminate()
        try:
            service.wait(10)
        except subprocess.TimeoutExpired:
            service.kill()
            service.wait()


def _bench_pool(pool: int) -> None:
    """The hook benchmark's pool: synthetic vectors (current for the default model), 50 rules
    and the one fact the prompt recalls. Call with MEMEVO_HOME set to a temporary home."""
    from ...core.clock import SystemClock
    from ...core.encoder.models import DEFAULT_MODEL
    from ...core.memories import live as memories

    store = synthetic_store(pool - 50, model=DEFAULT_MODEL)
    for i in range(50):
        memories.create(store, "rule", f"第 {i} 条规则：提交前先运行单元测试并检查格式", SystemClock())
    memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", SystemClock())
    store.close()


def _wait_model(client: Any, started: float, timeout_s: float = 300) -> float:
    while time.perf_counter() - started < timeout_s:
        try:
            status: dict[str, Any] = client.call("ping", {}, timeout_s=2)
            if status["model_ready"]:
                return time.perf_counter() - started
            if status["model_error"]:
                raise RuntimeError(status["model_error"])
        except client.ServiceUnavailable:
            pass
        time.sleep(0.05)
    raise RuntimeError("the service did not become ready")


def tray_figures(pool: int = 10_000, settle_s: float = 3.0) -> dict[str, Any]:
    """tray_rss_mb: the tray app (`memevo tray`, offscreen) hosting the service with the model
    over the same 10k-memory pool, set up (no wizard), `settle_s` after the model is in."""
    from ...installer.hook_command import interpreter

    with bench_service(interpreter(), pool, mode="tray") as (_env, tray, ready_s):
        time.sleep(settle_s)
        return {"tray_rss_mb": round(process_rss_mb(tray.pid), 1), "tray_ready_s": round(ready_s, 2)}
