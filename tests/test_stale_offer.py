"""A stale memory is offered for update or deletion, on a real store and a real git repository: the
panel's row menu (pytest-qt, offscreen) says why and offers Edit, Delete and Still true; `memevo
read` says how to edit, delete or keep it, and `memevo still-true` keeps it — fresh until a name it
gives is found and lost again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clijson import cli_json
from memevo.core.clock import FakeClock
from memevo.core.errors import InvalidInput, NotFound
from memevo.core.memories import history as memory_history
from memevo.core.memories import live as memories
from memevo.core.repos import staleness
from memevo.core.service.host import ServiceHost
from memevo.core.store.database import Store
from memevo.desktop.stale_menu import row_menu
from test_anchors import commit, make_repo
from test_panel import _view

FACT = "the new payment flow is switched by pay_new_flow_v2"
OTHER = "refunds are handled in src/refunds/ by refund_worker"


def _stale_repo(store: Store, clock: FakeClock, root: Path) -> tuple[Path, memories.Memory, memories.Memory]:
    repo = make_repo(
        root / "shop",
        {"src/pay/flags.py": "pay_new_flow_v2 = True\n", "src/refunds/worker.py": "refund_worker = 1\n"},
    )
    fact = memories.create(store, "project", FACT, clock, str(repo))
    other = memories.create(store, "project", OTHER, clock, str(repo))
    staleness.check_repo(store, str(repo), clock)  # seen
    (repo / "src/pay/flags.py").write_text("checkout_v3 = True\n")
    (repo / "src/refunds/worker.py").unlink()
    (repo / "src/refunds").rmdir()  # the folder too: a path that still exists is still found
    commit(repo, "the flag and the refunds are gone")
    clock.advance(days=1)
    assert sorted(staleness.check_repo(store, str(repo), clock).stale) == sorted([fact.id, other.id])
    return repo, memories.get(store, fact.id), memories.get(store, other.id)


def _settle(qtbot, view) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: not view.worker.busy, timeout=30_000)


def test_the_row_menu_offers_a_stale_memory_for_update_or_deletion(
    qtbot, host: ServiceHost, clock: FakeClock, tmp_path: Path
) -> None:
    repo, fact, other = _stale_repo(host.store, clock, tmp_path)
    fresh = memories.create(host.store, "rule", "commit messages in English", clock)
    view = _view(qtbot, host)
    day = clock.local_day(clock.now_ms())

    menu = row_menu(view, fact)
    texts = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert texts == [f"可能已过时：自 {day} 起在 shop 中找不到 pay_new_flow_v2", "改写…", "删除", "仍然成立"]
    assert not menu.actions()[0].isEnabled()  # the reason, not a choice
    assert [a.text() for a in row_menu(view, fresh).actions()] == ["改写…", "删除"]  # not stale: no offer

    # Still true: checked again (still gone), kept as true; a later check leaves it fresh
    [still] = [a for a in menu.actions() if a.text() == "仍然成立"]
    still.trigger()
    _settle(qtbot, view)
    assert view.last_message == f"已确认 #{fact.id} 仍然成立。"
    assert memories.get(host.store, fact.id).stale is None
    assert staleness.check_repo(host.store, str(repo), clock).stale == []
    assert memories.get(host.store, fact.id).stale is None
    # ... until its name is found and lost again
    (repo / "src/pay/flags.py").write_text("pay_new_flow_v2 = True\n")
    commit(repo, "back")
    staleness.check_repo(host.store, str(repo), clock)
    (repo / "src/pay/flags.py").write_text("checkout_v4 = True\n")
    commit(repo, "gone again")
    assert staleness.check_repo(host.store, str(repo), clock).stale == [fact.id]

    # Delete from the menu: to the trash, undoable like the button's
    [delete] = [a for a in row_menu(view, other).actions() if a.text() == "删除"]
    delete.trigger()
    _settle(qtbot, view)
    assert other.id not in {m.id for m in memories.live(host.store)}
    assert [t.memory.id for t in memories.trash_list(host.store)] == [other.id]

    # Edit from the menu: the view's own edit (its question answered here)
    view.ask_text = lambda *_args: "the new payment flow is switched by checkout_v4"  # type: ignore[method-assign]
    [edit] = [a for a in row_menu(view, memories.get(host.store, fact.id)).actions() if a.text() == "改写…"]
    edit.trigger()
    _settle(qtbot, view)
    assert memories.get(host.store, fact.id).text.endswith("checkout_v4")


def test_still_true_finds_the_names_back_when_they_are(
    host: ServiceHost, clock: FakeClock, tmp_path: Path
) -> None:
    repo, fact, _other = _stale_repo(host.store, clock, tmp_path)
    (repo / "src/pay/flags.py").write_text("pay_new_flow_v2 = True\n")
    commit(repo, "the flag is back")
    result = host.handle("still_true", {"id": fact.id})
    assert result["found_again"] is True and result["memory"]["stale"] is None
    assert result["before"] is None  # fresh on the evidence: nothing of the user's word to undo


def test_the_command_line_offers_and_keeps(run_cli, data_dir: Path, tmp_path: Path) -> None:
    clock = FakeClock()
    with Store.open() as store:
        _repo, fact, other = _stale_repo(store, clock, tmp_path)
    listed = run_cli("read", "project")
    assert listed.returncode == 0, listed.stderr
    assert "2 may be out of date (stale)" in listed.stdout
    assert "memevo still-true" in listed.stdout and "memevo delete" in listed.stdout
    kept = run_cli("still-true", fact.id)
    assert kept.returncode == 0, kept.stderr
    assert f"kept {fact.id} as true" in kept.stdout
    after = {m["id"]: m for m in cli_json(run_cli("read", "project", "--json"))["memories"]}
    assert after[fact.id]["stale"] is None and after[other.id]["stale"] is not None
    assert "1 may be out of date" in run_cli("read", "project").stdout
    edited = run_cli("edit", other.id, "refunds are handled by the payments team now")
    assert edited.returncode == 0, edited.stderr
    with Store.open() as store:
        assert memories.get(store, other.id).text == "refunds are handled by the payments team now"
        _memory, versions = memory_history.history(store, other.id)
        assert [v.text for v in versions] == [OTHER]
    missing = run_cli("still-true", "nosuchid")
    assert missing.returncode != 0 and "no memory with id nosuchid" in missing.stderr


def _anchors_row(store: Store, memory_id: str) -> tuple[object, ...]:
    """What is kept of the memory's names, all of it but when they were last looked up."""
    [row] = store.query(
        "SELECT memory_id, text_sha, anchors, stale_ms, stale_reason FROM anchors WHERE memory_id = ?",
        [memory_id],
    )
    return tuple(row)


def test_a_check_under_way_never_writes_over_an_undo_made_meanwhile(
    store: Store, clock: FakeClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A check reads the rows, lets the store go while git looks the names up, then writes what
    it found. The user's Undo of Still true landing in between was written over (the memory
    fresh again, the undo said done): a row changed since it was read is left to the next check.
    On the store itself: a service's own checks after each write would run beside this one."""
    from memevo.core.repos import anchors

    repo, fact, _other = _stale_repo(store, clock, tmp_path)
    found_again, before = staleness.still_true(store, fact.id, clock)
    assert found_again is False and before is not None
    assert memories.get(store, fact.id).stale is None
    looked_up = anchors.Prober.found
    undone: list[bool] = []

    def found_while_the_user_undoes(prober: anchors.Prober, anchor: anchors.Anchor) -> bool | None:
        if not undone:  # git at work, the store let go: the Undo is clicked now
            staleness.stale_again(store, fact.id, before)
            undone.append(True)
        return looked_up(prober, anchor)

    monkeypatch.setattr(anchors.Prober, "found", found_while_the_user_undoes)
    clock.advance(days=1)
    staleness.check_repo(store, str(repo), clock)
    assert undone
    assert memories.get(store, fact.id).stale == fact.stale  # still the undo's: not written over
    monkeypatch.undo()
    clock.advance(days=1)
    staleness.check_repo(store, str(repo), clock)  # the next check reads the undone row
    assert memories.get(store, fact.id).stale == fact.stale


def test_still_true_is_undone_to_the_exact_row(host: ServiceHost, clock: FakeClock, tmp_path: Path) -> None:
    repo, fact, _other = _stale_repo(host.store, clock, tmp_path)
    was = _anchors_row(host.store, fact.id)
    kept = host.handle("still_true", {"id": fact.id})
    assert kept["found_again"] is False and kept["memory"]["stale"] is None
    assert json.loads(json.dumps(kept)) == kept  # the undo's part travels as JSON
    assert kept["before"]["stale_reason"] == fact.stale
    clock.advance(days=1)
    staleness.check_repo(host.store, str(repo), clock)  # nothing new found: the undo still applies
    assert memories.get(host.store, fact.id).stale is None

    again = host.handle("undo_still_true", {"id": fact.id, "before": kept["before"]})
    assert again["memory"]["stale"] == fact.stale  # the same reason, the same day
    assert _anchors_row(host.store, fact.id) == was
    # the lost name counts again: the next check keeps it stale, and it can be kept as true again
    assert staleness.check_repo(host.store, str(repo), clock).fresh == []
    assert memories.get(host.store, fact.id).stale == fact.stale
    assert host.handle("still_true", {"id": fact.id})["found_again"] is False


def test_undoing_still_true_is_refused_after_a_newer_change(
    host: ServiceHost, clock: FakeClock, tmp_path: Path
) -> None:
    repo, fact, other = _stale_repo(host.store, clock, tmp_path)
    kept_fact = host.handle("still_true", {"id": fact.id})["before"]
    kept_other = host.handle("still_true", {"id": other.id})["before"]

    # the text rewritten since
    host.handle("replace", {"id": fact.id, "text": FACT + " (the checkout calls it)"})
    with pytest.raises(InvalidInput, match="changed since"):
        host.handle("undo_still_true", {"id": fact.id, "before": kept_fact})
    assert memories.get(host.store, fact.id).stale is None

    # a lost name found again since: the evidence moved on
    (repo / "src/refunds").mkdir()
    (repo / "src/refunds/worker.py").write_text("refund_worker = 1\n")
    commit(repo, "the refunds are back")
    staleness.check_repo(host.store, str(repo), clock)
    found = _anchors_row(host.store, other.id)
    with pytest.raises(InvalidInput, match="changed since"):
        host.handle("undo_still_true", {"id": other.id, "before": kept_other})
    assert _anchors_row(host.store, other.id) == found and memories.get(host.store, other.id).stale is None

    # ... and lost again: stale on new evidence, its own reason kept
    (repo / "src/refunds/worker.py").unlink()
    (repo / "src/refunds").rmdir()
    commit(repo, "gone again")
    clock.advance(days=1)
    assert staleness.check_repo(host.store, str(repo), clock).stale == [other.id]
    newer = memories.get(host.store, other.id).stale
    assert newer is not None and newer != other.stale
    with pytest.raises(InvalidInput, match="changed since"):
        host.handle("undo_still_true", {"id": other.id, "before": kept_other})
    assert memories.get(host.store, other.id).stale == newer

    # not what still_true returned, or no such memory
    with pytest.raises(InvalidInput):
        host.handle("undo_still_true", {"id": other.id, "before": {"anchors": "[]"}})
    with pytest.raises(NotFound):
        host.handle("undo_still_true", {"id": "nosuchid", "before": kept_other})
