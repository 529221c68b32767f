"""Hooks end to end against a warm service: each timed from spawn to exit, quiet, beside a CPU
load, and several at once."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from typing import Any

from .measure import process_rss_mb, spread
from .service import bench_service

HOOK_PROMPT = "支付页新流程要在测试环境打开，开关叫什么来着"
CONCURRENT_HOOKS = 8  # clients fire hooks in parallel (several sessions, a prompt and its tool calls)
LOAD_LIMIT_S = 600.0  # a busy process of the loaded figure ends by itself after this, whatever happens
_BUSY = (
    "import sys, time\nend = time.monotonic() + float(sys.argv[1])\nwhile time.monotonic() < end:\n    pass\n"
)


def _spawn_ms(command: list[str], stdin: bytes, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, input=stdin, capture_output=True, env=env, check=False, timeout=60)
    return (time.perf_counter() - started) * 1000


def hook_samples(
    command: list[str], stdin: bytes, env: dict[str, str], runs: int, warmup: int = 2
) -> list[float]:
    """One hook after the other, each timed from spawn to exit (as its client waits for it).
    The first `warmup` are not counted (the day's first session start runs maintenance)."""
    for _ in range(warmup):
        _spawn_ms(command, stdin, env)
    return [_spawn_ms(command, stdin, env) for _ in range(runs)]


def concurrent_samples(
    command: list[str],
    stdin: bytes,
    env: dict[str, str],
    rounds: int,
    width: int = CONCURRENT_HOOKS,
    warmup: int = 1,
) -> list[float]:
    """`width` hooks started at once, `rounds` times (after `warmup` rounds not counted): each
    one's own spawn-to-exit time."""
    import threading

    def one(gate: threading.Barrier, times: list[float]) -> None:
        gate.wait()
        times.append(_spawn_ms(command, stdin, env))  # list.append is atomic

    samples: list[float] = []
    for round_ in range(warmup + rounds):
        gate, times = threading.Barrier(width), list[float]()
        threads = [threading.Thread(target=one, args=(gate, times)) for _ in range(width)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if round_ >= warmup:
            samples += times
    return samples


@contextlib.contextmanager
def cpu_load(python: str, processes: int | None = None, limit_s: float = LOAD_LIMIT_S) -> Any:
    """As many busy processes as cores beside the hooks (a compiler, a test suite): stopped when
    the block ends however it ends (Ctrl-C, an exception), and each ends by itself after
    `limit_s` should this process be killed outright."""
    busy: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(processes or os.cpu_count() or 1):
            busy.append(
                subprocess.Popen(
                    [python, "-I", "-S", "-c", _BUSY, str(limit_s)],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        time.sleep(0.3)  # running, not starting
        yield busy
    finally:
        for proc in busy:
            with contextlib.suppress(OSError):
                proc.terminate()
        for proc in busy:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def hook_payloads() -> dict[str, bytes]:
    return {
        "prompt": json.dumps({"session_id": "bench", "prompt_id": "p", "prompt": HOOK_PROMPT}).encode(),
        "session_start": json.dumps({"session_id": "bench", "source": "startup"}).encode(),
    }


def measure_hooks(python: str, script: str, env: dict[str, str], runs: int) -> dict[str, Any]:
    """The hook figures for one hook script against the running service: quiet first, then
    beside the CPU load, then 8 at once (overlapping requests can leave the service slower)."""
    hook = [python, "-I", "-S", script, "claude"]
    payloads = hook_payloads()
    bare = [python, "-I", "-S", "-c", "pass"]
    python_start = spread(hook_samples(bare, b"", env, runs))
    hook_prompt = spread(hook_samples([*hook, "UserPromptSubmit"], payloads["prompt"], env, runs))
    session_start = spread(hook_samples([*hook, "SessionStart"], payloads["session_start"], env, runs))
    with cpu_load(python):
        loaded = spread(hook_samples([*hook, "UserPromptSubmit"], payloads["prompt"], env, runs))
    concurrent = spread(
        concurrent_samples([*hook, "UserPromptSubmit"], payloads["prompt"], env, max(2, runs // 4))
    )
    return {
        "python_start_ms": python_start,
        "hook_prompt_ms": hook_prompt,
        "hook_session_start_ms": session_start,
        "hook_prompt_loaded_ms": loaded,
        "hook_prompt_concurrent_ms": concurrent,
        "hook_prompt_vs_python_start": round(hook_prompt["median"] / python_start["median"], 2),
        "hook_session_start_vs_python_start": round(session_start["median"] / python_start["median"], 2),
        "hook_prompt_loaded_vs_quiet": round(loaded["median"] / hook_prompt["median"], 2),
        "hook_prompt_concurrent_vs_quiet": round(concurrent["median"] / hook_prompt["median"], 2),
    }


def hook_figures(runs: int, pool: int = 10_000) -> dict[str, Any]:
    from ...core.service.server import IDLE_TRIM_S
    from ...installer.hook_command import hook_script, interpreter

    python = interpreter()
    first: list[float] = []
    with bench_service(python, pool, first=first) as (env, service, ready_s):
        figures = measure_hooks(python, str(hook_script()), env, runs)
        busy = process_rss_mb(service.pid)
        # What stays resident between bursts: the service trims once requests pause
        # (core/service/server.py IDLE_TRIM_S); the figure right after the burst is kept beside it.
        time.sleep(IDLE_TRIM_S + 2)
        figures |= {
            "service_rss_mb": round(process_rss_mb(service.pid), 1),
            "service_rss_busy_mb": round(busy, 1),
            "service_ready_s": round(ready_s, 2),
            "service_first_ready_s": round(first[0], 2),
            "hook_pool": pool,
        }
    return figures
