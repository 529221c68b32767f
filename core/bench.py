"""`memevo bench`: the speed budgets, measured over repeated runs (min / median / max).

Every figure comes from a synthetic pool in a temporary MEMEVO_HOME, never the user's.
Recall over 100k and 1M memories runs in child processes so each reports its own RSS.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

DIM = 384


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


# -- recall over a synthetic pool (child process) ---------------------------------------------------
def synthetic_store(n: int, seed: int = 7) -> Any:
    """A store with n memories (half rules) and random unit vectors, written in bulk."""
    import pyarrow as pa

    from .store import Store

    rng = np.random.default_rng(seed)
    store = Store.open()
    chunk = 100_000
    for start in range(0, n, chunk):
        size = min(chunk, n - start)
        ids = [f"b{start + i:07d}" for i in range(size)]
        matrix = rng.standard_normal((size, DIM), dtype=np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        now = int(time.time() * 1000)
        rows = pa.table(
            {
                "id": ids,
                "category": ["rule" if i % 2 else "project" for i in range(size)],
                "text": [f"synthetic memory number {start + i}" for i in range(size)],
                "confidence": pa.array([50] * size, pa.int16()),
                "created_ms": pa.array([now] * size, pa.int64()),
                "last_seen_ms": pa.array([now] * size, pa.int64()),
                "deprecated": [False] * size,
                "award_day": pa.array([None] * size, pa.string()),
                "award_pts": pa.array([0] * size, pa.int16()),
            }
        )
        vecs = pa.table(
            {
                "memory_id": ids,
                "model": ["bench"] * size,
                "text_sha": ["-"] * size,
                "vec": pa.ListArray.from_arrays(
                    pa.array(np.arange(0, (size + 1) * DIM, DIM, dtype=np.int32)), pa.array(matrix.ravel())
                ),
            }
        )
        with store.transaction() as con:
            con.register("bench_rows", rows)
            con.register("bench_vecs", vecs)
            con.execute("INSERT INTO memories SELECT * FROM bench_rows")
            con.execute("INSERT INTO vectors SELECT * FROM bench_vecs")
            con.unregister("bench_rows")
            con.unregister("bench_vecs")
    return store


def recall_child(runs: int) -> dict[str, Any]:
    """Load the pool a previous child wrote, as the service does at start, then recall."""
    from . import vectors
    from .recall.gate import gate_category
    from .recall.index import MemoryIndex
    from .store import Store

    store = Store.open(read_only=True)
    rss_before = rss_mb()
    started = time.perf_counter()
    index = MemoryIndex(DIM, np.zeros(DIM, dtype=np.float32))
    index.reserve(vectors.count_pool(store, "bench"))
    for batch in vectors.iter_pool(store, "bench"):  # as RecallEngine.sync_all loads it
        index.upsert_pool(batch)
    load_s = time.perf_counter() - started
    rng = np.random.default_rng(1)
    queries = rng.standard_normal((runs + 2, DIM), dtype=np.float32)
    position = iter(range(len(queries)))

    def one_recall() -> None:
        ranked = index.ranked(queries[next(position)], 3)
        for category in ("rule", "project"):
            gate_category(ranked[category], 0.3, 3, -1)

    samples = repeat(one_recall, runs)
    store.close()
    return {
        "timing": timing(samples),
        "rss_mb": round(rss_mb(), 1),
        "index_load_s": round(load_s, 2),
        "rss_before_mb": round(rss_before, 1),
    }


def run_recall_child(n: int, runs: int) -> dict[str, Any]:
    """One child writes the synthetic pool, a fresh one loads it and measures (clean RSS)."""
    with tempfile.TemporaryDirectory(prefix="memevo-bench-") as home:
        env = os.environ | {"MEMEVO_HOME": home}
        output = ""
        for args in (["make", str(n)], ["recall", str(runs)]):
            result = subprocess.run(
                [sys.executable, "-m", "memevo.core.bench", *args],
                capture_output=True,
                text=True,
                env=env,
                timeout=3600,
            )
            if result.returncode != 0:
                raise RuntimeError(f"recall bench over {n} failed: {result.stderr.strip().splitlines()[-1:]}")
            output = result.stdout
    return dict(json.loads(output))


# -- the encoder --------------------------------------------------------------------------------------
def encoder_figures(runs: int, rebuild_n: int) -> dict[str, Any]:
    from . import memories
    from .clock import SystemClock
    from .runtime import load_encoder
    from .store import Store

    encoder = load_encoder()
    encode = repeat(lambda: encoder.encode_one("改完代码不要自动 commit"), runs, warmup=3)
    with tempfile.TemporaryDirectory(prefix="memevo-bench-") as home:
        previous = os.environ.get("MEMEVO_HOME")
        os.environ["MEMEVO_HOME"] = home
        try:
            with Store.open() as store:
                clock = SystemClock()
                for i in range(rebuild_n):
                    memories.create(
                        store, "project", f"第 {i} 号服务的负责人是 owner{i}，文档在 wiki/svc-{i}", clock
                    )
                from .recall.engine import RecallEngine

                started = time.perf_counter()
                engine = RecallEngine(store, encoder, clock)  # encodes every memory: a rebuild
                rebuild_s = time.perf_counter() - started
                assert len(engine.index) == rebuild_n
        finally:
            if previous is None:
                os.environ.pop("MEMEVO_HOME", None)
            else:
                os.environ["MEMEVO_HOME"] = previous
    return {"encode_ms": timing(encode), "rebuild_sentences_per_s": round(rebuild_n / rebuild_s, 1)}


def run(quick: bool = False) -> dict[str, Any]:
    runs = 20 if quick else 50
    figures: dict[str, Any] = {"machine": machine()}
    r100k = run_recall_child(100_000, runs)
    figures["recall_100k_ms"] = r100k["timing"]
    figures["rss_100k_mb"] = r100k["rss_mb"]
    figures["recall_1m_ms"] = figures["rss_1m_mb"] = None  # --quick skips the million
    if not quick:
        r1m = run_recall_child(1_000_000, runs)
        figures["recall_1m_ms"] = r1m["timing"]
        figures["rss_1m_mb"] = r1m["rss_mb"]
        figures["index_load_1m_s"] = r1m["index_load_s"]
    figures |= encoder_figures(runs, 100 if quick else 1000)
    return figures


def machine() -> dict[str, Any]:
    import platform

    return {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}


if __name__ == "__main__":  # children: python -m memevo.core.bench make N | recall RUNS
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        synthetic_store(int(sys.argv[2])).close()
    elif len(sys.argv) == 3 and sys.argv[1] == "recall":
        print(json.dumps(recall_child(int(sys.argv[2]))))
    else:
        raise SystemExit("usage: python -m memevo.core.bench make N | recall RUNS")
