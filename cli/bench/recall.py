"""Recall over a synthetic pool, the vector index and the lexical one: measured in child
processes (`python -m memevo.cli.bench make N | recall RUNS`) so each reports its own RSS."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

from .measure import repeat, rss_mb, timing
from .pool import DIM, HOME_ENV


def recall_child(runs: int) -> dict[str, Any]:
    """Load the pool a previous child wrote, as the service does at start, then recall: the
    vector index and, beside it, the lexical (BM25) index, each timed and measured apart."""
    from ...core.recall.gate import gate_category
    from ...core.recall.index import MemoryIndex
    from ...core.recall.lexical import LexicalIndex
    from ...core.service.host import limit_blas_threads
    from ...core.store import vectors
    from ...core.store.database import Store

    limit_blas_threads()  # measured as the service runs it
    store = Store.open(read_only=True)
    rss_before = rss_mb()
    started = time.perf_counter()
    index = MemoryIndex(DIM, np.zeros(DIM, dtype=np.float32))
    index.reserve(vectors.count_pool(store, "bench"))
    batches = []
    for batch in vectors.iter_pool(store, "bench"):  # as RecallEngine.sync_all loads it
        index.upsert_pool(batch)
        batches.append((batch.ids, batch.categories, batch.texts, ~batch.deprecated.astype(bool)))
    load_s = time.perf_counter() - started
    rss_vectors = rss_mb()
    started = time.perf_counter()
    lexical = LexicalIndex()
    for ids, categories, texts, live in batches:
        lexical.upsert(ids, categories, texts, live)
    lexical_s = time.perf_counter() - started
    del batches
    rss_lexical = rss_mb()
    rng = np.random.default_rng(1)
    queries = rng.standard_normal((runs + 2, DIM), dtype=np.float32)
    position = iter(range(len(queries)))

    def one_recall() -> None:
        ranked = index.ranked(queries[next(position)], 3)
        for category in ("rule", "project"):
            gate_category(ranked[category], 0.3, 3, -1)

    samples = repeat(one_recall, runs)
    words = iter(range(runs + 2))

    def one_lexical() -> None:  # a prompt that shares common words and one identifier
        scores = lexical.scores(f"支付订单的灰度开关叫什么，svc_{next(words) * 7}_1 的 cache 在哪")
        for category in ("rule", "project"):
            scores.top(category, 20)

    lexical_samples = repeat(one_lexical, runs)
    store.close()
    return {
        "timing": timing(samples),
        "rss_mb": round(rss_mb(), 1),
        "index_load_s": round(load_s, 2),
        "rss_before_mb": round(rss_before, 1),
        "lexical_build_s": round(lexical_s, 2),
        "lexical_rss_mb": round(rss_lexical - rss_vectors, 1),  # peak RSS grown by building it
        "lexical_postings": lexical.posting_count(),
        "lexical_array_mb": round(lexical.nbytes() / 1e6, 1),
        "lexical_terms": len(lexical._postings),
        "lexical_timing": timing(lexical_samples),
    }


def run_recall_child(n: int, runs: int) -> dict[str, Any]:
    """One child writes the synthetic pool, a fresh one loads it and measures (clean RSS)."""
    with tempfile.TemporaryDirectory(prefix="memevo-bench-") as home:
        env = os.environ | {HOME_ENV: home}
        output = ""
        for args in (["make", str(n)], ["recall", str(runs)]):
            result = subprocess.run(
                [sys.executable, "-P", "-m", "memevo.cli.bench", *args],
                capture_output=True,
                text=True,
                env=env,
                timeout=3600,
            )
            if result.returncode != 0:
                raise RuntimeError(f"recall bench over {n} failed: {result.stderr.strip().splitlines()[-1:]}")
            output = result.stdout
    return dict(json.loads(output))
