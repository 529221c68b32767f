"""Timed samples and what the bench reports of them (min / median / max, the tail), and
resident memory, this process's or another's."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def timing(samples_ms: list[float]) -> dict[str, float]:
    return {
        "min": round(min(samples_ms), 3),
        "median": round(statistics.median(samples_ms), 3),
        "max": round(max(samples_ms), 3),
    }


def repeat(func: Callable[[], object], runs: int, warmup: int = 2) -> list[float]:
    for _ in range(warmup):
        func()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        func()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def spread(samples_ms: list[float]) -> dict[str, float]:
    """min / median / p95 / max: what a user lives is the tail as much as the middle."""
    ordered = sorted(samples_ms)
    p95 = ordered[max(0, -(-len(ordered) * 95 // 100) - 1)]  # nearest rank
    return timing(samples_ms) | {"p95": round(p95, 3)}


def process_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")
