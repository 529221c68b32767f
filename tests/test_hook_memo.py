"""The rows of recalled memories the service keeps between prompts (core/service/answer_cache.py Rows):
a prompt that recalls what an earlier one did reads no memory rows from the store, and every
change, and every award, is seen by the next prompt."""

from __future__ import annotations

from typing import Any

import pytest
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.service.answer_cache import Rows
from memevo.core.service.host import ServiceHost
from memevo.core.store.database import Store

PROMPT = "支付页新流程要在测试环境打开，开关叫什么来着"
FACT = "支付页新流程的灰度开关是 pay_new_flow_v2"


class CountingReads:
    """Counts the store's reads of memory rows (the query `memories.find` runs)."""

    def __init__(self, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        self.rows = 0
        query = store.query

        def counted(sql: str, params: Any = None, *args: Any, **kw: Any) -> Any:
            if sql.lstrip().startswith("SELECT id, category, text"):
                self.rows += 1
            return query(sql, params, *args, **kw)

        monkeypatch.setattr(store, "query", counted)


def _prompt(host: ServiceHost, cwd: str | None = None) -> bool:
    """Whether the prompt's injected context holds the fact."""
    params: dict[str, Any] = {"client": "claude", "session": "s1", "prompt": PROMPT}
    if cwd:
        params["cwd"] = cwd
    return FACT in (host.handle("hook_prompt", params).get("context") or "")


def _sync(host: ServiceHost) -> None:
    assert host.engine is not None
    host.engine.sync_all()


def test_the_same_recall_again_reads_no_rows(
    model_host: ServiceHost, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    fact = memories.create(model_host.store, "project", FACT, clock)
    _sync(model_host)
    reads = CountingReads(model_host.store, monkeypatch)
    assert _prompt(model_host)
    assert reads.rows == 1
    clock.advance(minutes=5)
    assert _prompt(model_host) and _prompt(model_host)
    assert reads.rows == 1  # kept between prompts
    model_host.handle("pin", {"id": fact.id})
    reads.rows = 0
    assert _prompt(model_host)
    assert reads.rows == 1  # a change: read again


def test_a_change_is_seen_by_the_next_prompt(
    model_host: ServiceHost, clock: FakeClock, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    fact = memories.create(model_host.store, "project", FACT, clock)
    _sync(model_host)
    other = tmp_path / "other-repo"
    (other / ".git").mkdir(parents=True)
    here = tmp_path / "this-repo"
    (here / ".git").mkdir(parents=True)
    assert _prompt(model_host, str(here))
    # scoped to another repository through the operation every client uses: not recalled here
    model_host.handle("scope", {"id": fact.id, "scope": str(other)})
    assert not _prompt(model_host, str(here))
    model_host.handle("scope", {"id": fact.id, "scope": "global"})
    assert _prompt(model_host, str(here))


def test_an_award_is_read_again_not_decided_twice(model_host: ServiceHost, clock: FakeClock) -> None:
    fact = memories.create(model_host.store, "project", FACT, clock)
    _sync(model_host)
    clock.advance(days=1)
    assert _prompt(model_host)
    assert memories.get(model_host.store, fact.id).confidence == 55
    clock.advance(days=1)
    model_host.ctx.awards = type(model_host.ctx.awards)()  # forget today's memo: the row decides alone
    assert _prompt(model_host)
    assert memories.get(model_host.store, fact.id).confidence == 60  # the cached row was not stale


def test_a_read_that_raced_a_change_is_not_kept(
    store: Store, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    fact = memories.create(store, "project", FACT, clock)
    rows = Rows()
    real_find = memories.find
    reads: list[Any] = []

    def find_during_a_change(*args: Any, **kw: Any) -> Any:
        reads.append(args)
        found = real_find(*args, **kw)
        if len(reads) == 1:
            rows.clear()  # a write landed while the rows were being read
        return found

    monkeypatch.setattr(memories, "find", find_during_a_change)
    assert rows.find(store, [fact.id])[fact.id].text == FACT
    assert rows.find(store, [fact.id])[fact.id].text == FACT
    assert len(reads) == 2  # the raced read was not kept
    rows.find(store, [fact.id])
    assert len(reads) == 2  # the second one was
