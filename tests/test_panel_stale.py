"""A stale memory in the panel (pytest-qt, offscreen, a real store and a real git repository): the
State column says 'Stale' and its tooltip says why, in English and in Chinese."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.repos import staleness
from memevo.core.service.host import ServiceHost
from memevo.desktop import i18n
from memevo.desktop.memtable import STATE_COLUMN
from memevo.desktop.qt import QApplication, Qt, QTranslator
from test_anchors import commit, make_repo
from test_panel import _view

FLAG_FACT = "the new payment flow is switched by pay_new_flow_v2"
FRESH_FACT = "the shop's README says what it sells"


def _cell(view, memory_id: str, role: Qt.ItemDataRole) -> str:
    """What the view's own table shows in the State column of memory_id's row."""
    model = view.table.model()
    for row in range(model.rowCount()):
        if model.index(row, 0).data(Qt.ItemDataRole.UserRole).id == memory_id:
            return str(model.index(row, STATE_COLUMN).data(role))
    raise AssertionError(f"#{memory_id} is not in the table")


@contextmanager
def _language(view, language: str) -> Iterator[None]:
    """The suite's application is Chinese (MEMEVO_LANG=zh, conftest) unless run under
    MEMEVO_LANG=en (tests/test_english_ui.py): take memevo's translators out for English, or
    add its catalogue for Chinese, and put things back as they were."""
    app = QApplication.instance()
    chinese = bool(i18n._installed)
    if (language == "zh") == chinese:
        yield
        return
    if chinese:
        for translator in i18n._installed:
            app.removeTranslator(translator)
        try:
            yield
        finally:
            for translator in i18n._installed:  # in the order install_translator used
                app.installTranslator(translator)
        return
    translator = QTranslator()
    assert translator.load(str(i18n.I18N_DIR / "memevo_zh_CN.qm"))
    app.installTranslator(translator)
    try:
        yield
    finally:
        app.removeTranslator(translator)


def test_a_stale_memory_says_so_and_why_in_both_languages(
    qtbot, host: ServiceHost, clock: FakeClock, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "shop", {"src/pay/flags.py": "pay_new_flow_v2 = True\n"})
    stale = memories.create(host.store, "project", FLAG_FACT, clock, str(repo))
    fresh = memories.create(host.store, "project", FRESH_FACT, clock, str(repo))
    staleness.check_repo(host.store, str(repo), clock)  # the flag is seen: the name counts
    (repo / "src/pay/flags.py").write_text("checkout_v3 = True\n")
    commit(repo, "the flag is gone")
    clock.advance(days=1)
    assert staleness.check_repo(host.store, str(repo), clock).stale == [stale.id]
    day = clock.local_day(clock.now_ms())
    assert memories.get(host.store, stale.id).stale == f"pay_new_flow_v2 not found in shop since {day}"

    view = _view(qtbot, host)
    display, tooltip = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole
    reason = f"pay_new_flow_v2 not found in shop since {day}"
    with _language(view, "en"):
        assert _cell(view, stale.id, display) == "Stale"
        assert _cell(view, stale.id, tooltip) == reason
        assert _cell(view, fresh.id, display) == "" and _cell(view, fresh.id, tooltip) == ""
    with _language(view, "zh"):
        assert _cell(view, stale.id, display) == "可能已过时"
        assert _cell(view, stale.id, tooltip) == f"自 {day} 起在 shop 中找不到 pay_new_flow_v2"

    # Pinned too: both words, the reason still the tooltip.
    memories.set_pinned(host.store, stale.id, True, clock)
    view.model.reload()
    qtbot.waitUntil(lambda: not view.worker.busy, timeout=30_000)
    with _language(view, "en"):
        assert _cell(view, stale.id, display) == "Pinned, Stale"
        assert _cell(view, stale.id, tooltip) == reason
    with _language(view, "zh"):
        assert _cell(view, stale.id, display) == "已置顶, 可能已过时"


def test_stale_rows_stand_out_filter_and_refresh_by_themselves(
    qtbot, host: ServiceHost, clock: FakeClock, tmp_path: Path
) -> None:
    """Issue 48, item 8: 'Stale' was plain text, with no filter; Still true was only in the row
    menu; a staleness found elsewhere showed only on Refresh."""
    from memevo.desktop.memtable import STALE_BACKGROUND
    from test_panel import _select

    repo = make_repo(tmp_path / "shop", {"src/pay/flags.py": "pay_new_flow_v2 = True\n"})
    stale = memories.create(host.store, "project", FLAG_FACT, clock, str(repo))
    memories.create(host.store, "project", FRESH_FACT, clock, str(repo))
    staleness.check_repo(host.store, str(repo), clock)
    view = _view(qtbot, host)
    view.show()
    assert view.changes_timer.isActive()  # it looks for changes while it is on screen
    _select(view, [0, 1])
    assert not view.buttons["still_true"].isEnabled()  # nothing stale selected

    # found stale elsewhere (the service's anchor check): the view shows it by itself
    (repo / "src/pay/flags.py").write_text("checkout_v3 = True\n")
    commit(repo, "the flag is gone")
    clock.advance(days=1)
    staleness.check_repo(host.store, str(repo), clock)
    host.ctx.refresh_caches()  # as the service's check does (context._after_anchors)
    view.reload_if_changed()
    qtbot.waitUntil(lambda: any(m.stale for m in view.model.rows), timeout=30_000)
    model = view.model
    row = next(r for r, m in enumerate(model.rows) if m.id == stale.id)
    assert model.index(row, 0).data(Qt.ItemDataRole.BackgroundRole).name() == STALE_BACKGROUND
    assert model.index(row, STATE_COLUMN).data(Qt.ItemDataRole.DecorationRole) is not None
    spoken = model.index(row, STATE_COLUMN).data(Qt.ItemDataRole.AccessibleTextRole)
    assert spoken.startswith("可能已过时（可能已过时：") and "pay_new_flow_v2" in spoken
    other = 1 - row
    assert model.index(other, 0).data(Qt.ItemDataRole.BackgroundRole) is None

    view.stale_only.setChecked(True)
    qtbot.waitUntil(lambda: not view.worker.busy, timeout=30_000)
    assert [m.id for m in model.rows] == [stale.id] and model.total == 1

    # Still true beside the other actions, for the stale ones of the selection
    _select(view, [0])
    assert view.buttons["still_true"].isEnabled()
    view.buttons["still_true"].click()
    qtbot.waitUntil(lambda: not view.worker.busy and not view.memory_actions.busy, timeout=30_000)
    assert memories.get(host.store, stale.id).stale is None
    assert view.last_message == f"已确认 #{stale.id} 仍然成立。"
    assert model.rows == []  # no longer stale: gone from "Stale only"


def test_the_hosts_count_of_changes_moves_with_a_write_not_with_a_read(host: ServiceHost) -> None:
    """What the view compares to know it must reload: a write through the service moves it, a
    read leaves it where it was."""
    before = host.changes()
    made = host.handle("add", {"category": "rule", "text": "回答问题时请一律使用中文"})["memory"]
    after = host.changes()
    assert after != before
    host.handle("read", {"category": "rule"})
    host.handle("counts", {})
    host.handle("history", {"id": made["id"]})
    assert host.changes() == after
    host.handle("pin", {"id": made["id"]})
    assert host.changes() != after


def _settle(qtbot, view) -> None:  # type: ignore[no-untyped-def]
    """No action running and nothing left on the view's worker (the reload after it)."""
    qtbot.waitUntil(lambda: not view.worker.busy and not view.memory_actions.busy, timeout=30_000)


def _stale_fact(host: ServiceHost, clock: FakeClock, tmp_path: Path):  # type: ignore[no-untyped-def]
    """FLAG_FACT of a real repository that has just dropped its flag: stale, by the real check."""
    repo = make_repo(tmp_path / "shop", {"src/pay/flags.py": "pay_new_flow_v2 = True\n"})
    stale = memories.create(host.store, "project", FLAG_FACT, clock, str(repo))
    staleness.check_repo(host.store, str(repo), clock)
    (repo / "src/pay/flags.py").write_text("checkout_v3 = True\n")
    commit(repo, "the flag is gone")
    clock.advance(days=1)
    assert staleness.check_repo(host.store, str(repo), clock).stale == [stale.id]
    return stale


def test_still_true_is_undone_from_the_panel(
    qtbot, host: ServiceHost, clock: FakeClock, tmp_path: Path
) -> None:
    from test_panel import _select

    stale = _stale_fact(host, clock, tmp_path)
    reason = memories.get(host.store, stale.id).stale
    view = _view(qtbot, host)

    _select(view, [0])
    view.buttons["still_true"].click()
    _settle(qtbot, view)
    assert memories.get(host.store, stale.id).stale is None
    undo = view.buttons["undo"]
    assert undo.isEnabled() and undo.toolTip() == f"撤销：确认 #{stale.id} 仍然成立"

    undo.click()
    _settle(qtbot, view)
    assert view.last_message == f"已撤销：确认 #{stale.id} 仍然成立"
    assert memories.get(host.store, stale.id).stale == reason
    qtbot.waitUntil(lambda: [m.stale for m in view.model.rows] == [reason], timeout=30_000)
    assert _cell(view, stale.id, Qt.ItemDataRole.DisplayRole) == "可能已过时"
    assert not undo.isEnabled()


def test_undoing_still_true_is_refused_once_the_memory_changed(
    qtbot, host: ServiceHost, clock: FakeClock, tmp_path: Path
) -> None:
    from test_panel import _select

    stale = _stale_fact(host, clock, tmp_path)
    view = _view(qtbot, host)
    _select(view, [0])
    view.buttons["still_true"].click()
    _settle(qtbot, view)

    host.handle(
        "replace", {"id": stale.id, "text": FLAG_FACT + " (renamed to checkout_v3)"}
    )  # another client
    view.buttons["undo"].click()
    _settle(qtbot, view)
    assert view.last_message == f"无法再撤销“确认 #{stale.id} 仍然成立”：#{stale.id} 之后又被改动过。"
    assert memories.get(host.store, stale.id).stale is None
    assert not view.buttons["undo"].isEnabled()
