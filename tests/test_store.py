"""The DuckDB store: migrations, trash, purge, move, limits, and the single-writer lock."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from memevo.core import paths
from memevo.core.clock import FakeClock
from memevo.core.errors import InvalidInput, NotFound, StoreBusy
from memevo.core.memories import live as memories
from memevo.core.memories import purge
from memevo.core.memories import trash as memory_trash
from memevo.core.store.database import Store
from memevo.core.store.migrations import latest_version


def test_migrations_are_ordered_and_recorded(store: Store) -> None:
    rows = store.query("SELECT version, name FROM schema_migrations ORDER BY version")
    assert [r[0] for r in rows] == list(range(1, latest_version() + 1))
    assert store.migrate() == []  # nothing to do twice


def test_store_lives_in_memevo_home(store: Store, data_dir: Path) -> None:
    assert store.path == data_dir / "memevo.duckdb"
    assert store.path.exists()


@pytest.mark.parametrize(
    "text",
    ["", "短", "abcde", "  abcde  ", "x" * 401, "中" * 401],
)
def test_text_outside_limits_is_refused_and_nothing_written(
    store: Store, clock: FakeClock, text: str
) -> None:
    with pytest.raises(InvalidInput, match="6–400"):
        memories.create(store, "rule", text, clock)
    assert memories.counts(store)["rule"]["live"] == 0


@pytest.mark.parametrize("text", ["abcdef", "回答用中文", "x" * 400, "中" * 400])
def test_text_inside_limits_is_accepted(store: Store, clock: FakeClock, text: str) -> None:
    assert memories.create(store, "rule", text, clock).text == text


def test_limits_apply_to_merge_and_replace_too(store: Store, clock: FakeClock) -> None:
    a = memories.create(store, "rule", "first memory text", clock)
    b = memories.create(store, "rule", "second memory text", clock)
    for action in (
        lambda: memories.replace_text(store, a.id, "tiny"),
        lambda: memories.merge_manual(store, a.id, b.id, "y" * 401, clock),
        lambda: memories.merge_learned(store, a.id, "tiny", clock),
        lambda: memories.replace_learned(store, a.id, "tiny", clock),
    ):
        with pytest.raises(InvalidInput):
            action()
    assert memories.get(store, a.id).text == "first memory text"
    assert memories.counts(store)["rule"]["live"] == 2


def test_delete_restore_roundtrip_keeps_everything(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "project", "仓库地址是 git.example.com/pay", clock)
    clock.advance(days=1)
    memories.award_recall(store, [m.id], clock)
    before = memories.get(store, m.id)
    deleted, missing = memories.delete(store, [m.id, "nope"], clock)
    assert (deleted, missing) == ([m.id], ["nope"])
    with pytest.raises(NotFound):
        memories.get(store, m.id)
    assert memories.trash_list(store)[0].memory == before
    assert memory_trash.restore(store, m.id) == before
    assert memories.trash_list(store) == []


def test_delete_of_only_missing_ids_is_an_error(store: Store, clock: FakeClock) -> None:
    with pytest.raises(NotFound):
        memories.delete(store, ["a", "b"], clock)


def test_move_changes_the_group(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "rule", "灰度开关是 pay_new_flow", clock)
    memories.move(store, m.id, "project")
    assert memories.get(store, m.id).category == "project"
    with pytest.raises(InvalidInput):
        memories.move(store, m.id, "other")


def test_ranked_order_is_confidence_then_most_recent(store: Store, clock: FakeClock) -> None:
    low = memories.create(store, "rule", "low confidence rule", clock)
    clock.advance(hours=1)
    old_tie = memories.create(store, "rule", "older tie rule", clock)
    clock.advance(hours=1)
    new_tie = memories.create(store, "rule", "newer tie rule", clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 40, deprecated = TRUE WHERE id = ?", [low.id])
    assert [m.id for m in memories.ranked(store, "rule")] == [new_tie.id, old_tie.id, low.id]
    assert [m.id for m in memories.ranked(store, "rule", include_deprecated=False)] == [
        new_tie.id,
        old_tie.id,
    ]
    assert [m.id for m in memories.ranked(store, "rule", offset=1, limit=1)] == [old_tie.id]


def test_purge_removes_the_text_from_every_byte_we_keep(
    store: Store, clock: FakeClock, data_dir: Path
) -> None:
    secret = "数据库口令是 hunter2-PURGE-ME-7781"
    keep = memories.create(store, "rule", "this one stays in the store", clock)
    gone = memories.create(store, "project", secret, clock)
    store.checkpoint()
    backups = paths.backups_dir()
    backups.mkdir(parents=True)
    (backups / "vectors-1.jsonl").write_text(
        f'{{"id": "{gone.id}", "text": "{secret}"}}\n{{"id": "{keep.id}", "text": "stays"}}\n',
        encoding="utf-8",
    )
    (data_dir / "project.jsonl").write_text(f'{{"id": "x", "text": "{secret}"}}\n', encoding="utf-8")
    memories.delete(store, [gone.id], clock)  # in the trash first, as a user would have it
    store.checkpoint()
    assert secret.encode() in _all_bytes(data_dir)  # the text lingers after an ordinary delete
    report = purge.purge(store, gone.id)
    assert report.removed_rows == 1
    assert report.scrubbed_files == [str(backups / "vectors-1.jsonl")]
    assert report.legacy_files_with_text == [str(data_dir / "project.jsonl")]
    (data_dir / "project.jsonl").unlink()  # the Node tool's file is the user's to clean; we only told them
    assert secret.encode() not in _all_bytes(data_dir)
    assert memories.get(store, keep.id).text == "this one stays in the store"
    assert "stays" in (backups / "vectors-1.jsonl").read_text(encoding="utf-8")
    with pytest.raises(NotFound):
        purge.purge(store, gone.id)


def _all_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())


def test_store_survives_reopen_after_compaction(data_dir: Path, clock: FakeClock) -> None:
    with Store.open() as s:
        m = memories.create(s, "rule", "survives compaction", clock)
        other = memories.create(s, "rule", "to be purged away", clock)
        purge.purge(s, other.id)
        memories.reinforce(s, m.id, clock)  # the connection still works after the file swap
    with Store.open(read_only=True) as s:
        assert [x.id for x in memories.ranked(s, "rule")] == [m.id]


HOLD_LOCK = textwrap.dedent(
    """
    import sys, time
    from memevo.core.store.database import Store
    s = Store.open()
    print("locked", flush=True)
    time.sleep(float(sys.argv[1]))
    s.close()
    """
)


@contextmanager
def _hold_lock(seconds: float) -> Iterator[subprocess.Popen[str]]:
    """Another process that holds the store read-write for `seconds`."""
    with subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(seconds)], stdout=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "locked"
        try:
            yield proc
        finally:
            if proc.poll() is None and seconds > 5:
                proc.kill()
            proc.wait()


def test_busy_store_refuses_with_the_holders_pid(data_dir: Path) -> None:
    with _hold_lock(30) as holder:
        with pytest.raises(StoreBusy) as caught:
            Store.open(lock_wait_s=0.3)
        assert f"process {holder.pid}" in str(caught.value)
        assert "nothing was written" in str(caught.value)


def test_writer_waits_for_a_short_holder_then_lands(data_dir: Path, clock: FakeClock) -> None:
    with _hold_lock(1.0):
        started = time.monotonic()
        with Store.open(lock_wait_s=10) as s:
            waited = time.monotonic() - started
            memories.create(s, "rule", "landed after waiting", clock)
    assert waited > 0.2  # it really had to wait for the other process
    with Store.open(read_only=True) as s:
        assert memories.counts(s)["rule"]["live"] == 1


def test_write_during_maintenance_in_one_process_waits_its_turn(store: Store, clock: FakeClock) -> None:
    import threading

    from memevo.core import config as config_mod
    from memevo.core.memories import maintenance

    for i in range(200):
        memories.create(store, "rule", f"idle memory number {i}", clock)
    clock.advance(days=30)
    results: list[object] = []
    runner = threading.Thread(target=lambda: results.append(maintenance.run(store, clock, config_mod.load())))
    runner.start()
    added = memories.create(store, "rule", "written while maintenance runs", clock)
    runner.join()
    assert memories.get(store, added.id).confidence == 50
    assert memories.counts(store)["rule"]["live"] == 201
    report = results[0]
    assert isinstance(report, maintenance.Report) and report.decayed == 200


def test_release_cache_lets_go_of_the_blocks_reads_kept_and_the_store_still_serves(
    store: Store, clock: FakeClock
) -> None:
    """DuckDB keeps every block a scan read (up to 80% of the machine); the service lets go of
    them after its load and its requests (Store.release_cache), without changing the limit."""
    with store.transaction() as con:
        con.execute(
            "CREATE TABLE bulk AS SELECT range AS i, md5(range::VARCHAR) || md5((-range)::VARCHAR) AS t FROM range(200000)"
        )
    store.checkpoint()
    store.close()
    reopened = Store.open()  # a fresh buffer pool: what is cached below, the scan read
    try:

        def cached_mb() -> float:
            row = reopened.query("SELECT sum(memory_usage_bytes) / 1048576 FROM duckdb_memory()")[0]
            return float(row[0] or 0)

        limit = reopened.query("SELECT current_setting('memory_limit')")[0][0]
        reopened.verify()
        before = cached_mb()
        reopened.release_cache()
        after = cached_mb()
        assert before > 4 and after < before / 4, (before, after)
        assert reopened.query("SELECT current_setting('memory_limit')")[0][0] == limit
        assert reopened.query("SELECT count(*), max(i) FROM bulk")[0] == (200000, 199999)
        memories.create(reopened, "rule", "释放缓存之后照常写入和读取", clock)
    finally:
        reopened.close()
