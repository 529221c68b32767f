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
