"""A vector as the store keeps it: one BLOB of float32 little-endian bytes per row.

DuckDB hands a BLOB column over as one `bytes` per row, which numpy joins into a matrix in one
copy; a `FLOAT[]` column came as one numpy array per row (or through pyarrow, whose libraries
the resident service then mapped). Rows go in through a registered dict of numpy arrays
(DuckDB scans it without pyarrow or pandas): `executemany` was far slower, a row at a time.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

STORED = np.dtype("<f4")


def blobs(matrix: np.ndarray) -> np.ndarray:
    """One bytes object per row of matrix (an object array, as DuckDB scans a BLOB column)."""
    rows = np.ascontiguousarray(matrix, dtype=STORED)
    out = np.empty(len(rows), dtype=object)
    out[:] = [row.tobytes() for row in rows]
    return out


def matrix_of(values: Sequence[bytes]) -> np.ndarray:
    """The (rows, dim) float32 matrix of stored vectors, all of one dimension."""
    if not values:
        return np.zeros((0, 0), dtype=np.float32)
    flat = np.frombuffer(b"".join(values), dtype=STORED)
    return flat.astype(np.float32, copy=False).reshape(len(values), -1)


def vector_of(value: bytes) -> np.ndarray:
    """One stored vector, writable (frombuffer's view of bytes is read-only)."""
    return np.frombuffer(value, dtype=STORED).astype(np.float32)


def objects(values: Sequence[Any]) -> np.ndarray:
    """An object array of values (str, bytes): a VARCHAR or BLOB column DuckDB can scan."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


@contextmanager
def registered(con: Any, name: str, columns: dict[str, np.ndarray]) -> Iterator[None]:
    """columns as a relation named name for the statements run inside the block."""
    con.register(name, columns)
    try:
        yield
    finally:
        con.unregister(name)


def upsert(
    con: Any, table: str, sha_column: str, ids: list[str], model: str, shas: list[str], matrix: np.ndarray
) -> None:
    """Rows (id, model, the hash of what was encoded, the vector) into a vector table
    (`vectors`, `cue_vectors`), replacing each id's older row: in the caller's transaction."""
    columns = {
        "memory_id": objects(ids),
        "model": objects([model] * len(ids)),
        sha_column: objects(shas),
        "vec": blobs(matrix),
    }
    with registered(con, f"memevo_new_{table}", columns):
        con.execute(
            f"INSERT OR REPLACE INTO {table} SELECT memory_id, model, {sha_column}, vec FROM memevo_new_{table}"
        )


# -- the migration from FLOAT[] (core/store/migrations.py, step 19) -------------------------------------
CONVERT_ROWS = 50_000
CONVERT_MEMORY = "512MB"
VECTOR_TABLES = (("vectors", "text_sha"), ("trash_vectors", "text_sha"), ("cue_vectors", "cues_sha"))


def convert_float_lists(con: Any) -> None:
    """Every FLOAT[] vector column to BLOB, each vector's bits kept. Runs inside the migration's
    transaction: a process stopped half way leaves the tables as they were, unmigrated."""
    # DuckDB draws a progress bar on stdout for a query over 2 s: not into a CLI's --json output
    shown = con.execute("SELECT current_setting('enable_progress_bar')").fetchone()[0]
    con.execute("SET enable_progress_bar = false")
    # DuckDB caches the old table's blocks and the new one's until memory_limit (80% of the
    # machine's memory) presses: a million vectors took the process to several GB. A lower limit for
    # the conversion makes it write out and evict as it goes; RESET puts DuckDB's default back.
    con.execute(f"SET memory_limit = '{CONVERT_MEMORY}'")
    try:
        for table, sha in VECTOR_TABLES:
            _convert(con, table, sha)
    finally:
        con.execute("RESET memory_limit")
        con.execute(f"SET enable_progress_bar = {'true' if shown else 'false'}")


def _convert(con: Any, table: str, sha: str) -> None:
    new = f"{table}__bytes"
    con.execute(
        f"CREATE TABLE {new} (memory_id VARCHAR PRIMARY KEY, model VARCHAR NOT NULL, "
        f"{sha} VARCHAR NOT NULL, vec BLOB NOT NULL)"
    )
    top = int(con.execute(f"SELECT coalesce(max(rowid) + 1, 0) FROM {table}").fetchone()[0])
    for start in range(0, top, CONVERT_ROWS):  # in rowid ranges: a million vectors never held at once
        got = con.execute(
            f"SELECT memory_id, model, {sha}, vec FROM {table} WHERE rowid >= ? AND rowid < ?",
            [start, start + CONVERT_ROWS],
        ).fetchnumpy()
        if not len(got["memory_id"]):
            continue
        columns = {
            "memory_id": objects(list(got["memory_id"])),
            "model": objects(list(got["model"])),
            sha: objects(list(got[sha])),
            "vec": objects([np.asarray(v, dtype=STORED).tobytes() for v in got["vec"]]),
        }
        with registered(con, "memevo_converted_vectors", columns):
            con.execute(
                f"INSERT INTO {new} SELECT memory_id, model, {sha}, vec FROM memevo_converted_vectors"
            )
    before = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    after = con.execute(f"SELECT count(*) FROM {new}").fetchone()[0]
    if before != after:  # cannot happen short of a DuckDB fault; the transaction rolls back
        raise RuntimeError(f"{table}: {after} of {before} vectors converted")
    con.execute(f"DROP TABLE {table}")
    con.execute(f"ALTER TABLE {new} RENAME TO {table}")
