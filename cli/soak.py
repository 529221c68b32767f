"""A long day against the resident process: thousands of prompt hooks and hundreds of writes
against the tray app (offscreen) hosting the service over a 10k-memory pool, and its RSS before
and after (the `soak_growth_pct` budget in cli/bench/budgets.py).

Most prompts are sent as the hook sends them (`hook_relay` with the client's raw payload: the
hook itself only forwards stdin's bytes), from several threads; a sample runs as real hook
processes (`<python> -I -S memevo_hook.py claude UserPromptSubmit`). Sessions, prompts and
written texts all differ, so per-session and per-text state is exercised, not one cached
answer. `memevo bench` reports the figures (`soak_*`); tests/test_soak.py holds the budget.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .bench.hooks import HOOK_PROMPT
from .bench.measure import process_rss_mb
from .bench.service import bench_service

FACT = "pay_new_flow_v2"  # the pool's one fact the prompt recalls (bench/service.py's _bench_pool)
SESSIONS = 50
GROWTH_BUDGET_PCT = 10.0


def relay_params(index: int) -> dict[str, Any]:
    """The params of the hook's own hook_relay request for the index-th prompt of the soak."""
    payload = {
        "session_id": f"soak-{index % SESSIONS}",
        "prompt_id": f"p{index}",
        "hook_event_name": "UserPromptSubmit",
        "prompt": f"{HOOK_PROMPT}（第 {index} 次）",
    }
    return {
        "client": "claude",
        "event": "UserPromptSubmit",
        "environ": {},
        "cwd": None,
        "payload": json.dumps(payload, ensure_ascii=False).encode("utf-8").hex(),
    }


def injected(reply: dict[str, Any]) -> str:
    """What the relay's frame tells the client to add to the prompt ("1:kind:hex:logs")."""
    parts = str(reply.get("relay", "")).split(":")
    return bytes.fromhex(parts[2]).decode("utf-8", "replace") if len(parts) > 2 else ""


def soak(
    prompts: int = 5000,
    writes: int = 500,
    real_hooks: int = 50,
    pool: int = 10_000,
    threads: int = 4,
    warmup: int = 400,
) -> dict[str, Any]:
    """soak_rss_before_mb (after a warm-up of every path), soak_rss_after_mb, soak_growth_pct,
    what ran (prompts, real hook processes, writes) and how many prompts recalled the fact."""
    from ..core.service import client
    from ..installer.hook_command import hook_script, interpreter

    python = interpreter()
    hook = [python, "-I", "-S", str(hook_script()), "claude", "UserPromptSubmit"]
    with bench_service(python, pool, mode="tray") as (env, tray, _ready_s):
        recalled = 0
        count_lock = threading.Lock()

        def prompt(index: int) -> None:
            nonlocal recalled
            text = injected(client.call("hook_relay", relay_params(index), timeout_s=120))
            if FACT in text:
                with count_lock:
                    recalled += 1

        def write(index: int) -> None:
            category = "rule" if index % 2 else "project"
            text = f"浸泡测试第 {index} 条：部署 soak-service-{index} 前先检查配置项 flag_{index}"
            client.call("add", {"category": category, "text": text}, timeout_s=120)

        def real_hook(index: int) -> None:
            nonlocal recalled
            payload = json.loads(bytes.fromhex(relay_params(index)["payload"]))
            done = subprocess.run(
                hook, input=json.dumps(payload).encode(), env=env, capture_output=True, timeout=120
            )
            if FACT in done.stdout.decode("utf-8", "replace"):
                with count_lock:
                    recalled += 1

        def day(first: int, count: int, written: int, real: int) -> None:
            """`count` prompts from `threads` lanes, `written` writes queued among them and `real`
            of the prompts as real hook processes, spread evenly."""
            hook_every = max(1, count // real) if real else 0
            write_every = max(1, count // written) if written else 0
            with ThreadPoolExecutor(threads) as lanes:
                jobs = []
                for i in range(count):
                    as_process = hook_every and i % hook_every == 0 and i // hook_every < real
                    jobs.append(lanes.submit(real_hook if as_process else prompt, first + i))
                    if write_every and i % write_every == 0 and i // write_every < written:
                        jobs.append(lanes.submit(write, first + i))
                for job in jobs:
                    job.result()

        # Warm-up the same way (the same lanes, so the encoder's batches and the request threads'
        # heaps reach their working size): before is the steady state, after shows any growth.
        day(-warmup - 1, warmup, max(1, warmup // 40), 1)
        time.sleep(3)
        before = process_rss_mb(tray.pid)
        recalled = 0
        started = time.perf_counter()
        timeline: list[float] = []  # RSS every 10 s: levelling off, or growing all along
        running = threading.Event()
        running.set()

        def sample() -> None:
            while running.is_set():
                timeline.append(round(process_rss_mb(tray.pid), 1))
                time.sleep(10)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            day(0, prompts, writes, real_hooks)
        finally:
            running.clear()
            sampler.join()
        elapsed = time.perf_counter() - started
        time.sleep(3)  # DuckDB's allocator returns what the last writes freed, given a moment
        after = process_rss_mb(tray.pid)
        counts = client.call("counts", {}, timeout_s=60)["counts"]
        memories = sum(c["live"] + c["deprecated"] for c in counts.values())
    return {
        "soak_rss_before_mb": round(before, 1),
        "soak_rss_after_mb": round(after, 1),
        "soak_growth_pct": round(100.0 * (after - before) / before, 1),
        "soak_prompts": prompts,
        "soak_real_hooks": min(real_hooks, prompts) if real_hooks else 0,
        "soak_writes": writes,
        "soak_recalled": recalled,
        "soak_s": round(elapsed, 1),
        "soak_rss_timeline_mb": timeline,
        "soak_memories_after": memories,
        "soak_load_average": [round(x, 2) for x in os.getloadavg()],
    }


if __name__ == "__main__":  # python -m memevo.cli.soak [PROMPTS WRITES]: the figures as JSON
    import sys

    args = [int(a) for a in sys.argv[1:3]]
    print(json.dumps(soak(*args), indent=2))
