"""A resident store is closed and opened again once it has run enough queries
(Store.reopen_if_worn): DuckDB keeps native memory for every query it runs and gives it back
only when the database closes (docs/performance-journal.md, "The soak: what DuckDB keeps")."""

from __future__ import annotations

import ctypes
import gc
import sys
from pathlib import Path
from typing import Any

import pytest
from memevo.cli.bench.pool import synthetic_store
from memevo.core.clock import FakeClock
from memevo.core.errors import StoreDamaged
from memevo.core.memories import live as memories
from memevo.core.process import native_heap
from memevo.core.store.database import Store


def test_a_worn_store_is_reopened_with_everything_in_it(data_dir: Path) -> None:
    store = Store.open()
    try:
        clock = FakeClock()
        kept = memories.create(store, "rule", "改完代码不要自动 commit", clock)
        memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", clock)
        assert not store.reopen_if_worn(after_uses=10_000)  # not worn yet
        for _ in range(20):
            memories.ranked(store, "rule")
        assert store.reopen_if_worn(after_uses=20)
        assert not store.reopen_if_worn(after_uses=20)  # counted afresh from the reopen
        assert [m.id for m in memories.ranked(store, "rule")] == [kept.id]
        memories.create(store, "rule", "回答用中文", clock)  # writes go on in the new connection
    finally:
        store.close()
    store = Store.open(read_only=True)
    try:
        assert len(memories.ranked(store, "rule")) == 2
        for _ in range(5):
            memories.ranked(store, "rule")
        assert not store.reopen_if_worn(after_uses=1)  # a reader (a command) is never reopened
    finally:
        store.close()


class _CloseFails:
    """The store's connection, whose close fails as a checkpoint on a full disk does."""

    def __init__(self, con: Any) -> None:
        self.con = con

    def close(self) -> None:
        import duckdb

        raise duckdb.IOException("could not write the checkpoint: no space left on device")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.con, name)


def test_a_reopen_whose_close_fails_still_leaves_a_working_store(data_dir: Path) -> None:
    store = Store.open()
    try:
        kept = memories.create(store, "rule", "改完代码不要自动 commit", FakeClock())
        store.con = _CloseFails(store.con)
        assert store.reopen_if_worn(after_uses=0)
        assert [m.id for m in memories.ranked(store, "rule")] == [kept.id]
        memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", FakeClock())
    finally:
        store.close()


def test_a_damaged_store_is_not_reopened(data_dir: Path) -> None:
    store = Store.unusable(data_dir / "memevo.duckdb", StoreDamaged("the memory store is damaged: test"))
    assert not store.reopen_if_worn(after_uses=0)


def _glibc_in_use() -> int:
    class MallInfo2(ctypes.Structure):
        _fields_ = [
            (name, ctypes.c_size_t)
            for name in (
                "arena",
                "ordblks",
                "smblks",
                "hblks",
                "hblkhd",
                "usmblks",
                "fsmblks",
                "uordblks",
                "fordblks",
                "keepcost",
            )
        ]

    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = MallInfo2
    gc.collect()
    native_heap.trim()  # as the service's trim gives back what is free
    return int(libc.mallinfo2().uordblks)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallinfo2")
def test_reopening_gives_back_what_duckdb_kept_for_its_queries(data_dir: Path) -> None:
    store = synthetic_store(4000)  # the bench's pool, written in bulk
    try:
        store.reopen_if_worn(after_uses=0)  # from a fresh database
        for _ in range(50):
            memories.ranked(store, "rule")
        start = _glibc_in_use()
        for _ in range(1000):  # the panel's and the session start's query: a top-N over text
            memories.ranked(store, "rule")
        kept = _glibc_in_use() - start
        assert store.reopen_if_worn()
        left = _glibc_in_use() - start
    finally:
        store.close()
    print(f"DuckDB kept {kept / 1e6:.2f} MB over 1000 queries; {left / 1e6:.2f} MB after the reopen")
    # if DuckDB stops keeping memory per query, this says so: reopen_if_worn can then go
    assert kept > 1_000_000, "DuckDB no longer keeps memory per query"
    assert left < kept / 4
