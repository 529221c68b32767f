"""The service gives back what requests left in glibc's heaps and DuckDB's cache: at most every
TRIM_EVERY_S during requests, and once when they pause (IDLE_TRIM_S after the last one)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from memevo.core.service import server as server_mod


class _Store:
    def __init__(self) -> None:
        self.checkpoints = 0
        self.reopens_asked = 0
        self.worn = False  # what reopen_if_worn answers: it reopened (and so checkpointed)

    def checkpoint(self) -> None:
        self.checkpoints += 1

    def reopen_if_worn(self) -> bool:
        self.reopens_asked += 1
        return self.worn

    def release_cache(self) -> None:
        pass


class _Encoder:
    def __init__(self) -> None:
        self.releases = 0

    def release_pages(self) -> None:
        self.releases += 1


class _Engine:
    def __init__(self) -> None:
        self.encoder = _Encoder()


class _Host:
    def __init__(self) -> None:
        self.store = _Store()
        self.engine = _Engine()
        self.ctx = self

    def handle(self, op: str, params: dict[str, Any]) -> dict[str, Any]:
        return {"op": op}


def test_a_trim_when_requests_pause_once_per_burst() -> None:
    heap = server_mod.HeapTrim()
    assert not heap.due()  # the first request: the start trimmed just now
    seen = heap.seen()
    assert not heap.due()  # another came before the pause
    assert not heap.idle_due(seen)  # so the first one's pause is not a pause
    seen = heap.seen()
    assert heap.idle_due(seen) and not heap.idle_due(seen)  # once per pause
    heap._last = time.monotonic() - server_mod.TRIM_EVERY_S - 1
    assert heap.due()  # a long burst trims every TRIM_EVERY_S
    assert not heap.idle_due(heap.seen())  # and its pause has nothing left to give back


def test_a_burst_of_requests_is_followed_by_one_trim(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_mod, "IDLE_TRIM_S", 0.3)
    host = _Host()
    server = server_mod.Server(host)  # type: ignore[arg-type]
    line = json.dumps({"op": "ping", "params": {}}).encode()

    async def burst() -> int:
        server.stopping = asyncio.Event()
        for _ in range(5):
            reply = json.loads(await server._answer(line))
            assert reply["ok"] is True and reply["result"] == {"op": "ping"}, reply
        assert host.store.checkpoints == 0  # nothing during the burst (the start trimmed)
        await asyncio.sleep(1.0)
        return host.store.checkpoints

    try:
        assert asyncio.run(burst()) == 1
        assert host.engine.encoder.releases == 1  # the tokenizer's mapped pages let go with it
        assert host.store.reopens_asked == 1  # at the pause, the store is reopened if worn
    finally:
        server.executor.shutdown(wait=True)


def test_only_a_pause_reopens_a_worn_store_and_a_reopen_stands_for_the_checkpoint() -> None:
    """Store.reopen_if_worn: 20-45 ms under the store's lock, so never between a burst's requests."""
    host = _Host()
    server_mod.HeapTrim.trim(host)  # during a burst (every TRIM_EVERY_S)
    assert (host.store.reopens_asked, host.store.checkpoints) == (0, 1)
    server_mod.HeapTrim.trim(host, at_pause=True)  # not worn: checkpointed as ever
    assert (host.store.reopens_asked, host.store.checkpoints) == (1, 2)
    host.store.worn = True
    server_mod.HeapTrim.trim(host, at_pause=True)  # reopened: closing the database checkpointed
    assert (host.store.reopens_asked, host.store.checkpoints) == (2, 2)
