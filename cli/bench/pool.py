"""The bench's synthetic pool: memories (half rules) with random unit vectors and memory-like
texts, written in bulk to a store in a temporary MEMEVO_HOME, never the user's."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ...core import envvars

DIM = 384
HOME_ENV = envvars.HOME.name  # every pool lives in a temporary data dir, never the user's
PINNED_EVERY = 20  # 5% of the pool pinned
SCOPED_EVERY = 10  # every 10th memory, a project fact (even index), belongs to a repository
REPOS = 8


def synthetic_store(n: int, seed: int = 7, model: str = "bench") -> Any:
    """A store with n memories (half rules) and random unit vectors, written in bulk.

    With a real model id the vectors count as current (text hashes match), so a service
    loads them without re-encoding: its timings then cover a pool of n memories."""
    import pyarrow as pa

    from ...core.store import bulk, vector_bytes
    from ...core.store.database import Store
    from ...core.store.vectors import text_sha

    rng = np.random.default_rng(seed)
    store = Store.open()
    chunk = 100_000
    for start in range(0, n, chunk):
        size = min(chunk, n - start)
        ids = [f"b{start + i:07d}" for i in range(size)]
        texts = synthetic_texts(rng, start, size)
        matrix = rng.standard_normal((size, DIM), dtype=np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        now = int(time.time() * 1000)
        rows = pa.table(
            {
                "id": ids,
                "category": ["rule" if i % 2 else "project" for i in range(size)],
                "text": texts,
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
                "model": [model] * size,
                "text_sha": [text_sha(t) for t in texts],
                # as core/store/vector_bytes.py stores them
                "vec": pa.array(vector_bytes.blobs(matrix), pa.binary()),
            }
        )
        # As users' pools are: some memories pinned, some project facts of one repository
        # (recall then reads them per prompt for the scope check and the ranking).
        pinned = ids[::PINNED_EVERY]
        scoped = [(ids[i], f"/work/repo-{i % REPOS}") for i in range(0, size, SCOPED_EVERY)]
        bulk.insert(store, rows, vecs, pinned, scoped)
    return store


_HAN = "支付订单用户登录缓存日志测试发布接口配置数据库服务分支提交依赖异常监控告警索引消息队列权限网关灰度开关压测备份迁移前端后端组件样式"
_WORDS = [
    "service",
    "cache",
    "order",
    "payment",
    "deploy",
    "branch",
    "commit",
    "test",
    "config",
    "index",
    "queue",
    "token",
    "gateway",
    "flag",
]


def synthetic_texts(rng: np.random.Generator, start: int, size: int) -> list[str]:
    """Memory-like texts for the lexical index: Chinese words from a small alphabet, English
    words, and an identifier of its own per memory (so postings are realistic, not one list)."""
    pairs = rng.integers(0, len(_HAN), size=(size, 10))
    words = rng.integers(0, len(_WORDS), size=(size, 3))
    out = []
    for i in range(size):
        han = "".join(_HAN[j] for j in pairs[i])
        out.append(
            f"{han[:4]}的{han[4:]} {_WORDS[words[i, 0]]} {_WORDS[words[i, 1]]} svc_{(start + i) % 50_000}_{words[i, 2]}"
        )
    return out
