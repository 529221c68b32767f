"""Every confidence rule of the seed, one test each, against a real DuckDB file and a fake clock."""

from __future__ import annotations

import contextlib

from memevo.core import config as config_mod
from memevo.core.clock import FakeClock
from memevo.core.memories import confidence as conf
from memevo.core.memories import live as memories
from memevo.core.memories import maintenance
from memevo.core.store.database import Store


def _conf(store: Store, memory_id: str) -> int:
    return memories.get(store, memory_id).confidence


def test_new_memory_starts_at_half_whatever_happens(store: Store, clock: FakeClock) -> None:
    made = memories.create(store, "rule", "所有异常处理处都需要添加日志", clock)
    assert made.confidence == 50
    assert memories.get(store, made.id).confidence == 50
    assert made.as_json()["confidence"] == 0.5


def test_creation_day_counts_as_already_awarded(store: Store, clock: FakeClock) -> None:
    made = memories.create(store, "rule", "改完代码不要自动 commit", clock)
    clock.advance(hours=3)
    assert memories.award_recall(store, [made.id], clock) == {}
    _, gained = memories.reinforce(store, made.id, clock)
    assert gained == 0
    assert _conf(store, made.id) == 50
    clock.advance(days=1)
    _, gained = memories.reinforce(store, made.id, clock)
    assert gained == 10
    assert _conf(store, made.id) == 60


def test_recall_awards_five_hundredths_per_hit_once(store: Store, clock: FakeClock) -> None:
    a = memories.create(store, "rule", "回答用中文回答", clock)
    b = memories.create(store, "project", "支付页新流程的灰度开关是 pay_v2", clock)
    untouched = memories.create(store, "rule", "不要在周五发布", clock)
    clock.advance(days=1)
    gained = memories.award_recall(store, [a.id, a.id, b.id, "missing"], clock)
    assert gained == {a.id: 5, b.id: 5}
    assert (_conf(store, a.id), _conf(store, b.id), _conf(store, untouched.id)) == (55, 55, 50)
    # Second recall the same day: the recall tier is already full.
    assert memories.award_recall(store, [a.id], clock) == {}
    assert _conf(store, a.id) == 55


def test_restated_memory_recalled_then_reinforced_gets_only_the_difference(
    store: Store, clock: FakeClock
) -> None:
    m = memories.create(store, "rule", "提交信息用英文写", clock)
    clock.advance(days=2)
    memories.award_recall(store, [m.id], clock)
    _, gained = memories.reinforce(store, m.id, clock)
    assert gained == 5
    assert _conf(store, m.id) == 60
    _, gained = memories.reinforce(store, m.id, clock)
    assert gained == 0
    assert _conf(store, m.id) == 60


def test_reinforce_first_then_recall_adds_nothing_more(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "rule", "提交信息用英文写", clock)
    clock.advance(days=1)
    memories.reinforce(store, m.id, clock)
    assert memories.award_recall(store, [m.id], clock) == {}
    assert _conf(store, m.id) == 60


def test_hundredths_are_exact(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "rule", "exact arithmetic please", clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 45 WHERE id = ?", [m.id])
    for _ in range(3):
        clock.advance(days=1)
        memories.award_recall(store, [m.id], clock)
    value = memories.get(store, m.id).as_json()["confidence"]
    assert value == 0.6
    assert repr(value) == "0.6"


def test_cap_is_one_and_first_award_at_cap_still_refreshes_last_seen(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "rule", "always run the tests first", clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 95 WHERE id = ?", [m.id])
    clock.advance(days=1)
    _, gained = memories.reinforce(store, m.id, clock)
    assert gained == 5  # only up to the cap
    assert _conf(store, m.id) == 100
    clock.advance(days=1)
    before = memories.get(store, m.id).last_seen_ms
    clock.advance(hours=1)
    _, gained = memories.reinforce(store, m.id, clock)
    assert gained == 0
    after = memories.get(store, m.id)
    assert after.confidence == 100
    assert after.last_seen_ms == clock.now_ms() != before
    # A second award the same day is not effective: last_seen stays.
    clock.advance(hours=1)
    memories.award_recall(store, [m.id], clock)
    assert memories.get(store, m.id).last_seen_ms == after.last_seen_ms


def test_effective_award_resets_last_seen_and_ineffective_does_not(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "project", "设计稿在 figma 的 pay 文件夹", clock)
    created = memories.get(store, m.id).last_seen_ms
    clock.advance(hours=5)
    memories.award_recall(store, [m.id], clock)  # creation day: not effective
    assert memories.get(store, m.id).last_seen_ms == created
    clock.advance(days=3)
    memories.award_recall(store, [m.id], clock)
    assert memories.get(store, m.id).last_seen_ms == clock.now_ms()


def test_learned_merge_adds_a_tenth_and_on_a_full_day_only_replaces_text(
    store: Store, clock: FakeClock
) -> None:
    m = memories.create(store, "rule", "日志包含原因", clock)
    clock.advance(days=1)
    merged, gained = memories.merge_learned(store, m.id, "日志包含原因与排查线索", clock)
    assert (gained, merged.confidence, merged.text) == (10, 60, "日志包含原因与排查线索")
    merged, gained = memories.merge_learned(store, m.id, "日志必须包含原因、上下文与排查线索", clock)
    assert gained == 0
    stored = memories.get(store, m.id)
    assert (stored.confidence, stored.text) == (60, "日志必须包含原因、上下文与排查线索")


def test_manual_replace_and_merge_are_not_awards(store: Store, clock: FakeClock) -> None:
    a = memories.create(store, "rule", "用 pnpm 管理依赖", clock)
    b = memories.create(store, "rule", "依赖用 pnpm 安装", clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 80 WHERE id = ?", [b.id])
    seen_a = memories.get(store, a.id).last_seen_ms
    clock.advance(days=4)
    replaced = memories.replace_text(store, a.id, "只用 pnpm 管理和安装依赖")
    assert replaced.confidence == 50
    assert memories.get(store, a.id).last_seen_ms == seen_a
    merged = memories.merge_manual(store, a.id, b.id, "依赖一律用 pnpm 管理和安装", clock)
    assert merged.confidence == 80  # the higher of the two
    stored = memories.get(store, a.id)
    assert (stored.confidence, stored.last_seen_ms) == (80, seen_a)
    assert [t.memory.id for t in memories.trash_list(store)] == [b.id]


def test_learned_replace_keeps_confidence_and_counts_for_last_seen(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "project", "测试环境地址是 test1.example.com", clock)
    clock.advance(days=10)
    replaced = memories.replace_learned(store, m.id, "测试环境地址改成 test2.example.com", clock)
    stored = memories.get(store, m.id)
    assert stored.confidence == replaced.confidence == 50
    assert stored.last_seen_ms == clock.now_ms()


def _run_day(
    store: Store, clock: FakeClock, cfg: config_mod.Config | None = None
) -> maintenance.Report | None:
    return maintenance.run_if_due(store, clock, cfg or config_mod.load())


def test_new_unused_memory_is_deprecated_on_day_60_at_the_earliest(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "rule", "never used memory text", clock)
    timeline = {}
    for day in range(1, 61):
        clock.advance(days=1)
        _run_day(store, clock)
        stored = memories.get(store, m.id)
        timeline[day] = (stored.confidence, stored.deprecated)
    assert timeline[29] == (50, False)
    assert timeline[30] == (45, False)
    assert timeline[59] == (45, False)
    assert timeline[60] == (40, True)


def test_memory_at_the_cap_needs_twelve_idle_periods(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "rule", "a memory that reached one", clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 100 WHERE id = ?", [m.id])
    periods = 0
    while not memories.get(store, m.id).deprecated:
        clock.advance(days=30)
        report = _run_day(store, clock)
        assert report is not None and report.decayed == 1
        periods += 1
        assert periods <= 20
    assert periods == 12
    assert memories.get(store, m.id).confidence == 40


def test_decay_takes_one_step_without_catching_up(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "rule", "idle for a very long time", clock)
    clock.advance(days=95)  # three periods idle, but only one step is taken
    _run_day(store, clock)
    stored = memories.get(store, m.id)
    assert stored.confidence == 45
    assert stored.last_seen_ms == clock.now_ms()


def test_not_due_memories_keep_their_timestamp(store: Store, clock: FakeClock) -> None:
    old = memories.create(store, "rule", "an old idle memory", clock)
    clock.advance(days=20)
    young = memories.create(store, "rule", "a younger memory", clock)
    young_seen = memories.get(store, young.id).last_seen_ms
    clock.advance(days=10)
    report = _run_day(store, clock)
    assert report is not None and report.decayed == 1
    assert memories.get(store, old.id).confidence == 45
    assert memories.get(store, young.id).last_seen_ms == young_seen
    assert memories.get(store, young.id).confidence == 50


def test_maintenance_runs_once_per_local_day(store: Store, clock: FakeClock) -> None:
    memories.create(store, "rule", "once a day is enough", clock)
    clock.advance(days=30)
    assert _run_day(store, clock) is not None
    assert _run_day(store, clock) is None
    clock.advance(hours=1)
    assert _run_day(store, clock) is None
    clock.advance(days=1)
    assert _run_day(store, clock) is not None


def test_failed_maintenance_is_retried_next_session(store: Store, clock: FakeClock, monkeypatch) -> None:
    m = memories.create(store, "rule", "decay me when it works", clock)
    clock.advance(days=30)

    def broken(con: object, now_ms: int) -> int:
        raise RuntimeError("disk trouble")

    monkeypatch.setattr(maintenance, "purge_expired_trash", broken)
    with contextlib.suppress(RuntimeError):
        _run_day(store, clock)
    assert memories.get(store, m.id).confidence == 50  # rolled back
    assert maintenance.is_due(store, clock)
    monkeypatch.undo()
    report = _run_day(store, clock)
    assert report is not None and report.decayed == 1


def test_decay_days_setting_and_its_fallback(store: Store, clock: FakeClock, data_dir) -> None:
    m = memories.create(store, "rule", "decay days are configurable", clock)
    config_mod.set_key("decayDays", 10)
    clock.advance(days=10)
    _run_day(store, clock)
    assert memories.get(store, m.id).confidence == 45
    (data_dir / "config.json").write_text('{"decayDays": -3}', encoding="utf-8")
    loaded = config_mod.load()
    assert config_mod.decay_days(loaded) == 30
    assert any("decayDays" in p for p in loaded.problems)
    (data_dir / "config.json").write_text('{"decayDays": 12.5}', encoding="utf-8")
    assert config_mod.decay_days(config_mod.load()) == 30


def test_decay_days_change_applies_from_next_days_first_session(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "rule", "change takes effect tomorrow", clock)
    clock.advance(days=10)
    assert _run_day(store, clock) is not None  # today's run is done with 30
    config_mod.set_key("decayDays", 10)
    assert _run_day(store, clock) is None  # already ran today: no second run
    assert memories.get(store, m.id).confidence == 50
    clock.advance(days=1)
    _run_day(store, clock)
    assert memories.get(store, m.id).confidence == 45


def test_deprecated_memories_are_not_decayed_awarded_or_auto_deleted(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "rule", "will be deprecated soon", clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 45 WHERE id = ?", [m.id])
    clock.advance(days=30)
    _run_day(store, clock)
    assert memories.get(store, m.id).deprecated
    for _ in range(5):
        clock.advance(days=30)
        _run_day(store, clock)
    clock.advance(days=1)
    assert memories.award_recall(store, [m.id], clock) == {}
    stored = memories.get(store, m.id)
    assert (stored.confidence, stored.deprecated) == (40, True)


def test_reinforce_revives_a_deprecated_memory(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "rule", "revive me with reinforce", clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 40, deprecated = TRUE WHERE id = ?", [m.id])
    clock.advance(days=1)
    revived, gained = memories.reinforce(store, m.id, clock)
    assert (gained, revived.confidence, revived.deprecated) == (10, 50, False)
    assert not memories.get(store, m.id).deprecated


def test_lost_points_are_not_given_back(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "rule", "seventy becomes sixty five", clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 70 WHERE id = ?", [m.id])
    clock.advance(days=30)
    _run_day(store, clock)
    assert _conf(store, m.id) == 65
    memories.award_recall(store, [m.id], clock)
    assert _conf(store, m.id) == 70


def test_recall_of_already_awarded_hits_opens_no_transaction(
    store: Store, clock: FakeClock, monkeypatch
) -> None:
    m = memories.create(store, "rule", "already awarded today", clock)
    clock.advance(days=1)
    memories.award_recall(store, [m.id], clock)
    opened = []
    real = store.transaction

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "transaction", counting)
    assert memories.award_recall(store, [m.id], clock) == {}
    assert opened == []
    clock.advance(days=1)
    assert memories.award_recall(store, [m.id], clock) == {m.id: 5}
    assert opened == [1]


def test_legacy_confidence_above_one_is_capped_by_the_daily_run(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "rule", "a very old legacy memory", clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 115 WHERE id = ?", [m.id])
    clock.advance(days=1)
    report = _run_day(store, clock)
    assert report is not None and report.clamped == 1
    assert _conf(store, m.id) == 100


def test_trash_older_than_thirty_days_is_purged_by_the_daily_run(store: Store, clock: FakeClock) -> None:
    old = memories.create(store, "rule", "deleted long ago", clock)
    recent = memories.create(store, "rule", "deleted recently", clock)
    memories.delete(store, [old.id], clock)
    clock.advance(days=20)
    memories.delete(store, [recent.id], clock)
    clock.advance(days=11)
    report = _run_day(store, clock)
    assert report is not None and report.trash_purged == 1
    assert [t.memory.id for t in memories.trash_list(store)] == [recent.id]


def test_pure_award_arithmetic() -> None:
    s = conf.new_standing(0, "2026-01-01")
    assert conf.points_due(s, conf.Tier.RECALL, "2026-01-01") == 0
    after = conf.apply_award(s, conf.Tier.RECALL, 1, "2026-01-02")
    assert (after.gained, after.standing.confidence, after.standing.award_pts) == (5, 55, 5)
    again = conf.apply_award(after.standing, conf.Tier.REINFORCE, 2, "2026-01-02")
    assert (again.gained, again.standing.confidence) == (5, 60)
    assert conf.as_decimal_text(55) == "0.55" and conf.as_decimal_text(100) == "1"
    assert conf.to_hundredths(1.15) == 115 and conf.to_hundredths("0.45") == 45
