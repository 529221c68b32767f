"""Consolidation in process, on a real store and the real model: planted near-duplicates and
contradictions are found and proposed, nothing changes until the user answers, an answer applies
once and keeps history, a declined cluster is not proposed again until a member changes; the shipped
thresholds are what the calibration chooses; the bulk search stays bounded on 10k memories."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest
from memevo.core.clock import FakeClock
from memevo.core.consolidation import calibrate, find, proposals, signals
from memevo.core.consolidation import run as consolidation
from memevo.core.consolidation.thresholds import for_model
from memevo.core.errors import InvalidInput
from memevo.core.learning import jobs, resolve, stop
from memevo.core.memories import history as memory_history
from memevo.core.memories import live as memories
from memevo.core.memories import trash as memory_trash
from memevo.core.recall.engine import RecallEngine
from memevo.core.store.database import Store

PLANTED = {
    "dup_a": ("project", "The API server listens on port 8080"),
    "dup_b": ("project", "API server port: 8080"),
    "flag_a": ("project", "支付页新流程的灰度开关是 pay_new_flow_v2"),
    "flag_b": ("project", "pay_new_flow_v2 是支付页新流程的灰度开关"),
    "zh": ("rule", "回答用中文"),
    "en": ("rule", "回答用英文"),
    "deploy": ("project", "部署脚本在 scripts/deploy.sh"),
    "commit": ("rule", "Write commit messages in English"),
    "indent": ("rule", "代码缩进用 4 个空格"),
}


@pytest.fixture
def planted(store: Store, encoder: Any) -> Iterator[tuple[Store, FakeClock, RecallEngine, dict[str, str]]]:
    clock = FakeClock(datetime(2026, 12, 1, 9, tzinfo=UTC))
    ids = {}
    for name, (category, text) in PLANTED.items():
        ids[name] = memories.create(store, category, text, clock).id
        clock.advance(minutes=1)  # 英文 is said after 中文: the newer word comes first
    yield store, clock, RecallEngine(store, encoder, clock), ids


def _texts(store: Store) -> dict[str, str]:
    return {m.id: m.text for m in memories.live(store)}


def _proposed(store: Store) -> dict[frozenset[str], jobs.Job]:
    return {
        frozenset(m["id"] for m in (job.proposal or {})["members"]): job
        for job in jobs.pending(store)
        if proposals.is_consolidation(job.proposal)
    }


def test_planted_duplicates_and_contradictions_are_proposed_and_nothing_changes(planted: Any) -> None:
    store, clock, engine, ids = planted
    before = _texts(store)
    report = consolidation.run(store, clock, engine)
    found = _proposed(store)
    assert frozenset({ids["dup_a"], ids["dup_b"]}) in found
    assert frozenset({ids["flag_a"], ids["flag_b"]}) in found
    contradiction = found[frozenset({ids["zh"], ids["en"]})]
    assert contradiction.proposal is not None and contradiction.proposal["kind"] == "contradiction"
    assert contradiction.proposal["conflict"] == "language"
    # the newer statement is offered first; no merged text without a side model: pick one
    assert contradiction.proposal["options"] == [f"keep:{ids['en']}", f"keep:{ids['zh']}", "discard"]
    assert not any(ids[name] in members for members in found for name in ("deploy", "commit", "indent"))
    assert report["duplicates"] >= 2 and report["contradictions"] >= 1
    assert _texts(store) == before and memories.trash_list(store) == []  # proposals only
    # the in-chat question and `memevo pending` name every member and the choices
    asked = stop.confirm_instruction("claude", contradiction)
    assert "回答用中文" in asked and "回答用英文" in asked and f"keep:{ids['en']}" in asked
    assert "用户原话" not in asked
    again = consolidation.run(store, clock, engine)
    assert again["proposed"] == [] and again["skipped"]["proposed_before"] == len(report["proposed"])


def test_keep_applies_exactly_once_and_the_trash_keeps_the_other(planted: Any) -> None:
    store, clock, engine, ids = planted
    consolidation.run(store, clock, engine)
    job = _proposed(store)[frozenset({ids["zh"], ids["en"]})]
    result = resolve.resolve(store, clock, "cursor", job.id, f"keep:{ids['en']}")  # any client's chat
    assert result["action"] == "keep" and result["deleted"] == [ids["zh"]]
    live = _texts(store)
    assert live[ids["en"]] == "回答用英文" and ids["zh"] not in live
    [trashed] = memories.trash_list(store)
    assert trashed.memory.id == ids["zh"] and trashed.reason == f"consolidated: kept {ids['en']}"
    with pytest.raises(resolve.ResolveRejected, match="already handled"):
        resolve.resolve(store, clock, proposals.CLIENT, job.id, f"keep:{ids['zh']}")
    assert _texts(store) == live and len(memories.trash_list(store)) == 1
    memory_trash.restore(store, ids["zh"])  # history kept: it comes back as it was
    assert _texts(store)[ids["zh"]] == "回答用中文"


def test_merge_takes_the_side_models_text_and_keeps_the_old_ones(planted: Any) -> None:
    store, clock, engine, ids = planted
    written: list[list[str]] = []

    def merge_text(members: list[memories.Memory]) -> str:
        written.append([m.text for m in members])
        return "API 服务器监听 8080 端口（The API server listens on port 8080）"

    consolidation.run(store, clock, engine, merge_text)
    job = _proposed(store)[frozenset({ids["dup_a"], ids["dup_b"]})]
    assert job.proposal is not None and job.proposal["options"][0] == "merge"
    assert sorted(map(sorted, written)) == sorted(
        map(
            sorted, [[PLANTED["dup_a"][1], PLANTED["dup_b"][1]], [PLANTED["flag_a"][1], PLANTED["flag_b"][1]]]
        )
    )
    keep = job.proposal["target"]
    other = ({ids["dup_a"], ids["dup_b"]} - {keep}).pop()
    old_text = _texts(store)[keep]
    result = resolve.resolve(store, clock, proposals.CLIENT, job.id, resolve.default_decision(job.proposal))
    assert result["action"] == "merge" and result["deleted"] == [other]
    assert _texts(store)[keep] == job.proposal["merged_text"] and other not in _texts(store)
    _, versions = memory_history.history(store, keep)
    assert [v.text for v in versions] == [old_text] or old_text == job.proposal["merged_text"]
    assert [t.memory.id for t in memories.trash_list(store)] == [other]


def test_a_declined_cluster_is_not_proposed_again_until_a_member_changes(planted: Any) -> None:
    store, clock, engine, ids = planted
    consolidation.run(store, clock, engine)
    pair = frozenset({ids["zh"], ids["en"]})
    job = _proposed(store)[pair]
    before = _texts(store)
    assert resolve.resolve(store, clock, proposals.CLIENT, job.id, "discard")["action"] == "discard"
    assert _texts(store) == before
    # past the job's 24 h tombstone, the declined key alone keeps it from coming back
    with store.transaction() as con:
        con.execute("DELETE FROM side_jobs WHERE id = ?", [job.id])
    again = consolidation.run(store, clock, engine)
    assert again["skipped"]["declined"] == 1 and pair not in _proposed(store)
    memories.replace_text(store, ids["en"], "回答用英文。", clock)  # a member changed (its text)
    third = consolidation.run(store, clock, engine)
    assert pair in _proposed(store) and third["proposed"]


def test_a_member_changed_before_the_answer_voids_the_proposal(planted: Any) -> None:
    store, clock, engine, ids = planted
    consolidation.run(store, clock, engine)
    job = _proposed(store)[frozenset({ids["zh"], ids["en"]})]
    memories.replace_text(store, ids["zh"], "回答用简体中文", clock)
    before = _texts(store)
    with pytest.raises(resolve.ResolveRejected, match="changed since this was proposed"):
        resolve.resolve(store, clock, proposals.CLIENT, job.id, f"keep:{ids['en']}")
    assert _texts(store) == before
    voided = jobs.get(store, job.id)
    assert voided is not None and voided.status == "voided"


def test_a_decision_never_offered_is_refused(planted: Any) -> None:
    store, clock, engine, ids = planted
    consolidation.run(store, clock, engine)
    job = _proposed(store)[frozenset({ids["zh"], ids["en"]})]
    for wrong in ("merge", f"keep:{ids['deploy']}", "create_rule", "replace"):
        with pytest.raises(resolve.ResolveRejected, match="was not offered"):
            resolve.resolve(store, clock, proposals.CLIENT, job.id, wrong)
    assert memories.trash_list(store) == []


def test_the_shipped_thresholds_are_what_the_calibration_chooses(encoder: Any) -> None:
    pairs = calibrate.measure(encoder, calibrate.load(calibrate.shipped_pairs()))
    chosen = calibrate.choose(pairs)
    assert for_model(encoder.model_id) == chosen
    figures = calibrate.figures(pairs, chosen)
    assert figures["duplicates_found"] >= 0.8 * figures["duplicates"]
    assert figures["contradictions_found"] >= 0.85 * figures["contradictions"]
    assert figures["wrong_duplicate"] + figures["wrong_contradiction"] <= 2
    held_out = calibrate.cross_validate(pairs, 5, 0)
    assert held_out["duplicates_found"] >= 0.7 * held_out["duplicates"]
    assert held_out["wrong_duplicate"] + held_out["wrong_contradiction"] <= 5


# -- without the model -----------------------------------------------------------------------------
def test_the_bulk_search_is_bounded_on_10k_memories() -> None:
    """10k random memories with five planted near-copies and one memory of another scope:
    the planted pairs come back, the other scope never, in seconds, at most MAX_PAIRS pairs."""
    rng = np.random.default_rng(7)
    n, dim = 10_000, 384
    matrix = rng.standard_normal((n, dim)).astype(np.float32)
    planted = [(10 * k, 10 * k + 5000) for k in range(5)]
    for i, j in planted:
        matrix[j] = matrix[i] + 0.05 * rng.standard_normal(dim).astype(np.float32)
    matrix[9999] = matrix[0] + 0.01 * rng.standard_normal(dim).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    groups = np.zeros(n, dtype=np.int64)
    groups[9999] = 1  # another repository's
    started = time.monotonic()
    pairs = find.candidate_pairs(matrix, groups, floor=0.5)
    assert time.monotonic() - started < 20
    assert {(i, j) for i, j, _ in pairs} == set(planted)
    capped = find.candidate_pairs(matrix, groups, floor=-1.0, max_pairs=100)
    assert len(capped) == 100 and capped[0][2] >= capped[-1][2]


def test_clusters_stop_at_their_size_limit() -> None:
    chain = [(i, i + 1, 0.99 - i * 0.001) for i in range(20)]
    clusters = find._clusters(chain)
    assert clusters and all(len(rows) <= find.MAX_CLUSTER for rows, _ in clusters)


@pytest.mark.parametrize(
    ("a", "b", "conflict"),
    [
        ("回答用中文", "回答用英文", "language"),
        ("The API listens on port 8080", "The API listens on port 9090", "number"),
        ("灰度开关是 pay_new_flow_v2", "灰度开关是 pay_new_flow_v3", "name"),
        ("Use tabs for indentation", "Use spaces for indentation", "indent"),
        ("改完代码不要自动 commit", "改完代码后自动 commit", "negation"),
        ("代码评审需要两个人批准", "代码评审需要一个人批准", "number"),
        ("The API listens on port 8080", "API port: 8080", None),
        ("部署脚本在 scripts/deploy.sh", "用 scripts/deploy.sh 部署", None),
        ("Redis on port 6379", "Redis on port 6379 and Postgres on port 5432", None),  # added, not changed
    ],
)
def test_conflicts(a: str, b: str, conflict: str | None) -> None:
    assert signals.compare(signals.read(a), signals.read(b)).conflict == conflict


def test_reading_is_bounded_on_hostile_text() -> None:
    started = time.monotonic()
    for hostile in ("a_" * 200_000, "中文" * 200_000, "不要" * 200_000, "1." * 200_000):
        signals.read(hostile)
    assert time.monotonic() - started < 5


def test_the_confirmation_dialog_offers_the_members(qtbot: Any, planted: Any) -> None:
    """The tray's dialog shows a consolidation as one: its members, a button to keep each (the
    others to the trash) and one to keep them all; no editor without a merged text. With one,
    the editor holds it and merge comes first. The chosen decision is what the dialog emits."""
    from memevo.desktop.confirm import ConfirmDialog

    store, clock, engine, ids = planted
    consolidation.run(store, clock, engine)
    job = _proposed(store)[frozenset({ids["zh"], ids["en"]})]
    dialog = ConfirmDialog(job)
    qtbot.addWidget(dialog)
    labels = [b.text() for b in dialog.buttons.values()]
    assert labels == [  # each memory by its id and its text
        f"保留 #{ids['en']}「回答用英文」，其余移到回收站",
        f"保留 #{ids['zh']}「回答用中文」，其余移到回收站",
        "都保留（不再询问）",
    ]
    assert dialog.buttons[f"keep:{ids['en']}"].toolTip() == "回答用英文"
    assert dialog.pick_buttons == {}  # a contradiction is not merged
    assert dialog.windowTitle() == "memevo · 整理记忆" and "互相矛盾" in dialog.heading_label.text()
    assert "回答用中文" in dialog.proposal_label.text() and "回答用英文" in dialog.proposal_label.text()
    assert dialog.editor.isHidden() and all(b.isEnabled() for b in dialog.buttons.values())
    assert (
        dialog.client_label.isHidden() and dialog.session_label.isHidden() and dialog.words_label.isHidden()
    )
    assert dialog.proposer_label.text() == "memevo 的记忆整理"
    with qtbot.waitSignal(dialog.decided) as decided:
        dialog.buttons[f"keep:{ids['zh']}"].click()
    assert decided.args == [job.id, f"keep:{ids['zh']}", "回答用英文"]

    merged = dict(job.proposal or {}) | {"merged_text": "回答一律用中文", "options": ["merge", "discard"]}
    jobs.update(store, job.id, clock.now_ms(), proposal=merged)
    again = jobs.get(store, job.id)
    assert again is not None
    with_text = ConfirmDialog(again)
    qtbot.addWidget(with_text)
    assert not with_text.editor.isHidden() and with_text.text() == "回答一律用中文"
    assert [b.text() for b in with_text.buttons.values()] == [
        f"合并到 #{ids['en']}，其余移到回收站",
        "都保留（不再询问）",
    ]


def test_with_a_side_api_the_side_model_writes_the_merged_text(side_host: Any) -> None:
    """The service's `consolidate` asks the configured side API (learning's client, redacted,
    counted in its daily limit) for a duplicate cluster's merged text; the user's merge
    through side.resolve writes it into the first member and trashes the other."""
    from fake_openai import FakeOpenAI
    from memevo.core import config as config_mod
    from memevo.core.consolidation.merge_writer import MERGE_SYSTEM

    clock = side_host.clock
    store = side_host.store
    first = memories.create(store, "project", "The API server listens on port 8080", clock)
    second = memories.create(store, "project", "API server port: 8080", clock)
    memories.create(store, "rule", "Write commit messages in English", clock)
    side_host.engine.sync_all()
    server = FakeOpenAI(lambda body: ("json", {"text": "API 服务器监听 8080 端口"}))
    try:
        config_mod.set_key("sideApiBase", server.base)
        config_mod.set_key("sideApiModel", "judge-mini")
        report = side_host.handle("consolidate", {})
        asked = [r for r in server.requests if r["messages"][0]["content"] == MERGE_SYSTEM]
    finally:
        server.close()
    assert len(report["proposed"]) == 1 and len(asked) == 1
    assert {first.text, second.text} <= set(
        asked[0]["messages"][1]["content"].splitlines()[i][2:] for i in (0, 1)
    )
    job = jobs.get(store, report["proposed"][0])
    assert job is not None and job.proposal is not None
    assert job.proposal["merged_text"] == "API 服务器监听 8080 端口" and job.proposal["options"][0] == "merge"
    assert _texts(store)[first.id] == first.text  # nothing yet
    result = side_host.handle(  # the tray's dialog: the user's click
        "side_resolve",
        {"client": proposals.CLIENT, "sessionID": job.id, "decision": "merge", "from_dialog": True},
    )
    keep = job.proposal["target"]
    gone = ({first.id, second.id} - {keep}).pop()
    assert result["action"] == "merge" and _texts(store)[keep] == "API 服务器监听 8080 端口"
    assert gone not in _texts(store) and [t.memory.id for t in memories.trash_list(store)] == [gone]
    assert side_host.engine.index.text(gone) is None  # the recall index followed


def test_headless_the_next_chat_that_stops_asks_once_and_its_answer_applies(model_host: Any) -> None:
    """No desktop: a consolidation waits for the next Stop of any client's session, whose
    continuation asks the user, once; the model cannot answer it (memory_resolve is refused),
    the user's reply in that chat does, though the proposal is no client's own."""
    store, clock = model_host.store, model_host.clock
    zh = memories.create(store, "rule", "回答用中文", clock)
    clock.advance(minutes=1)
    en = memories.create(store, "rule", "回答用英文", clock)
    model_host.engine.sync_all()
    report = model_host.handle("consolidate", {})
    assert len(report["proposed"]) == 1 and report["desktop"] is False
    stop_params = {"client": "claude", "flavor": "claude", "session": "sess-1"}
    text = model_host.handle("hook_stop", stop_params)["context"]
    assert text.startswith("MEMORY_CONFIRM_V1") and report["proposed"][0] in text
    assert f"1. 保留 #{en.id}，其余移到回收站（keep:{en.id}）" in text
    assert "回答用中文" in text and "都保留，不再提议" in text
    assert not model_host.handle("hook_stop", stop_params | {"session": "sess-2"}).get("context")  # once
    with pytest.raises(InvalidInput, match="只能由用户自己确认"):
        model_host.handle(
            "side_resolve",
            {"client": "claude", "sessionID": report["proposed"][0], "decision": f"keep:{en.id}"},
        )
    bare = model_host.handle("hook_prompt", stop_params | {"prompt": "1", "kind": "user"})  # a number only
    assert "只回编号" in bare["context"] and zh.id in _texts(store)  # a save needs the option's words
    answer = {"prompt": f"保留 #{en.id}，其余移到回收站", "kind": "user"}  # the user, naming it
    reply = model_host.handle("hook_prompt", stop_params | answer)
    assert f"保留记忆 #{en.id}" in reply["context"]
    assert zh.id not in _texts(store) and _texts(store)[en.id] == "回答用英文"


def test_the_panels_tidy_up_button_proposes_and_changes_nothing(qtbot: Any, model_host: Any) -> None:
    from memevo.desktop.memories_view import MemoriesView

    store, clock = model_host.store, model_host.clock
    for text in ("回答用中文", "回答用英文", "Write commit messages in English"):
        memories.create(store, "rule", text, clock)
        clock.advance(minutes=1)
    model_host.engine.sync_all()
    before = _texts(store)
    view = MemoriesView(model_host)
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: not view.worker.busy, timeout=30_000)
    assert view.buttons["tidy"].text() == "整理记忆" and view.buttons["tidy"].isEnabled()
    view.buttons["tidy"].click()
    qtbot.waitUntil(lambda: not view.worker.busy and "确认弹窗" in view.last_message, timeout=30_000)
    assert view.last_message == "找到 0 组近似重复、1 处矛盾；1 条新提议在确认弹窗里等你决定。"
    assert len(_proposed(store)) == 1 and _texts(store) == before


def test_two_answers_at_once_apply_one(planted: Any) -> None:
    """The dialog and a terminal answering together: one applies, the other is refused."""
    import threading

    store, clock, engine, ids = planted
    consolidation.run(store, clock, engine)
    job = _proposed(store)[frozenset({ids["zh"], ids["en"]})]
    outcomes: list[str] = []
    start = threading.Barrier(2)

    def answer(keep: str) -> None:
        start.wait()
        try:
            outcomes.append(resolve.resolve(store, clock, proposals.CLIENT, job.id, f"keep:{keep}")["action"])
        except resolve.ResolveRejected as exc:
            outcomes.append(str(exc))

    threads = [threading.Thread(target=answer, args=(ids[k],)) for k in ("zh", "en")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(outcomes)[0] == "keep" and "already handled" in sorted(outcomes)[1]
    assert len(memories.trash_list(store)) == 1
    done = jobs.get(store, job.id)
    assert done is not None and done.status == "done"


def test_a_slow_side_model_costs_the_pass_its_budget_only(side_host: Any) -> None:
    """On demand the merged texts share a budget (the callers wait): past it a proposal has no
    merged text and offers the members' texts to keep."""
    from fake_openai import FakeOpenAI
    from memevo.core import config as config_mod
    from memevo.core.service import consolidateops

    clock, store = side_host.clock, side_host.store
    members = [memories.create(store, "project", t, clock) for t in ("API server port: 8080", "端口 8080")]
    server = FakeOpenAI(lambda body: ("sleep", 5))
    try:
        config_mod.set_key("sideApiBase", server.base)
        config_mod.set_key("sideApiModel", "judge-mini")
        write = consolidateops.merge_text_writer(side_host.ctx, 1.0)
        assert write is not None
        started = time.monotonic()
        assert write(members) is None and write(members) is None
        assert time.monotonic() - started < 3
    finally:
        server.close()


# -- the day's pass waits for a pause in the requests --------------------------------------------
class _Quiet:
    """What wait_until_quiet reads of the service's context."""

    def __init__(self) -> None:
        import threading

        self.closed = threading.Event()
        self.last_request = time.monotonic()


def test_the_days_pass_waits_for_a_pause_in_the_requests() -> None:
    import threading

    from memevo.core.service.consolidateops import wait_until_quiet

    ctx = _Quiet()
    started = time.monotonic()
    assert wait_until_quiet(ctx, quiet_s=0.4, most_s=10)  # type: ignore[arg-type]
    assert 0.4 <= time.monotonic() - started < 5

    busy = threading.Event()

    def requests() -> None:  # a session at work: a request every 0.1 s
        while not busy.is_set():
            ctx.last_request = time.monotonic()
            time.sleep(0.1)

    worker = threading.Thread(target=requests)
    worker.start()
    try:
        started = time.monotonic()
        assert wait_until_quiet(ctx, quiet_s=0.5, most_s=1.5)  # type: ignore[arg-type]
        assert time.monotonic() - started >= 1.5  # never quiet: it waited its longest, then ran
    finally:
        busy.set()
        worker.join()

    ctx.last_request = time.monotonic()
    threading.Timer(0.3, ctx.closed.set).start()
    started = time.monotonic()
    assert not wait_until_quiet(ctx, quiet_s=60, most_s=120)  # type: ignore[arg-type]
    assert time.monotonic() - started < 5  # the service closed: no pass, no minute-long wait


def test_without_a_side_api_the_dialog_merges_by_hand(qtbot: Any, planted: Any) -> None:
    """Near-duplicates with no side model's merged text: the dialog asks "merge, or keep one?"
    and offers both — a merge into the first member with a text the user picks from a member
    (or edits), keep one, keep all. The chat, which cannot edit a text, is not offered a merge;
    a model or `memevo pending` naming one is refused."""
    from memevo.desktop.confirm import ConfirmDialog
    from memevo.desktop.confirm_texts import result as worded

    store, clock, engine, ids = planted
    consolidation.run(store, clock, engine)  # no merge_text: no side API
    job = _proposed(store)[frozenset({ids["dup_a"], ids["dup_b"]})]
    assert job.proposal is not None and "merge" not in job.proposal["options"]
    assert "合并为一条" not in stop.confirm_instruction("claude", job)
    with pytest.raises(resolve.ResolveRejected, match="not offered"):
        resolve.resolve(store, clock, proposals.CLIENT, job.id, "merge")  # no text: not the dialog
    dialog = ConfirmDialog(job)
    qtbot.addWidget(dialog)
    keep = str(job.proposal["target"])
    other = ({ids["dup_a"], ids["dup_b"]} - {keep}).pop()
    assert "合并成一条" in dialog.heading_label.text()
    assert list(dialog.buttons) == ["merge", f"keep:{keep}", f"keep:{other}", "discard"]
    assert not dialog.editor.isHidden() and dialog.text() == _texts(store)[keep]
    assert set(dialog.pick_buttons) == {keep, other}
    dialog.pick_buttons[other].click()  # the other member's text
    assert dialog.text() == _texts(store)[other]
    assert dialog.pick_buttons[other].toolTip() == _texts(store)[other]
    dialog.editor.setPlainText("The API server listens on port 8080 (API server port)")
    with qtbot.waitSignal(dialog.decided) as decided:
        dialog.buttons["merge"].click()
    assert decided.args == [job.id, "merge", "The API server listens on port 8080 (API server port)"]
    done = resolve.resolve(store, clock, proposals.CLIENT, job.id, "merge", decided.args[2])  # side_resolve
    assert done["action"] == "merge" and done["deleted"] == [other]
    assert _texts(store)[keep] == decided.args[2] and other not in _texts(store)
    assert worded(done) == (f"合并为记忆 #{keep}：{decided.args[2]}\n其余 1 条已移到回收站（可恢复）。")
