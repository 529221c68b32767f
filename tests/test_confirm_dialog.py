"""The native confirmation dialog and its queue (pytest-qt, offscreen), against a real store."""

from __future__ import annotations

import pytest
from deadlines import HANG_MS
from memevo.core.clock import FakeClock
from memevo.core.learning import jobs
from memevo.core.memories import live as memories
from memevo.core.service.host import ServiceHost
from memevo.core.store.database import Store
from memevo.desktop.confirm import ConfirmDialog, ConfirmQueue


def settle(qtbot, queue: ConfirmQueue) -> None:  # type: ignore[no-untyped-def]
    """The queue reads and writes the store on its worker: wait until it has nothing left to do."""
    qtbot.waitUntil(lambda: not queue.busy, timeout=HANG_MS)


def _ready(
    store: Store, clock: FakeClock, job_id: str, proposal: dict, client: str = "claude", session: str = "s"
) -> jobs.Job:
    jobs.create(store, job_id, client, session, None, "以后回答我都用中文", clock.now_ms())
    jobs.update(store, job_id, clock.now_ms(), status="ready", proposal=proposal | {"options": []})
    job = jobs.get(store, job_id)
    assert job is not None
    return job


CREATE = {"text": "回答问题时一律使用中文", "category": "rule", "action": "create"}


def test_only_the_offered_choices_are_buttons(qtbot, store: Store, clock: FakeClock) -> None:
    target = memories.create(store, "rule", "回答用中文回答", clock)
    merge = CREATE | {
        "action": "merge",
        "target": target.id,
        "target_text": target.text,
        "merged_text": "回答问题时一律使用中文，代码注释也用中文",
    }
    dialog = ConfirmDialog(_ready(store, clock, "j-merge", merge))
    qtbot.addWidget(dialog)
    labels = [b.text() for b in dialog.buttons.values()]
    assert labels == ["保存为规则", "保存为项目事实", f"合并到已有记忆 #{target.id}", "不保存"]
    assert dialog.text() == merge["merged_text"]
    assert dialog.windowTitle() == "memevo · 确认一条新记忆"  # names memevo
    from PySide6.QtCore import Qt

    assert dialog.testAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)  # never steals focus


@pytest.mark.parametrize(
    ("client", "who"),
    [("claude", "Claude Code"), ("cursor", "Cursor"), ("codebuddy", "CodeBuddy"), ("workbuddy", "WorkBuddy")],
)
def test_a_client_models_proposal_names_its_client(
    qtbot, store: Store, clock: FakeClock, client: str, who: str
) -> None:
    proposal = CREATE | {"origin": "client", "verified_words": True}
    dialog = ConfirmDialog(_ready(store, clock, f"j-{client}", proposal, client=client))
    qtbot.addWidget(dialog)
    assert dialog.proposer_label.text() == f"{who} 自己的模型"
    assert dialog.client_label.text() == who
    assert dialog.unverified_label.isHidden()  # the quoted words are the user's own


def test_the_side_judges_proposal_says_so(qtbot, store: Store, clock: FakeClock) -> None:
    dialog = ConfirmDialog(_ready(store, clock, "j-side", CREATE))  # no origin: the side judge's
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.proposer_label.text() == "旁路模型"
    assert not dialog.unverified_label.isVisible()


def test_words_the_user_never_typed_are_warned_about(qtbot, store: Store, clock: FakeClock) -> None:
    proposal = CREATE | {"origin": "client", "verified_words": False}
    dialog = ConfirmDialog(_ready(store, clock, "j-unverified", proposal, client="cursor"))
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.proposer_label.text() == "Cursor 自己的模型"
    assert dialog.unverified_label.isVisible()
    assert dialog.unverified_label.text() == "在本会话里你输入的内容中没有找到这段原话——保存前请核对。"
    assert dialog.buttons["create_rule"].isEnabled()  # the user decides, warned


def test_the_users_edit_is_checked_for_length(qtbot, store: Store, clock: FakeClock) -> None:
    dialog = ConfirmDialog(_ready(store, clock, "j1", CREATE))
    qtbot.addWidget(dialog)
    dialog.editor.setPlainText("短")
    assert not dialog.buttons["create_rule"].isEnabled() and dialog.buttons["discard"].isEnabled()
    dialog.editor.setPlainText("回答问题和写注释都用中文")
    assert dialog.buttons["create_rule"].isEnabled()
    with qtbot.waitSignal(dialog.decided) as signal:
        dialog.buttons["create_project"].click()
    assert signal.args == ["j1", "create_project", "回答问题和写注释都用中文"]


def test_closing_decides_nothing(qtbot, store: Store, clock: FakeClock) -> None:
    dialog = ConfirmDialog(_ready(store, clock, "j2", CREATE))
    qtbot.addWidget(dialog)
    dialog.show()
    with qtbot.waitSignal(dialog.dismissed) as signal:
        dialog.close()
    assert signal.args == ["j2"]
    assert memories.counts(store)["rule"]["live"] == 0


def test_the_queue_shows_each_proposal_and_writes_the_answer(
    qtbot, host: ServiceHost, store: Store, clock: FakeClock
) -> None:
    _ready(store, clock, "a", CREATE, session="s1")
    _ready(
        store,
        clock,
        "b",
        CREATE | {"text": "支付页新流程的灰度开关是 pay_new_flow_v2", "category": "project"},
        client="cursor",
        session="s9",
    )
    queue = ConfirmQueue(host)
    queue.poll()
    settle(qtbot, queue)
    assert queue.current is not None and queue.current.job.id == "a" and list(queue.waiting) == ["b"]
    assert jobs.get(store, "a").status == "shown"  # type: ignore[union-attr]
    messages: list[str] = []
    queue.resolved.connect(lambda _id, message: messages.append(message))
    queue.current.buttons["create_rule"].click()
    qtbot.waitUntil(lambda: queue.current is not None, timeout=HANG_MS)
    assert queue.current is not None and queue.current.job.id == "b"  # the next one, none lost
    queue.current.editor.setPlainText("支付页新流程的灰度开关是 pay_new_flow_v3")
    queue.current.buttons["create_project"].click()
    settle(qtbot, queue)
    assert queue.current is None
    qtbot.waitUntil(lambda: len(messages) == 2, timeout=30_000)  # written on the worker thread
    assert [m.text for m in memories.ranked(store, "rule")] == ["回答问题时一律使用中文"]
    assert [m.text for m in memories.ranked(store, "project")] == ["支付页新流程的灰度开关是 pay_new_flow_v3"]
    # worded by the dialog's own catalogue from the result's fields, not core's chat message
    assert messages[0].startswith("新增记忆 #") and messages[0].endswith("分组：规则与偏好（rule）")
    assert messages[1].endswith("：支付页新流程的灰度开关是 pay_new_flow_v3\n分组：项目事实（project）")


def test_a_proposal_shown_by_an_earlier_tray_comes_back_by_itself(
    qtbot, host: ServiceHost, store: Store, clock: FakeClock
) -> None:
    """The tray app quit (or was restarted) with a dialog open: the next tray's queue shows it
    again at its first look, without the user going to the menu."""
    _ready(store, clock, "left", CREATE)
    jobs.update(store, "left", clock.now_ms(), status="shown", shown_ms=clock.now_ms())
    queue = ConfirmQueue(host)
    queue.poll()
    settle(qtbot, queue)
    assert queue.current is not None and queue.current.job.id == "left"


def test_a_new_proposal_voids_the_shown_unanswered_one_of_its_session(
    qtbot, host: ServiceHost, store: Store, clock: FakeClock
) -> None:
    _ready(store, clock, "old", CREATE)
    queue = ConfirmQueue(host)
    queue.poll()
    settle(qtbot, queue)
    queue.current.close()  # type: ignore[union-attr]
    assert jobs.get(store, "old").status == "shown"  # type: ignore[union-attr]
    _ready(store, clock, "new", CREATE | {"text": "回答问题时一律使用简体中文"})  # announced: no poll
    settle(qtbot, queue)
    assert jobs.get(store, "old").status == "voided"  # type: ignore[union-attr]
    assert queue.current is not None and queue.current.job.id == "new"


def test_results_written_without_confirmation_are_announced_once(
    qtbot, host: ServiceHost, store: Store, clock: FakeClock
) -> None:
    jobs.create(store, "w", "claude", "s", None, "words", clock.now_ms())
    jobs.update(
        store,
        "w",
        clock.now_ms(),
        status="applied",
        result={"message": "新增记忆 #x\n归类：rule（规则与偏好）"},
    )
    queue = ConfirmQueue(host)
    seen: list[str] = []
    queue.resolved.connect(lambda _id, message: seen.append(message))
    queue.poll()
    queue.poll()
    settle(qtbot, queue)
    assert seen == ["新增记忆 #x\n归类：rule（规则与偏好）"]
