"""The lexical index kept beside the store (core/recall/lexical_file.py): a start reads it and
catches it up with the store's pool instead of indexing every memory again; a damaged, foreign
or stale file never changes a score."""

from __future__ import annotations

import builtins
import stat
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.recall import lexical_file, terms
from memevo.core.recall import lexical_saved as lexical_snapshot
from memevo.core.recall.lexical import LexicalIndex
from memevo.core.store.database import Store

TEXTS = [
    ("rule", "提交前先运行单元测试并检查格式"),
    ("project", "支付页新流程的灰度开关是 pay_new_flow_v2"),
    ("rule", "Never force-push to main; open a pull request instead"),
    ("project", "The staging database is pg-staging-02.internal:5432"),
    ("rule", "用 ImageLoader 加载图片，不要直接读文件"),
    ("project", "git.internal.com/platform/auth-service 的依赖要锁版本"),
    ("rule", "commits are signed; committed hooks run ruff"),
    ("project", "缓存的过期时间是 300 秒，cache token 在 svc_7_1"),
]
QUERIES = [
    "pay_new_flow_v2 开关在哪",
    "can I force push to main",
    "pg-staging-02 的端口",
    "怎么加载图片 ImageLoader",
    "auth-service 依赖",
    "commit hooks ruff",
    "cache token 过期",
    "单元测试",
]


def rows(pairs: list[tuple[str, str, str, bool]]) -> tuple[list[str], list[str], list[str], list[bool]]:
    return [p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs], [p[3] for p in pairs]


def scores(index: LexicalIndex, ids: list[str]) -> list[dict[str, float]]:
    """Per query: every id's score and each category's top, by id (document numbers aside)."""
    out = []
    for query in QUERIES:
        found = index.scores(query)
        by_id = dict(zip(ids, found.of_many(ids), strict=True))
        by_id |= {f"top:{i}": s for c in ("rule", "project") for i, s in found.top(c, 50)}
        out.append(by_id)
    return out


def built(pairs: list[tuple[str, str, str, bool]]) -> LexicalIndex:
    index = LexicalIndex(capacity=4)
    index.upsert(*rows(pairs))
    return index


def pool(n: int = 40) -> list[tuple[str, str, str, bool]]:
    return [
        (f"m{i}", TEXTS[i % len(TEXTS)][0], f"{TEXTS[i % len(TEXTS)][1]} #{i}", i % 7 != 3) for i in range(n)
    ]


def test_a_kept_index_scores_as_one_built_from_the_rows(tmp_path: Path) -> None:
    pairs = pool()
    index = built(pairs)
    # a life of changes before the save: texts replaced, memories gone, deprecated, moved
    index.upsert(
        ["m1", "m2"], ["rule", "project"], ["重新写过的规则 pay_new_flow_v3", "moved fact"], [True, True]
    )
    index.remove(["m5", "m6"])
    index.set_live("m8", False)
    index.set_category("m9", "project")
    now = [p for p in pairs if p[0] not in ("m5", "m6")]
    now = [
        ("m1", "rule", "重新写过的规则 pay_new_flow_v3", True)
        if p[0] == "m1"
        else ("m2", "project", "moved fact", True)
        if p[0] == "m2"
        else (p[0], p[1], p[2], False)
        if p[0] == "m8"
        else (p[0], "project", p[2], p[3])
        if p[0] == "m9"
        else p
        for p in now
    ]
    path = tmp_path / lexical_file.FILE_NAME
    lexical_file.save(index, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    kept = lexical_file.load(path)
    assert kept is not None
    now_rows = rows(now)
    assert kept.catch_up(*now_rows) == 0  # the file already holds exactly these rows
    # it holds the rows' strings (the vector index's), not the file's equal copies
    assert all(kept.text_of(i) is t for i, t in zip(now_rows[0], now_rows[2], strict=True))
    assert all(kept._ids[kept._doc_of[i]] is i for i in now_rows[0])
    assert {id(k) for k in kept._doc_of} == {id(i) for i in now_rows[0]}
    ids = [p[0] for p in now] + ["m5", "m6"]
    expected = scores(built(now), ids)
    assert scores(kept, ids) == expected
    assert scores(index, ids) == expected
    assert any(s > 0 for q in expected for s in q.values())  # the queries do match something


def test_catching_up_with_rows_changed_since_the_save(tmp_path: Path) -> None:
    before = pool()
    path = tmp_path / lexical_file.FILE_NAME
    lexical_file.save(built(before), path)
    after = [p for p in before if p[0] != "m4"]  # gone
    after[0] = ("m0", "rule", "a text rewritten while the service was down: zeta_flag_42", True)
    after[1] = (
        after[1][0],
        "project" if after[1][1] == "rule" else "rule",
        after[1][2],
        after[1][3],
    )  # moved
    after[2] = (after[2][0], after[2][1], after[2][2], not after[2][3])  # deprecated or restored
    after.append(("m99", "project", "新写的事实：灰度开关 omega_switch_7", True))  # added
    kept = lexical_file.load(path)
    assert kept is not None
    assert kept.catch_up(*rows(after)) == 5
    ids = [p[0] for p in before] + ["m99"]
    assert scores(kept, ids) == scores(built(after), ids)
    assert kept.scores("omega_switch_7").of("m99") > 0
    assert kept.scores("zeta_flag_42").of("m0") > 0
    assert kept.doc_of("m4") is None


def damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "cut":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif how == "flipped":
        middle = len(data) // 2
        data[middle] ^= 0xFF
        path.write_bytes(bytes(data))
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "foreign":
        path.write_bytes(b"PK\x03\x04 not a memevo file at all" * 10)


@pytest.mark.parametrize("how", ["cut", "flipped", "empty", "foreign"])
def test_a_damaged_file_is_not_read(tmp_path: Path, how: str) -> None:
    path = tmp_path / lexical_file.FILE_NAME
    lexical_file.save(built(pool(200)), path)
    assert lexical_file.load(path) is not None
    damage(path, how)
    assert lexical_file.load(path) is None


def test_a_file_of_other_term_rules_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / lexical_file.FILE_NAME
    lexical_file.save(built(pool()), path)
    monkeypatch.setattr(lexical_file, "rules_version", lambda: "another release's rules")
    assert lexical_file.load(path) is None
    assert lexical_file.load(tmp_path / "absent.npz") is None


def test_a_file_whose_postings_name_no_document_is_not_read(tmp_path: Path) -> None:
    """Written whole and with a right CRC, but inconsistent (not by this code): refused."""
    index = built(pool())
    snap = index.snapshot()
    bad = snap.__class__(**(snap.__dict__ | {"docs": snap.docs + np.uint32(1000)}))
    path = tmp_path / lexical_file.FILE_NAME
    path.write_bytes(lexical_file.encode(bad))
    assert lexical_file.load(path) is None


# -- the restored index: the file's flat postings, answering as a built index ------------------------
def answers(index: LexicalIndex, queries: list[str]) -> list[Any]:
    """Everything a caller can read, bit for bit: per query the documents, scores and categories
    found and each query term's idf; the counts."""
    per_document = (
        index._length.nbytes + index._category.nbytes + index._live.nbytes
    )  # capacity: not compared
    out: list[Any] = [len(index), index.documents, index.posting_count(), index.nbytes() - per_document]
    for query in queries:
        found = index.scores(query)
        out.append((found._docs.tobytes(), found._scores.tobytes(), found._codes.tobytes()))
        out.append([index.idf(term) for term in terms.terms(query)])
    return out


def varied(n: int) -> list[tuple[str, str, str, bool]]:
    """Rows with many terms: each text its own identifier and a few Chinese bigrams."""
    return [
        (
            f"m{i}",
            TEXTS[i % 8][0],
            f"{TEXTS[i % 8][1]} svc_{i}_{i % 5} 第{i}号{'灰度缓存开关'[i % 5 :]}",
            i % 7 != 3,
        )
        for i in range(n)
    ]


def postings_by_term(index: LexicalIndex) -> dict[str, tuple[bytes, bytes]]:
    snap = index.snapshot()
    bounds = [0, *snap.term_end.tolist()]
    return {
        term: (snap.docs[a:b].tobytes(), snap.tfs[a:b].tobytes())
        for term, a, b in zip(snap.terms, bounds[:-1], bounds[1:], strict=True)
    }


def change(index: LexicalIndex) -> None:
    """A life after the restore: a restored term given documents, new terms, a text replaced,
    memories removed, deprecated, restored and moved."""
    index.upsert(
        ["m1", "new1"],
        ["rule", "project"],
        ["单元测试 brand_new_term_9", "pay_new_flow_v2 again"],
        [True, True],
    )
    index.remove(["m2", "m9"])
    index.set_live("m4", False)
    index.set_live("m3", True)
    index.set_category("m5", "project")
    index.upsert(["new2"], ["rule"], ["另一个 brand_new_term_9 的规则"], [False])


def test_a_restored_index_answers_as_one_built_from_its_rows(tmp_path: Path) -> None:
    pairs = varied(300)
    fresh = built(pairs)
    path = tmp_path / lexical_file.FILE_NAME
    lexical_file.save(fresh, path)
    kept = lexical_file.load(path)
    assert kept is not None
    # the file's postings stay flat: no term in the dict of arrays until a document is added
    assert kept._postings == {} and len(kept._frozen) == len(fresh._postings) > 600
    queries = (
        QUERIES + [p[2] for p in pairs[::7]] + ["svc_17_2 第17号", "brand_new_term_9 单元测试", "absent_term"]
    )
    assert answers(kept, queries) == answers(fresh, queries)
    assert postings_by_term(kept) == postings_by_term(fresh)

    change(kept)
    change(fresh)
    assert 0 < len(kept._postings) < 20 and kept._frozen.moved.any()
    assert answers(kept, queries) == answers(fresh, queries)
    assert postings_by_term(kept) == postings_by_term(fresh)
    assert kept.scores("brand_new_term_9").of("m1") > 0 and kept.scores("svc_2_2").of("m2") == 0

    # its snapshot restored again (moved and frozen terms alike) still answers the same
    again = LexicalIndex.restore(kept.snapshot())
    snapped = LexicalIndex.restore(fresh.snapshot())
    assert answers(again, queries) == answers(snapped, queries)
    assert any(s for a in answers(again, queries)[4::2] for s in a[1])  # the queries do find documents


def test_terms_whose_hashes_collide_are_told_apart_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """A term is looked up by hash() then its name: with every hash one of three values (every
    lookup a collision), the restored index still answers as the built one."""
    pairs = varied(120)
    fresh = built(pairs)
    monkeypatch.setattr(lexical_snapshot, "hash", lambda text: builtins.hash(text) % 3, raising=False)
    kept = LexicalIndex.restore(fresh.snapshot())
    queries = QUERIES + [p[2] for p in pairs[::5]] + ["absent_term 不在"]
    assert answers(kept, queries) == answers(fresh, queries)
    change(kept)
    change(fresh)
    assert answers(kept, queries) == answers(fresh, queries)


def test_an_empty_index_restored_takes_documents() -> None:
    kept = LexicalIndex.restore(LexicalIndex().snapshot())
    assert len(kept) == 0 and kept.posting_count() == 0 and len(kept.scores("单元测试")) == 0
    pairs = varied(20)
    kept.upsert(*rows(pairs))
    assert answers(kept, QUERIES) == answers(built(pairs), QUERIES)


# -- the service: kept across restarts, caught up with writes made while it was down ---------------
class Indexed:
    """Counts the documents the main lexical index indexes (its texts' terms computed)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.loaded: list[bool] = []
        self.added: list[str] = []
        load, add = lexical_file.load, LexicalIndex._add

        def counting_load(path: Path) -> LexicalIndex | None:
            found = load(path)
            self.loaded.append(found is not None)
            return found

        def counting_add(index: LexicalIndex, memory_id: str, *args: Any) -> None:
            self.added.append(memory_id)
            add(index, memory_id, *args)

        monkeypatch.setattr(lexical_file, "load", counting_load)
        monkeypatch.setattr(LexicalIndex, "_add", counting_add)

    def reset(self) -> None:
        self.loaded.clear()
        self.added.clear()


def start(store: Store, clock: FakeClock) -> Any:
    from memevo.core.service.host import ServiceHost

    host = ServiceHost(store, clock)
    host.load_engine()
    assert host.engine is not None, host.ctx.engine_error
    return host


def test_the_service_keeps_its_lexical_index_across_restarts(
    store: Store, clock: FakeClock, provisioned_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = [memories.create(store, category, text, clock) for category, text in TEXTS]
    path = lexical_file.path_beside(store.path)
    counted = Indexed(monkeypatch)

    host = start(store, clock)  # a first start: every memory indexed, the file written
    host.close()
    assert counted.loaded == [False]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600

    counted.reset()
    host = start(store, clock)  # nothing changed: the file is the index, no text indexed again
    assert counted.loaded == [True]
    assert [i for i in counted.added if i in {m.id for m in made}] == []
    assert host.engine.lexical.scores("pay_new_flow_v2").of(made[1].id) > 0
    vector_index = host.engine.index  # one copy of each text, the vector index's
    assert host.engine.lexical.text_of(made[1].id) is vector_index._texts[vector_index._row[made[1].id]]
    host.close()

    # while the service is down: a memory written, one deleted, one moved (as the CLI does
    # with MEMEVO_NO_SERVICE=1: straight into the store)
    new = memories.create(store, "project", "灰度开关 omega_switch_7 在配置中心", clock)
    memories.delete(store, [made[3].id], clock)
    memories.move(store, made[0].id, "project")
    counted.reset()
    host = start(store, clock)
    engine = host.engine
    assert counted.loaded == [True]
    assert new.id in counted.added and made[0].id not in counted.added  # only the changed texts
    assert engine.lexical.scores("omega_switch_7").of(new.id) > 0
    assert engine.lexical.doc_of(made[3].id) is None
    assert engine.lexical.scores("单元测试").top("project", 5)[0][0] == made[0].id
    hits = engine.recall("omega_switch_7 这个开关在哪配置", award=False).hits
    assert new.id in [h.id for h in hits]
    host.close()

    # a damaged file: indexed again from the store, and written whole again
    damage(path, "flipped")
    counted.reset()
    host = start(store, clock)
    assert counted.loaded == [False]
    assert host.engine.lexical.scores("omega_switch_7").of(new.id) > 0
    host.close()
    assert lexical_file.load(path) is not None
