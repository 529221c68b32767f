"""The panel's memories view (pytest-qt, offscreen) over a real store, up to 100k memories."""

from __future__ import annotations

import pytest
from deadlines import HANG_MS
from memevo.core.clock import FakeClock
from memevo.core.encoder.models import DEFAULT_MODEL
from memevo.core.memories import live as memories
from memevo.core.recall import gate_defaults as calibration
from memevo.core.service.host import ServiceHost
from memevo.desktop.i18n import tr
from memevo.desktop.panel import PAGE, MemoriesView, Panel
from memevo.desktop.qt import Qt


def _settle(qtbot, *views) -> None:
    """Wait until each view's worker thread has answered (queries and writes run off the UI)."""
    for view in views:
        qtbot.waitUntil(lambda v=view: not v.worker.busy, timeout=30_000)


def _click(qtbot, view: MemoriesView, key: str) -> None:
    view.buttons[key].click()
    _settle(qtbot, view)


def _select(view: MemoriesView, rows: list[int]) -> None:
    select_rows(view.table, rows)


def select_rows(table, rows: list[int]) -> None:
    """Through the selection model, never QTableView.selectRow: that one reads the keyboard's
    modifiers, and a Shift an earlier test's key click left pressed (offscreen Qt keeps it)
    turns it into a range from nowhere, which selects nothing."""
    from PySide6.QtCore import QItemSelectionModel

    selection = table.selectionModel()
    selection.clearSelection()
    for row in rows:
        selection.select(
            table.model().index(row, 0),
            QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
        )


def _view(qtbot, host: ServiceHost) -> MemoriesView:
    """A memories view over host, its first page loaded."""
    view = MemoriesView(host)
    qtbot.addWidget(view)
    _settle(qtbot, view)
    return view


def test_a_hundred_thousand_memories_load_a_page_at_a_time(qtbot, host: ServiceHost) -> None:
    from memevo.cli.bench.pool import synthetic_store

    host.store.close()
    big = synthetic_store(100_000)
    host.store = big
    host.ctx.access.store = big  # type: ignore[attr-defined]
    panel = Panel(host)
    qtbot.addWidget(panel)
    model = panel.memories.model
    _settle(qtbot, panel.memories)
    assert model.total == 100_000 and model.rowCount() == PAGE
    assert model.canFetchMore()
    model.fetchMore()
    _settle(qtbot, panel.memories)
    assert model.rowCount() == 2 * PAGE
    last = big.query("SELECT text FROM memories WHERE id = 'b0099999'")[0][0]  # memory-like, unique
    panel.memories.search.setText(last)
    panel.memories.apply_filters()
    _settle(qtbot, panel.memories)
    assert model.total == 1 and model.data(model.index(0, 0)) == last


def test_filters_by_group_and_deprecated(qtbot, host: ServiceHost, clock: FakeClock) -> None:
    memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    fact = memories.create(host.store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", clock)
    with host.store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 40, deprecated = TRUE WHERE id = ?", [fact.id])
    view = MemoriesView(host)
    qtbot.addWidget(view)
    _settle(qtbot, view)
    assert view.model.total == 2
    view.group.setCurrentIndex(2)
    _settle(qtbot, view)
    assert view.model.total == 1 and view.model.data(view.model.index(0, 5)) == "已废弃"
    view.deprecated.setChecked(False)
    _settle(qtbot, view)
    assert view.model.total == 0


def test_actions_reinforce_move_delete(qtbot, host: ServiceHost, clock: FakeClock) -> None:
    rule = memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    clock.advance(days=1)
    view = MemoriesView(host)
    qtbot.addWidget(view)
    _settle(qtbot, view)
    _select(view, [0])
    _click(qtbot, view, "reinforce")
    assert memories.get(host.store, rule.id).confidence == 60 and view.last_message == f"#{rule.id} +0.1"
    _select(view, [0])
    _click(qtbot, view, "move")
    assert memories.get(host.store, rule.id).category == "project"
    _click(qtbot, view, "undo")  # the move goes back
    assert memories.get(host.store, rule.id).category == "rule"
    _select(view, [0])
    _click(qtbot, view, "delete")
    assert view.model.total == 0 and [t.memory.id for t in memories.trash_list(host.store)] == [rule.id]
    assert "回收站" in view.last_message
    _click(qtbot, view, "undo")  # restored from the trash
    assert view.model.total == 1 and memories.trash_list(host.store) == []
    assert not view.buttons["undo"].isEnabled()


def test_add_edit_purge_and_restore(
    qtbot, host: ServiceHost, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = Panel(host)
    qtbot.addWidget(panel)
    view = panel.memories
    adds = iter([("rule", "短", None), ("rule", "回答问题时一律使用中文", None)])
    monkeypatch.setattr(view, "ask_new_memory", lambda category: next(adds))
    monkeypatch.setattr(view, "ask_text", lambda *args: "回答问题时一律使用简体中文")
    monkeypatch.setattr(view, "confirm", lambda *args: True)
    _settle(qtbot, view)
    _click(qtbot, view, "add")
    assert "没有完成" in view.last_message and view.model.total == 0  # out of range: nothing written
    _click(qtbot, view, "add")
    assert view.model.total == 1
    memory_id = view.model.memory_at(0).id
    _select(view, [0])
    _click(qtbot, view, "edit")
    assert memories.get(host.store, memory_id).text == "回答问题时一律使用简体中文"
    _click(qtbot, view, "undo")  # the old text is back
    assert memories.get(host.store, memory_id).text == "回答问题时一律使用中文"
    _select(view, [0])
    _click(qtbot, view, "delete")
    panel.trash.model.reload()
    _settle(qtbot, panel.trash)
    assert [i["id"] for i in panel.trash.model.items] == [memory_id]
    assert not panel.trash.restore_button.isEnabled()  # nothing selected: nothing to restore
    panel.trash.restore()  # called anyway: said, and nothing is restored
    assert panel.trash.message.text() == tr("Select the memories to restore first.")
    assert not panel.trash.worker.busy and [i["id"] for i in panel.trash.model.items] == [memory_id]
    select_rows(panel.trash.list, [0])
    assert panel.trash.restore_button.isEnabled()
    panel.trash.restore()
    _settle(qtbot, panel.trash)
    # said, not only a row gone (a real display showed nothing); the Memories tab has it again
    assert panel.trash.message.text() == tr("Restored {names}: back in Memories.").format(
        names=f"#{memory_id}"
    )
    view.model.reload()
    _settle(qtbot, view)
    assert view.model.total == 1 and panel.trash.model.items == []
    panel.trash.model.items = [{"id": "0000dead", "text": "", "category": "rule", "deleted": ""}]
    panel.trash.model.set_rows([["", "", ""]])
    select_rows(panel.trash.list, [0])
    panel.trash.restore()  # gone meanwhile (restored elsewhere, or purged): the reason is said
    _settle(qtbot, panel.trash)
    assert panel.trash.message.text().startswith(tr("Restore failed: {error}").format(error=""))
    _select(view, [0])
    _click(qtbot, view, "purge")
    assert view.model.total == 0 and memories.trash_list(host.store) == []


def test_adding_a_text_already_there_reinforces_it_and_offers_no_undo(
    qtbot, host: ServiceHost, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Undo of that add would have deleted the memory that was there before."""
    existing = memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    clock.advance(days=1)  # creating it was the day's award
    panel = Panel(host)
    qtbot.addWidget(panel)
    view = panel.memories
    monkeypatch.setattr(view, "ask_new_memory", lambda category: ("rule", "回答问题时一律使用中文", None))
    _settle(qtbot, view)
    _click(qtbot, view, "add")
    assert view.model.total == 1 and existing.id in view.last_message
    assert not view.buttons["undo"].isEnabled()
    assert memories.get(host.store, existing.id).confidence > existing.confidence


def test_status_tab(qtbot, host: ServiceHost, clock: FakeClock) -> None:
    from memevo.core import config as config_mod
    from memevo.core.memories import maintenance

    memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    memories.create(host.store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", clock)
    maintenance.run(host.store, clock, config_mod.load())
    host.ctx.books.record_hook("claude", "prompt", 21.5)
    host.ctx.books.flush()
    panel = Panel(host)
    qtbot.addWidget(panel)
    _settle(qtbot, panel.status)
    report = panel.status.report
    assert report["counts"]["rule"]["live"] == 1 and report["histogram"] == {"0.5": 2}
    assert report["last_maintenance"] == clock.local_day(clock.now_ms())
    hybrid = calibration.for_model(DEFAULT_MODEL)
    assert hybrid is not None  # the hybrid gate's defaults
    assert report["thresholds"] == {"rule": hybrid.min_rule, "project": hybrid.min_project, "topK": 3}
    assert report["hooks"][0]["service_ms"] == 21.5
    text = panel.status.label.text()
    assert (
        "置信度分布" in text
        and "服务端耗时 21.5 ms" in text
        and "Claude Code · 提示词" in text
        and "multilingual-e5-small" in text
    )


def test_proposals_and_injection_log_tabs(qtbot, host: ServiceHost, clock: FakeClock) -> None:
    from memevo.core.learning import jobs
    from memevo.desktop.confirm import ConfirmQueue

    jobs.create(host.store, "p1", "cursor", "s", None, "以后回答我都用中文", clock.now_ms())
    proposal = {"text": "回答问题时一律使用中文", "category": "rule", "action": "create"}
    jobs.update(host.store, "p1", clock.now_ms(), status="ready", proposal=proposal)
    kept = memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    session = "sess-abc-0123456789-long"
    asked = "以后回答我都用中文吗？token=ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + " " + "长" * 400
    host.ctx.books.log_injection("claude", session, "prompt", "p", [kept.id, "m2"], 120, asked)
    host.ctx.books.log_injection("cursor", "conv-1", "session_start", None, ["m3"], 80)
    host.ctx.books.flush()
    queue = ConfirmQueue(host)
    panel = Panel(host, queue)
    qtbot.addWidget(panel)
    _settle(qtbot, panel.proposals)
    assert panel.proposals.model.rows == [
        ["Cursor", "以后回答我都用中文", "新增规则「回答问题时一律使用中文」", "等待确认"]
    ]
    panel.proposals.open_button.click()
    qtbot.waitUntil(
        lambda: queue.current is not None and not queue.busy, timeout=HANG_MS
    )  # off the UI thread
    assert queue.current is not None and queue.current.job.id == "p1"
    _settle(qtbot, panel.injections)
    assert len(panel.injections.model.rows) == 2
    panel.injections.client.setCurrentIndex(1)  # claude only
    _settle(qtbot, panel.injections)
    # names in words, the injected memories' texts, the whole session id on hover
    model = panel.injections.model
    assert [r[1] for r in model.rows] == ["Claude Code"] and model.rows[0][3] == "提示词"
    assert model.rows[0][5:] == ["120", f"2 条记忆：#{kept.id} 回答问题时一律使用中文 · #m2（之后已删除）"]
    assert model.data(model.index(0, 6), Qt.ItemDataRole.ToolTipRole) == (
        f"#{kept.id} 回答问题时一律使用中文\n#m2（之后已删除）"
    )  # one memory a line on hover
    # Characters explained, on the header and on each cell (issue 48, item 11)
    tip = model.headerData(5, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert (
        tip.startswith("memevo 加入模型上下文的字数")
        and model.data(model.index(0, 5), Qt.ItemDataRole.ToolTipRole) == tip
    )
    # the prompt it answered: an excerpt, its secret redacted, cut at 200 characters
    excerpt = model.rows[0][4]
    assert excerpt.startswith("以后回答我都用中文吗？token=[已隐去]") and excerpt.endswith("…")
    assert "ghp_" not in excerpt and len(excerpt) == 201
    assert model.data(model.index(0, 4), Qt.ItemDataRole.ToolTipRole) == excerpt
    assert model.rows[0][2] == "sess-abc-012…"
    assert model.data(model.index(0, 2), Qt.ItemDataRole.ToolTipRole) == session
    # new injections show up while the log is on screen, without switching tabs
    panel.show()
    panel.show_view("injections")
    assert panel.injections.timer.isActive()
    host.ctx.books.log_injection("claude", "s2", "session_start", None, [kept.id], 60)
    host.ctx.books.flush()
    panel.injections.timer.timeout.emit()
    _settle(qtbot, panel.injections)
    assert len(model.rows) == 2 and model.rows[0][3] == "会话开始"
    assert model.rows[0][4] == "（无：会话开始没有提示词）"  # said plainly, not left blank
    panel.show_view("memories")
    assert not panel.injections.timer.isActive()


def test_the_injection_log_filters_by_client_before_its_limit(qtbot, host: ServiceHost) -> None:
    from memevo.desktop.logview import InjectionLogView

    host.ctx.books.log_injection("workbuddy", "quiet", "prompt", "p0", ["w1"], 40)
    for i in range(600):  # a busy client fills the newest 500
        host.ctx.books.log_injection("claude", "busy", "prompt", f"p{i}", ["c1"], 80)
    host.ctx.books.flush()
    view = InjectionLogView(host)
    qtbot.addWidget(view)
    view.client.setCurrentIndex(4)  # workbuddy
    _settle(qtbot, view)
    assert [r[1] for r in view.model.rows] == ["WorkBuddy"]


def test_injections_logged_before_prompts_were_kept_say_so(qtbot, data_dir, clock: FakeClock) -> None:
    """A store from before migration 13 keeps its injection log; those rows say the prompt was
    not kept (a purge says the same of an excerpt that held the purged text)."""
    import duckdb
    from memevo.core.store.database import Store
    from memevo.core.store.migrations import MIGRATIONS
    from memevo.desktop.logview import InjectionLogView

    path = data_dir / "memevo.duckdb"
    data_dir.mkdir(parents=True, exist_ok=True)
    old = duckdb.connect(str(path))  # the schema as release 12 left it, with one injection
    old.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR, applied_ms BIGINT)"
    )
    for migration in MIGRATIONS[:12]:
        for statement in migration.statements:
            old.execute(statement)
        old.execute("INSERT INTO schema_migrations VALUES (?, ?, 0)", [migration.version, migration.name])
    old.execute(
        "INSERT INTO injections (ts_ms, client, session, event, prompt_id, memory_ids, chars) "
        "VALUES (?, 'claude', 'old-session', 'prompt', 'p', ['m1'], 90)",
        [clock.now_ms()],
    )
    old.close()
    with Store.open(path) as store:
        host = ServiceHost(store, clock)
        try:
            host.ctx.books.log_injection(
                "claude", "new", "action", None, ["m1"], 40, "Bash: git push --force"
            )
            host.ctx.books.flush()
            view = InjectionLogView(host)
            qtbot.addWidget(view)
            _settle(qtbot, view)
            rows = view.model.rows
            assert [r[4] for r in rows] == ["Bash: git push --force", "（未保留）"]
            assert "之前" in view.model.data(view.model.index(1, 4), Qt.ItemDataRole.ToolTipRole)
        finally:
            host.close()


def test_confidence_bar_paints_by_strength(qtbot, host: ServiceHost, clock: FakeClock) -> None:
    from memevo.desktop.qt import QColor
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QStyleOptionViewItem

    memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    with host.store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 90")
    view = MemoriesView(host)
    qtbot.addWidget(view)
    _settle(qtbot, view)
    image = QImage(100, 20, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    option = QStyleOptionViewItem()
    option.rect = image.rect()
    view.table.itemDelegateForColumn(2).paint(painter, option, view.model.index(0, 2))
    painter.end()
    assert image.pixelColor(10, 10).name() == "#66bb6a"  # filled part: strong, green
    assert image.pixelColor(95, 10).name() == "#eeeeee"  # beyond 0.9: the empty track
    # a hand-added memory (0.5) is not drawn as a weak one
    from memevo.desktop.memtable import bar_color

    assert bar_color(50, False) == "#64b5f6" and bar_color(45, False) == "#ffb74d"
    assert bar_color(90, True) == "#9e9e9e"


def test_no_column_cuts_its_values(qtbot, host: ServiceHost, clock: FakeClock) -> None:
    """Issue 31, item 13: the Scope column cut 「全局」, the trash's times were cut beside
    empty space, and the Pending columns were squeezed."""
    from memevo.core.learning import jobs
    from PySide6.QtWidgets import QStyle

    for text in ("回答问题时一律使用中文", "这个仓库用 pnpm 管理依赖", "提交前先跑测试"):
        memories.create(host.store, "rule", text, clock)
    host.handle("delete", {"ids": [memories.ranked(host.store, "rule")[0].id]})
    # the longest group ("项目事实" was cut to "项目…" on a real display) and both states
    fact = memories.create(host.store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", clock)
    host.handle("pin", {"id": fact.id})
    old = memories.create(host.store, "project", "旧版结算页已下线", clock)
    with host.store.transaction() as con:
        con.execute("UPDATE memories SET deprecated = true WHERE id = ?", [old.id])
    jobs.create(
        host.store, "p1", "cursor", "s", None, "以后回答我都用中文，代码注释也用中文写", clock.now_ms()
    )
    proposal = {"text": "回答问题和代码注释一律使用中文", "category": "rule", "action": "create"}
    jobs.update(host.store, "p1", clock.now_ms(), status="ready", proposal=proposal)
    panel = Panel(host)
    qtbot.addWidget(panel)
    panel.resize(1000, 600)
    panel.show()
    for name, view, table in (
        ("memories", panel.memories, panel.memories.table),
        ("trash", panel.trash, panel.trash.list),
        ("proposals", panel.proposals, panel.proposals.table),
    ):
        panel.show_view(name)
        panel.reload_current()
        _settle(qtbot, view)
        qtbot.wait(20)
        model, header, metrics = table.model(), table.horizontalHeader(), table.fontMetrics()
        margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
        assert model.rowCount() > 0, name
        for column in range(1, model.columnCount()):
            for row in range(model.rowCount()):
                value = model.data(model.index(row, column))
                if isinstance(value, str) and value:
                    # the cell's own margins come on top of the text, as the item delegate
                    # lays it out: (focus frame margin + 1) a side
                    needed = metrics.horizontalAdvance(value) + margin
                    assert header.sectionSize(column) >= needed, (name, column, value)


def test_a_row_of_the_injection_log_says_what_it_injected_and_why(
    qtbot, host: ServiceHost, clock: FakeClock
) -> None:
    """Issue 48, item 11: a reminder row said nothing in its Memories cell, and the receipts
    were only in `memevo why`. A reminder row says what it was; a double-click opens the row's
    receipt: each memory's text and why it passed the gate, and what found no room."""
    from memevo.desktop.logview import InjectionLogView

    shown = memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    left = memories.create(host.store, "rule", "提交前先跑测试", clock)
    signals = {"score": 0.61, "minimum": 0.5, "cosine": 0.58, "lexical": 0.3, "cued": True, "damped": 0}
    why = {
        "kind": "recall",
        "memories": {shown.id: {**signals, "stale": None}},
        "left_out": [left.id],
        "other_repositories": 2,
    }
    host.ctx.books.log_injection("claude", "sess-receipt", "prompt", "p1", [shown.id], 150, "用中文回答", why)
    host.ctx.books.log_injection("claude", "sess-receipt", "prompt", "p2", [], 199, "remember: 用 pnpm")
    host.ctx.books.flush()
    view = InjectionLogView(host)
    qtbot.addWidget(view)
    _settle(qtbot, view)
    model = view.model
    assert model.rows[0][4:] == ["remember: 用 pnpm", "199", "（没有记忆：memevo 的学习提醒）"]
    assert "学习提醒" not in model.data(
        model.index(0, 6), Qt.ItemDataRole.ToolTipRole
    )  # it says what that is
    assert model.rows[1][6] == f"#{shown.id} 回答问题时一律使用中文"

    view.show_receipt(1)
    _settle(qtbot, view)
    receipt = view.receipt.text.toPlainText()
    assert "回应的是：用中文回答" in receipt and "150 字：" in receipt
    assert f"#{shown.id} 回答问题时一律使用中文" in receipt
    assert "得分 0.61 ≥ 门槛 0.5（语义相似度 0.58，词语匹配 0.3），借助其召回线索" in receipt
    assert f"通过了门槛，但因篇幅所限未注入：#{left.id} 提交前先跑测试" in receipt
    assert "另有 2 条其他仓库的记忆匹配，未注入。" in receipt
    view.receipt.close()

    view.table.doubleClicked.emit(model.index(0, 0))  # the reminder row, from the table itself
    _settle(qtbot, view)
    assert "（没有记忆：memevo 的学习提醒）" in view.receipt.text.toPlainText()


def test_the_panel_fits_a_1366_px_screen_whatever_undo_names(
    qtbot, host: ServiceHost, clock: FakeClock
) -> None:
    """Issue 48, item 4: the Undo button took the last action's label and the window widened to
    fit it (1224 → 1334 px), pushing Refresh and the close button off a 1366-px screen."""
    from memevo.desktop.undo import Undo

    panel = Panel(host)
    qtbot.addWidget(panel)
    panel.resize(1100, 680)
    panel.show()
    _settle(qtbot, panel.memories)
    view = panel.memories
    narrowest = panel.minimumSizeHint().width()
    assert narrowest <= 1000  # room to spare at x=60 on a 1366-px screen
    undo = view.buttons["undo"]
    width = undo.width()
    label = "merge into #135f872c, with a long text of the merged memory after it"
    view.memory_actions.undo_stack = [Undo(label, [])]
    view.show_undo()
    qtbot.wait(20)
    assert undo.width() == width and panel.minimumSizeHint().width() == narrowest
    assert panel.width() == 1100
    assert undo.text().endswith("…") and undo.fontMetrics().horizontalAdvance(undo.text()) < width
    assert undo.toolTip() == tr("Undo: {what}").format(what=label)  # all of it on hover
    view.memory_actions.undo_stack = [Undo("edit #135f872c", [])]
    view.show_undo()
    assert undo.text() == tr("Undo: {what}").format(what="edit #135f872c")  # a short one is whole


def test_chinese_texts_wrap_like_english_and_the_edit_dialog_wraps(
    qtbot, host: ServiceHost, clock: FakeClock
) -> None:
    """Issue 48, items 16 and 10: a long Chinese text was cut with "…" on one line where an
    English one wrapped; the Edit dialog was ~300 px wide, one line with a scroll bar."""
    from memevo.desktop import memories_dialogs as dialogs
    from memevo.desktop.qt import QPlainTextEdit, QRect

    view = _view(qtbot, host)
    metrics = view.table.fontMetrics()
    two_lines = metrics.boundingRect(QRect(0, 0, 2000, 2000), int(Qt.TextFlag.TextWordWrap), "中文\n中文")
    assert view.table.verticalHeader().defaultSectionSize() >= two_lines.height()

    text = "在这个仓库里写提交信息时一律使用祈使语气，第一行不超过七十个字符，然后空一行，正文解释为什么"
    dialog = dialogs.text_dialog(view, "Edit", "New text of #1 (confidence unchanged):", text)
    qtbot.addWidget(dialog)
    dialog.show()
    edit = dialog.text_edit
    assert dialog.width() >= 520 and edit.toPlainText() == text
    assert edit.lineWrapMode() == QPlainTextEdit.LineWrapMode.WidgetWidth
    assert not edit.horizontalScrollBar().isVisible()
