"""Loading many memories at once, in bulk (a benchmark's generated pool): Arrow tables straight
into DuckDB, with the pins and repositories some of them carry. Not for user input: nothing
here checks texts; the tables must have the memories and vectors tables' columns in order."""

from __future__ import annotations

from typing import Any

from .database import Store


def insert(store: Store, rows: Any, vectors: Any, pinned: list[str], scoped: list[tuple[str, str]]) -> None:
    """rows, vectors: pyarrow tables shaped as the memories and vectors tables; pinned: ids to
    pin; scoped: (id, repository) pairs. One transaction."""
    import pyarrow as pa

    now = int(rows.column("created_ms")[0].as_py()) if rows.num_rows else 0
    pins = pa.table({"memory_id": pinned, "pinned_ms": pa.array([now] * len(pinned), pa.int64())})
    scopes = pa.table({"memory_id": [i for i, _ in scoped], "repo": [r for _, r in scoped]})
    with store.transaction() as con:
        for name, table, target in (
            ("bulk_rows", rows, "memories"),
            ("bulk_vectors", vectors, "vectors"),
            ("bulk_pins", pins, "pins"),
            ("bulk_scopes", scopes, "scopes"),
        ):
            con.register(name, table)
            try:
                con.execute(f"INSERT INTO {target} SELECT * FROM {name}")
            finally:
                con.unregister(name)
