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

from .. import atomic, paths
from .database import Store
from .vector_bytes import matrix_of, upsert, vector_of


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
    """(id, text) of memories whose vector must be (re)encoded for this model. The texts' hashes
    are compared in DuckDB (its sha256 is text_sha's, hex): every start and every write asks,
    and hashing each text in Python cost a start much longer, holding the GIL."""
    rows = store.query(
        "SELECT m.id, m.text FROM memories m LEFT JOIN vectors v ON v.memory_id = m.id "
        "WHERE v.model IS DISTINCT FROM ? OR v.text_sha IS DISTINCT FROM left(sha256(m.text), 16)",
        [model],
    )
    return [(i, t) for i, t in rows]


def save(store: Store, model: str, items: list[tuple[str, str]], matrix: np.ndarray) -> None:
    """Store vectors for (id, text) pairs in one transaction, replacing older ones."""
    if not items:
        return
    with store.transaction() as con:
        upsert(
            con, "vectors", "text_sha", [i for i, _ in items], model, [text_sha(t) for _, t in items], matrix
        )


def count_pool(store: Store, model: str) -> int:
    rows = store.query(
        "SELECT count(*) FROM vectors v JOIN memories m ON m.id = v.memory_id WHERE v.model = ?", [model]
    )
    return int(rows[0][0])


def iter_pool(store: Store, model: str, batch_rows: int = 50_000) -> Iterator[Pool]:
    """The pool in batches, so a million memories never sit in memory twice while loading.

    The memories' columns come whole (numpy, fast), the vectors in rowid ranges of their own
    table, matched by id here: a join in DuckDB built its hash table over the vectors side,
    every vector held a second time."""
    with store.reading() as con:
        live = con.execute("SELECT id, category, text, deprecated FROM memories").fetchnumpy()
        ids: list[str] = live["id"].tolist()
        categories: list[str] = live["category"].tolist()
        texts: list[str] = live["text"].tolist()
        deprecated = np.asarray(live["deprecated"], dtype=bool)
        del live
        position = {memory_id: n for n, memory_id in enumerate(ids)}
        top = int(con.execute("SELECT coalesce(max(rowid) + 1, 0) FROM vectors").fetchone()[0])
        for start in range(0, top, batch_rows):
            rows = con.execute(
                "SELECT memory_id, vec FROM vectors WHERE model = ? AND rowid >= ? AND rowid < ?",
                [model, start, start + batch_rows],
            ).fetchall()
            found = [(position[i], vec) for i, vec in rows if i in position]  # as the join would
            if not found:
                continue
            at = [n for n, _ in found]
            yield Pool(
                [ids[n] for n in at],
                [categories[n] for n in at],
                [texts[n] for n in at],
                deprecated[at],
                matrix_of([vec for _, vec in found]),
            )


def load_pool_for(store: Store, model: str, ids: list[str]) -> Pool:
    rows = store.query(
        "SELECT m.id, m.category, m.text, m.deprecated, v.vec FROM memories m "
        "JOIN vectors v ON v.memory_id = m.id WHERE v.model = ? AND list_contains(?, m.id)",
        [model, ids],
    )
    return _pool_from_rows(rows)


def _pool_from_rows(rows: list[tuple[Any, ...]]) -> Pool:
    """Rows of (id, category, text, deprecated, vec) as a Pool; the vectors joined in one copy."""
    if not rows:
        return Pool([], [], [], np.zeros(0, dtype=bool), np.zeros((0, 0), dtype=np.float32))
    return Pool(
        [r[0] for r in rows],
        [r[1] for r in rows],
        [r[2] for r in rows],
        np.fromiter((r[3] for r in rows), dtype=bool, count=len(rows)),
        matrix_of([r[4] for r in rows]),
    )


def backup(store: Store) -> Path | None:
    """Write every stored vector to backups/ before a rebuild replaces them (jsonl, one a line)."""
    rows = store.query("SELECT memory_id, model, text_sha, vec FROM vectors ORDER BY memory_id")
    if not rows:
        return None
    import time

    target = paths.backups_dir() / f"vectors-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    lines = [
        json.dumps({"id": i, "model": m, "text_sha": s, "vec": [round(float(x), 6) for x in vector_of(v)]})
        for i, m, s, v in rows
    ]
    atomic.write_text(target, "\n".join(lines) + "\n", mode=0o600)
    return target


def clear(store: Store) -> None:
    with store.transaction() as con:
        con.execute("DELETE FROM vectors")
