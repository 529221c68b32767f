"""What a service start does before recall answers, each step as cheap as it can be and as exact
as before: the stale-vector scan in DuckDB, the model's load begun early and taken up."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.store import vectors
from memevo.core.store.database import Store

TEXTS = [
    "提交前先运行单元测试并检查格式",
    "支付页新流程的灰度开关是 pay_new_flow_v2 🙂",
    "Café au lait, naïve façade — e\u0301 and é are different texts",
    "emoji 👩\u200d💻 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 outside the BMP",
    "plain ascii",
    "日本語とРусский и العربية",
]


def test_stale_vectors_are_found_by_the_hash_text_sha_gives(store: Store, clock: FakeClock) -> None:
    made = [memories.create(store, "rule", text, clock) for text in TEXTS]
    assert {i for i, _ in vectors.stale(store, "m")} == {m.id for m in made}  # no vector yet
    done = made[::2]
    vectors.save(store, "m", [(m.id, m.text) for m in done], np.ones((len(done), 4), np.float32))
    assert {i for i, _ in vectors.stale(store, "m")} == {m.id for m in made[1::2]}
    for memory_id, text in vectors.stale(store, "m"):
        assert text == next(m.text for m in made if m.id == memory_id)
    assert {i for i, _ in vectors.stale(store, "another model")} == {m.id for m in made}
    memories.replace_text(store, made[0].id, made[0].text + " 改过", clock)
    assert made[0].id in {i for i, _ in vectors.stale(store, "m")}
    # the same hash as Python's, on every text (a mismatch would re-encode every start)
    for text in TEXTS:
        assert store.query("SELECT left(sha256(?), 16)", [text])[0][0] == vectors.text_sha(text)


def test_the_early_load_is_the_one_the_engine_uses(
    store: Store, clock: FakeClock, provisioned_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memevo serve` begins the model's load before its imports (loading.begin_early); the
    host takes that one up, and the engine recalls with it: one load, not two."""
    from memevo.core.encoder import loading
    from memevo.core.service.host import ServiceHost

    memories.create(store, "project", TEXTS[1], clock)
    made: list[Any] = []
    original = loading.ModelLoad.__init__

    def counted(self: Any, encoder: Any) -> None:
        made.append(encoder)
        original(self, encoder)

    monkeypatch.setattr(loading.ModelLoad, "__init__", counted)
    loading.begin_early()
    assert len(made) == 1  # begun before the service exists
    host = ServiceHost(store, clock)
    try:
        host.start_model_load()
        host.load_engine()
        assert host.engine is not None, host.ctx.engine_error
        assert len(made) == 1 and host.engine.encoder is made[0]
        hits = host.engine.recall("pay_new_flow_v2 是什么开关", award=False).hits
        assert [h.text for h in hits][:1] == [TEXTS[1]]
        assert loading.take_early() is not made[0]  # taken once: a later host loads its own
    finally:
        host.close()


def test_a_model_still_to_provision_is_not_loaded_early(
    store: Store, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memevo.core.encoder import provision
    from memevo.core.service.host import ServiceHost

    monkeypatch.setattr(provision, "ready_folder", lambda model_id: None)
    host = ServiceHost(store, clock)
    try:
        host.start_model_load()
        assert host._early_load is None  # load_engine provisions it, with its progress shown
    finally:
        host.close()


def test_the_bench_times_a_start_over_the_store_as_its_last_run_left_it(provisioned_model: Any) -> None:
    """`memevo bench`'s service_ready_s is the second start: the first (timed apart) encodes the
    pool's memories written without vectors and keeps the lexical index beside the store."""
    import os
    import sys
    from pathlib import Path

    from memevo.cli.bench.pool import HOME_ENV
    from memevo.cli.bench.service import bench_service
    from memevo.core.recall import lexical_file
    from memevo.core.service import client

    first: list[float] = []
    with bench_service(sys.executable, pool=80, first=first) as (_env, service, ready_s):
        home = Path(os.environ[HOME_ENV])
        assert service.poll() is None and len(first) == 1 and ready_s > 0
        assert lexical_file.load(home / lexical_file.FILE_NAME) is not None  # the first start's
        status = client.call("ping", {}, timeout_s=5)
        assert status["model_ready"] and status["memories_indexed"] == 81  # 30 synthetic, and the 51 encoded


def test_the_hooks_texts_are_written_only_when_they_change(
    store: Store, clock: FakeClock, data_dir: Any
) -> None:
    """A service's start renders the hooks' fallback texts again: a file that already holds its
    text is left alone (no fsync), a changed one is replaced, every one user-only."""
    import os
    import stat

    from memevo.core.service import fallback_texts as caches

    memories.create(store, "rule", TEXTS[0], clock)
    caches.write(store, False)
    folder = data_dir / "cache"
    files = sorted(folder.glob("*.txt"))
    assert len(files) == 2 * len(caches.FLAVORS)
    before = {f.name: (os.stat(f).st_ino, f.read_text(encoding="utf-8")) for f in files}
    assert TEXTS[0] in before["session-start-claude.txt"][1]
    caches.write(store, False)
    assert {f.name: (os.stat(f).st_ino, f.read_text(encoding="utf-8")) for f in files} == before
    memories.create(store, "rule", TEXTS[2], clock)
    os.chmod(folder / "prompt-reminder-claude.txt", 0o644)
    caches.write(store, False)
    after = {f.name: (os.stat(f).st_ino, f.read_text(encoding="utf-8")) for f in files}
    for flavor in caches.FLAVORS:
        name = f"session-start-{flavor}.txt"
        assert after[name][0] != before[name][0] and TEXTS[2] in after[name][1]
        expected, _ = caches.session_start_text(
            store, caches.config_mod.load(), False, flavor, caches.DEFAULT_MAX_CHARS
        )
        assert after[name][1] == expected  # the rules read once give each flavor's own text
    assert (
        after["prompt-reminder-claude.txt"][0] != before["prompt-reminder-claude.txt"][0]
    )  # its mode was wrong
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)


def test_the_days_maintenance_rebuilds_the_indexes_only_when_it_deprecated_a_memory(
    store: Store, clock: FakeClock, provisioned_model: Any
) -> None:
    """The day's first session start runs maintenance; the indexes hold only which memories are
    deprecated, so a day that deprecated none keeps them (no rebuild in that hook), and a day
    that did leaves the deprecated memory out of recall."""
    from memevo.core.service.host import ServiceHost

    fact = memories.create(store, "project", TEXTS[1], clock)
    host = ServiceHost(store, clock)
    try:
        host.load_engine()
        assert host.engine is not None, host.ctx.engine_error
        index, lexical = host.engine.index, host.engine.lexical
        host.handle("hook_session_start", {"client": "claude", "session_id": "day-one"})
        assert host.ctx.session_starts.maintained_day is not None  # it ran, deprecating nothing
        assert host.engine.index is index and host.engine.lexical is lexical
        assert [h.id for h in host.engine.recall("pay_new_flow_v2 是什么开关", award=False).hits] == [fact.id]

        with store.transaction() as con:  # below 0.4: the day's maintenance deprecates it
            con.execute("UPDATE memories SET confidence = 0.3 WHERE id = ?", [fact.id])
        clock.advance(days=1)
        host.handle("hook_session_start", {"client": "claude", "session_id": "day-two"})
        assert host.engine.index is not index  # deprecated by the day's maintenance: rebuilt
        assert host.engine.recall("pay_new_flow_v2 是什么开关", award=False).hits == []
    finally:
        host.close()
