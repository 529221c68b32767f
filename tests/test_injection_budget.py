"""The injection budget: the recall block keeps the most confident memories within its characters
and says how many it left out; the session-start text stays within its cap and is the same bytes
whatever the time or the client's own cap (tests/test_service_scopes.py checks it through a real
service)."""

from __future__ import annotations

from memevo.core import config as config_mod
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.store.database import Store


def test_recall_block_fits_its_budget_most_confident_first() -> None:
    from memevo.core.service import texts

    hits = [(f"id{i}", "rule" if i % 2 else "project", f"memory number {i} " + "x" * 300) for i in range(6)]
    kept, left_out = texts.fit_recall(hits, 1600)
    assert [i for i, _, _ in kept] == ["id0", "id1", "id2", "id3"] and left_out == 2
    block = texts.recall_block(
        [t for _, c, t in kept if c == "rule"], [t for _, c, t in kept if c != "rule"], left_out
    )
    assert len(block) <= 1600 and block.endswith(texts.recall_cut_note(2))
    assert texts.fit_recall(hits[:1], 1600) == (hits[:1], 0)


def test_session_start_text_is_stable_and_within_budget(store: Store, clock: FakeClock) -> None:
    from memevo.core.service import fallback_texts as caches

    for i in range(40):
        memories.create(store, "rule", f"rule {i:02d}: " + "keep the code tidy and small " * 3, clock)
        clock.advance(minutes=1)
    low = memories.create(store, "rule", "the pinned rule that always comes first", clock)
    memories.set_pinned(store, low.id, True, clock)
    config = config_mod.load()
    first, ids = caches.session_start_text(store, config, False, "claude", 10_000)
    assert len(first) <= 2400 and "因篇幅未列出" in first and ids[0] == low.id
    clock.advance(days=3)
    memories.award_recall(store, [], clock)
    again, _ = caches.session_start_text(store, config, False, "claude", 9_000)
    assert again == first  # nothing in it depends on the time or the client's own cap
    with store.transaction() as con:  # a recall touching last_seen does not reorder ties
        con.execute("UPDATE memories SET last_seen_ms = last_seen_ms + 1000 WHERE id <> ?", [low.id])
    assert caches.session_start_text(store, config, False, "claude", 10_000)[0] == first
