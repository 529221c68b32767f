"""Memory vectors in DuckDB, tagged with the model and a hash of the text they encode.

A vector that is missing, from another model, or of an older text is stale and gets
re-encoded (lazily by the recall engine, or all at once by `rebuild-index`). Unchanged
text is never re-encoded.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import atomic, paths
from .store import Store


def text_sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Pool:
    """Every memory that has a current vector: ids, categories, deprecated flags, raw vectors."""

    ids: list[str]
    categories: list[str]
    texts: list[str]
    deprecated: np.ndarray
    matrix: np.ndarray


def stale(store: Store, model: str) -> list[tuple[str, str]]:
    """(id, text) of memories whose vector must be (re)encoded for this model."""
    rows = store.query(
        "SELECT m.id, m.text, v.model, v.text_sha FROM memories m LEFT JOIN vectors v ON v.memory_id = m.id"
    )
    return [(i, t) for i, t, vm, vs in rows if vm != model or vs != text_sha(t)]


def save(store: Store, model: str, items: list[tuple[str, str]], matrix: np.ndarray) -> None:
    """Store vectors for (id, text) pairs in one transaction, replacing older ones."""
    import pyarrow as pa

    if not items:
        return
    dim = matrix.shape[1]
    table = pa.table(
        {
            "memory_id": pa.array([i for i, _ in items]),
            "model": pa.array([model] * len(items)),
            "text_sha": pa.array([text_sha(t) for _, t in items]),
            "vec": pa.ListArray.from_arrays(
                pa.array(np.arange(0, (len(items) + 1) * dim, dim, dtype=np.int32)),
                pa.array(np.ascontiguousarray(matrix, dtype=np.float32).ravel()),
            ),
        }
    )
    with store.transaction() as con:
        con.register("memevo_new_vectors", table)
        try:
            con.execute("INSERT OR REPLACE INTO vectors SELECT * FROM memevo_new_vectors")
        finally:
            con.unregister("memevo_new_vectors")


_POOL_SQL = (
    "SELECT m.id, m.category, m.text, m.deprecated, v.vec FROM memories m "
    "JOIN vectors v ON v.memory_id = m.id WHERE v.model = ?"
)


def count_pool(store: Store, model: str) -> int:
    rows = store.query(
        "SELECT count(*) FROM vectors v JOIN memories m ON m.id = v.memory_id WHERE v.model = ?", [model]
    )
    return int(rows[0][0])


def iter_pool(store: Store, model: str, batch_rows: int = 50_000) -> Iterator[Pool]:
    """The pool in batches, so a million memories never sit in memory twice while loading."""
    with store.reading() as con:
        reader = con.sql(_POOL_SQL, params=[model]).to_arrow_reader(batch_rows)
        for batch in reader:
            yield _pool_from_arrow(batch)


def load_pool_for(store: Store, model: str, ids: list[str]) -> Pool:
    with store.reading() as con:
        table = con.sql(
            "SELECT m.id, m.category, m.text, m.deprecated, v.vec FROM memories m "
            "JOIN vectors v ON v.memory_id = m.id WHERE v.model = ? AND list_contains(?, m.id)",
            params=[model, ids],
        ).to_arrow_table()
    return _pool_from_arrow(table)


def _pool_from_arrow(table: Any) -> Pool:
    n = table.num_rows
    if n == 0:
        return Pool([], [], [], np.zeros(0, dtype=bool), np.zeros((0, 0), dtype=np.float32))
    vec = table.column("vec")
    flat = (
        (vec.combine_chunks() if hasattr(vec, "combine_chunks") else vec)
        .flatten()
        .to_numpy(zero_copy_only=False)
    )
    matrix = np.asarray(flat, dtype=np.float32).reshape(n, -1)
    deprecated = np.asarray(table.column("deprecated").to_numpy(zero_copy_only=False), dtype=bool)
    return Pool(
        table.column("id").to_pylist(),
        table.column("category").to_pylist(),
        table.column("text").to_pylist(),
        deprecated,
        matrix,
    )


def backup(store: Store) -> Path | None:
    """Write every stored vector to backups/ before a rebuild replaces them (jsonl, one a line)."""
    rows = store.query("SELECT memory_id, model, text_sha, vec FROM vectors ORDER BY memory_id")
    if not rows:
        return None
    import time

    target = paths.backups_dir() / f"vectors-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    lines = [
        json.dumps({"id": i, "model": m, "text_sha": s, "vec": [round(float(x), 6) for x in v]})
        for i, m, s, v in rows
    ]
    atomic.write_text(target, "\n".join(lines) + "\n", mode=0o600)
    return target


def clear(store: Store) -> None:
    with store.transaction() as con:
        con.execute("DELETE FROM vectors")
