"""Pinned memories: a pin keeps a memory from decaying and from being deprecated, revives a
deprecated one and leaves awards working, survives the trash and goes with purge; `memevo pin` /
`unpin` and the snapshot show it."""

from __future__ import annotations

from pathlib import Path

from clijson import cli_json
from memevo.core import config as config_mod
from memevo.core.clock import FakeClock
from memevo.core.memories import html_page as snapshot
from memevo.core.memories import live as memories
from memevo.core.memories import maintenance
from memevo.core.memories import trash as memory_trash
from memevo.core.store.database import Store


def _run_day(store: Store, clock: FakeClock) -> maintenance.Report | None:
    return maintenance.run_if_due(store, clock, config_mod.load())


def test_a_pinned_memory_never_decays_nor_is_deprecated(store: Store, clock: FakeClock) -> None:
    pinned = memories.create(store, "rule", "always answer in Chinese", clock)
    loose = memories.create(store, "rule", "an idle memory that decays", clock)
    memories.set_pinned(store, pinned.id, True, clock)
    for _ in range(200):
        clock.advance(days=1)
        _run_day(store, clock)
    kept = memories.get(store, pinned.id)
    assert (kept.confidence, kept.deprecated, kept.pinned) == (50, False, True)
    assert memories.get(store, loose.id).deprecated


def test_pinning_revives_a_deprecated_memory_and_awards_still_raise_it(
    store: Store, clock: FakeClock
) -> None:
    m = memories.create(store, "project", "the staging host is stage.example.com", clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 30, deprecated = TRUE WHERE id = ?", [m.id])
    assert not memories.set_pinned(store, m.id, True, clock).deprecated
    clock.advance(days=1)
    _run_day(store, clock)  # the low-confidence sweep leaves a pinned memory alone
    assert not memories.get(store, m.id).deprecated
    _, gained = memories.reinforce(store, m.id, clock)
    assert gained == 10 and memories.get(store, m.id).confidence == 40
    clock.advance(days=1)
    assert memories.award_recall(store, [m.id], clock) == {m.id: 5}
    memories.set_pinned(store, m.id, False, clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 30 WHERE id = ?", [m.id])
    clock.advance(days=1)
    _run_day(store, clock)
    assert memories.get(store, m.id).deprecated  # unpinned: the usual rules again


def test_pin_survives_the_trash_and_purge_removes_it(store: Store, clock: FakeClock) -> None:
    from memevo.core.memories import purge

    m = memories.create(store, "rule", "keep this one pinned", clock)
    memories.set_pinned(store, m.id, True, clock)
    memories.delete(store, [m.id], clock)
    assert memories.trash_list(store)[0].memory.pinned
    assert memory_trash.restore(store, m.id).pinned
    purge.purge(store, m.id)
    assert store.query("SELECT count(*) FROM pins")[0][0] == 0


def test_pin_and_unpin_from_the_command_line(run_cli, data_dir: Path) -> None:
    added = cli_json(run_cli("rule", "add", "commit messages in English", "--json"))["memory"]
    assert added["pinned"] is False
    pinned = cli_json(run_cli("pin", added["id"], "--json"))["memory"]
    assert pinned["pinned"] is True
    listing = run_cli("read", "rule")
    assert "[pinned]" in listing.stdout
    assert cli_json(run_cli("read", "rule", "--json"))["memories"][0]["pinned"] is True
    with Store.open() as store:
        assert "已置顶" in snapshot.render(store)
    assert cli_json(run_cli("unpin", added["id"], "--json"))["memory"]["pinned"] is False
    missing = run_cli("pin", "nope")
    assert missing.returncode != 0 and "no memory with id nope" in missing.stderr
