"""Vectors stored as float32 bytes (core/store/vector_bytes.py): a store of schema 18 (FLOAT[] vectors)
migrates with every vector's bits kept, a migration stopped half way (the process killed) leaves
the store as it was and runs whole at the next open, and the pool, the trash and the cues read
back exactly what was written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
from deadlines import HANG_S
from memevo.core.clock import FakeClock
from memevo.core.memories import cues
from memevo.core.memories import live as memories
from memevo.core.memories import trash as memory_trash
from memevo.core.store import vectors
from memevo.core.store.database import Store
from memevo.core.store.migrations import MIGRATIONS, latest_version

FLOAT_LISTS = 18  # the last schema with FLOAT[] vector columns
DIM = 384
# Values a float32 round trip through text or float64 could change: signed zero, the smallest
# subnormal, infinities, a NaN, the largest and smallest normal numbers.
SPECIAL = np.array(
    [0.0, -0.0, 1e-45, np.inf, -np.inf, np.nan, 3.4028235e38, 1.17549435e-38], dtype=np.float32
)


def _old_store(path: Path, n: int, seed: int = 3) -> dict[str, np.ndarray]:
    """A store as schema 18 left it: n memories with FLOAT[] vectors (two models, the special
    values in one), one trashed with its vector, cue vectors for a few. Returns each table's
    vectors by "table/id"."""
    rng = np.random.default_rng(seed)
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, "
        "applied_ms BIGINT NOT NULL)"
    )
    for migration in MIGRATIONS[:FLOAT_LISTS]:
        for statement in migration.statements:
            con.execute(statement)
        con.execute("INSERT INTO schema_migrations VALUES (?, ?, 0)", [migration.version, migration.name])
    kept: dict[str, np.ndarray] = {}
    matrix = rng.standard_normal((n, DIM), dtype=np.float32)
    matrix[0, : len(SPECIAL)] = SPECIAL
    for i in range(n):
        memory_id = f"m{i:05d}"
        con.execute(
            "INSERT INTO memories VALUES (?, 'rule', ?, 50, 0, 0, false, NULL, 0)", [memory_id, f"text {i}"]
        )
        model = "other/model" if i % 7 == 3 else "e5"
        vector = matrix[i] if model == "e5" else matrix[i, :8]  # another model, another dimension
        con.execute(
            "INSERT INTO vectors VALUES (?, ?, ?, ?)",
            [memory_id, model, vectors.text_sha(f"text {i}"), vector.tolist()],
        )
        kept[f"vectors/{memory_id}"] = vector
        if i % 5 == 0:
            cue = rng.standard_normal(DIM, dtype=np.float32)
            con.execute("INSERT INTO cue_vectors VALUES (?, 'e5', 'cuesha', ?)", [memory_id, cue.tolist()])
            kept[f"cue_vectors/{memory_id}"] = cue
    trashed = rng.standard_normal(DIM, dtype=np.float32)
    con.execute("INSERT INTO trash VALUES ('t1', 'rule', 'gone', 50, 0, 0, false, NULL, 0, 0, 'deleted')")
    con.execute("INSERT INTO trash_vectors VALUES ('t1', 'e5', 'sha', ?)", [trashed.tolist()])
    kept["trash_vectors/t1"] = trashed
    con.close()
    return kept


def _stored(path: Path) -> dict[str, bytes]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {
            f"{table}/{memory_id}": bytes(vec)
            for table in ("vectors", "trash_vectors", "cue_vectors")
            for memory_id, vec in con.execute(f"SELECT memory_id, vec FROM {table}").fetchall()
        }
    finally:
        con.close()


def _version_and_types(path: Path) -> tuple[int, set[str]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        version = con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]  # type: ignore[index]
        types = {
            r[0]
            for r in con.execute(
                "SELECT data_type FROM duckdb_columns() WHERE column_name = 'vec'"
            ).fetchall()
        }
        return int(version), types
    finally:
        con.close()


def test_a_store_of_float_lists_migrates_with_every_vector_bit_exact(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "memevo.duckdb"
    kept = _old_store(path, 120)
    settings = "SELECT current_setting('memory_limit'), current_setting('enable_progress_bar')"
    defaults = duckdb.connect().execute(settings).fetchone()
    with Store.open(path) as store:
        assert store.schema_version() == latest_version()
        assert store.migrate() == []  # exactly once
        assert store.query(settings)[0] == defaults  # the conversion's own settings put back
    assert _version_and_types(path) == (latest_version(), {"BLOB"})
    stored = _stored(path)
    assert sorted(stored) == sorted(kept)
    assert [k for k, v in kept.items() if stored[k] != v.astype("<f4").tobytes()] == []
    assert stored["vectors/m00000"][: 4 * len(SPECIAL)] == SPECIAL.tobytes()  # -0.0, NaN, subnormal
    with Store.open(path) as store:  # and the pool reads them back as they were
        pool = vectors.load_pool_for(store, "e5", ["m00000", "m00001"])
        assert pool.ids == ["m00000", "m00001"] and pool.matrix.shape == (2, DIM)
        assert pool.matrix.tobytes() == kept["vectors/m00000"].tobytes() + kept["vectors/m00001"].tobytes()
        other = vectors.load_pool_for(store, "other/model", ["m00003"])
        assert other.matrix.tobytes() == kept["vectors/m00003"].tobytes()


# The migration in a child process that kills itself (SIGKILL) once the vectors table is
# converted and the trash's half done: nothing is committed, so the next open finds schema 18.
_KILLED = """
import os, signal, sys
from memevo.core.store import vector_bytes
from memevo.core.store.database import Store
vector_bytes.CONVERT_ROWS = 10
inserts = 0
original = vector_bytes.registered
def registered(con, name, columns):
    global inserts
    inserts += 1
    if inserts == int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)
    return original(con, name, columns)
vector_bytes.registered = registered
from pathlib import Path
Store.open(Path(sys.argv[1]))
"""


def test_a_migration_killed_half_way_leaves_the_store_as_it_was_and_runs_whole_next_time(
    data_dir: Path,
) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "memevo.duckdb"
    kept = _old_store(path, 45)  # 5 batches of 10 for vectors, then trash_vectors
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED, str(path), "6"], capture_output=True, text=True, timeout=HANG_S
    )
    assert killed.returncode == -9, killed.stderr
    assert _version_and_types(path) == (FLOAT_LISTS, {"FLOAT[]"})
    con = duckdb.connect(str(path), read_only=True)
    tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    count = con.execute("SELECT count(*) FROM vectors").fetchone()[0]  # type: ignore[index]
    con.close()
    assert "vectors__bytes" not in tables and count == 45
    with Store.open(path) as store:
        assert store.schema_version() == latest_version()
    stored = _stored(path)
    assert [k for k, v in kept.items() if stored.get(k) != v.astype("<f4").tobytes()] == []


def test_saved_vectors_read_back_bit_exact_in_batches_and_through_the_trash(
    store: Store, clock: FakeClock
) -> None:
    rng = np.random.default_rng(5)
    made = [memories.create(store, "rule", f"规则 {i}：第 {i} 条", clock) for i in range(7)]
    items = [(m.id, m.text) for m in made]
    matrix = rng.standard_normal((7, DIM), dtype=np.float32)
    matrix[0, : len(SPECIAL)] = SPECIAL
    vectors.save(store, "e5", items, matrix)
    vectors.save(store, "e5", items[:2], -matrix[:2])  # replaced, not added
    expected = np.concatenate([-matrix[:2], matrix[2:]])
    other = memories.create(store, "rule", "另一个模型编码的规则", clock)
    vectors.save(store, "other/model", [(other.id, other.text)], matrix[:1])  # not in e5's pool
    with store.transaction() as con:  # a vector left without its memory: not in the pool either
        con.execute("INSERT INTO vectors VALUES ('gone', 'e5', 'sha', ?)", [matrix[0].tobytes()])
    batches = list(vectors.iter_pool(store, "e5", batch_rows=3))
    assert len(batches) >= 3 and max(len(b.ids) for b in batches) <= 3
    assert sorted(i for b in batches for i in b.ids) == sorted(m.id for m in made)
    text_of = {m.id: m.text for m in made}
    assert all(
        b.texts == [text_of[i] for i in b.ids] and b.categories == ["rule"] * len(b.ids) for b in batches
    )
    assert all(b.deprecated.dtype == bool and not b.deprecated.any() for b in batches)
    by_id = {i: row for b in batches for i, row in zip(b.ids, b.matrix, strict=True)}
    assert [m.id for m in made if by_id[m.id].tobytes() != expected[made.index(m)].tobytes()] == []
    assert vectors.count_pool(store, "e5") == 7 and vectors.stale(store, "e5") == [(other.id, other.text)]
    memories.delete(store, [made[3].id], clock)
    assert made[3].id not in vectors.load_pool_for(store, "e5", [m.id for m in made]).ids
    memory_trash.restore(store, made[3].id)
    back = vectors.load_pool_for(store, "e5", [made[3].id])
    assert back.matrix.tobytes() == matrix[3].tobytes()  # kept through the trash, not re-encoded
    assert vectors.load_pool_for(store, "e5", ["nope"]).ids == []


def test_cue_vectors_and_the_backup_read_back_what_was_written(store: Store, clock: FakeClock) -> None:
    made = memories.create(store, "rule", "金额一律用分存整数", clock)
    cues.save(store, made.id, made.text, ["价格字段用 double 存"], clock.now_ms())
    vector = np.random.default_rng(9).standard_normal((1, DIM), dtype=np.float32)
    cues.save_vectors(store, "e5", [(made.id, ["价格字段用 double 存"])], vector)
    got = cues.current(store, "e5")[made.id].vector
    assert got is not None and got.tobytes() == vector[0].tobytes()
    got[0] = 1.0  # a vector handed out is the caller's own
    vectors.save(store, "e5", [(made.id, made.text)], vector)
    target = vectors.backup(store)
    assert target is not None
    line = json.loads(target.read_text(encoding="utf-8"))
    assert line["id"] == made.id and line["vec"] == [round(float(x), 6) for x in vector[0]]
