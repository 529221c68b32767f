"""memories.html is written a row at a time (core/memories/html_page.py, core/atomic.write_chunks): the
page is the whole render, the render holds no more than a row of it, and a render that fails
midway leaves the page that was there."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from memevo.cli.bench.pool import synthetic_store
from memevo.core import atomic
from memevo.core.clock import FakeClock
from memevo.core.memories import html_page as snapshot
from memevo.core.memories import live as memories
from memevo.core.memories import text as memory_text
from memevo.core.store.database import Store

ROWS = 6000


def _fill(store: Store, rows: int) -> None:
    clock = FakeClock()
    for i in range(rows):
        text = f"第 {i} 条：<部署> 前先检查 & 确认“灰度开关” flag_{i}，" + "支付页新流程的说明" * 20
        memories.create(store, "rule" if i % 3 == 0 else "project", text, clock)


def test_the_page_written_is_the_whole_render_and_user_only(store: Store) -> None:
    _fill(store, 50)
    page = snapshot.write(store)
    assert page.read_text(encoding="utf-8") == snapshot.render(store)
    assert page.stat().st_mode & 0o777 == 0o600
    text = page.read_text(encoding="utf-8")
    assert text.count("<tr class=") == 50 and "&lt;部署&gt;" in text and "<部署>" not in text


def test_a_render_holds_a_row_not_the_page(data_dir: Path) -> None:
    """The traced peak of writing the page, beyond what the rows read from the store take, is
    a small part of the page: made whole, the rows' strings, their join and its encoding were
    each the page's size or more, all alive at once."""
    store = synthetic_store(ROWS)  # the bench's pool, written in bulk
    try:
        tracemalloc.start()
        try:
            rows = [memories.ranked(store, category, limit=None) for category in memory_text.CATEGORIES]
            _, rows_peak = tracemalloc.get_traced_memory()
            del rows
            tracemalloc.reset_peak()
            page = snapshot.write(store)
            _, write_peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    finally:
        store.close()
    size = page.stat().st_size
    assert size > 1_000_000  # a page worth holding
    assert write_peak - rows_peak < size // 4, (write_peak, rows_peak, size)


def test_pieces_that_fail_midway_leave_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "pages" / "page.html"
    atomic.write_bytes(target, b"the old page", mode=0o600)

    def pieces() -> Iterator[bytes]:
        yield b"<html>" * 100_000  # past the buffer: already on disk in the temporary file
        raise OSError("the store went away")

    with pytest.raises(OSError, match="went away"):
        atomic.write_chunks(target, pieces(), mode=0o600)
    assert target.read_bytes() == b"the old page"
    assert sorted(p.name for p in target.parent.iterdir()) == ["page.html"]
