"""Recall cues: short situations in which a memory matters, written by the side model.

A small embedding model cannot tell that 「订单总价我用 double 存」 is about the rule "money is
never a float", or that `deploy.sh` is a shell script. The side model can: once per memory
text it writes a few cues — things a developer says or is about to do when the memory
matters, in Chinese and English (core/learning/cue_writer.py). Recall then matches a prompt against
the memory and its cues: the cues join the memory's words in the lexical index, and their mean
vector stands beside the memory's own (the better of the two cosines counts).

Cues are tied to the text they were written for (`text_sha`): a memory whose text changes
(merge, replace, edit) gets new ones, and until then its old ones are not used. They never
leave the machine again and are never injected: they only decide what is recalled. An
answer the side model got wrong or left empty is kept as an empty list, so it is not asked
again for the same text.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..privacy.redaction import redact_secrets
from ..store import vector_bytes
from ..store.database import Store
from ..store.vectors import text_sha

MAX_CUES = 10
MAX_CUE_CHARS = 60
# C0/C1 controls, line and paragraph separators, and the bidi controls memory texts refuse too
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+")


@dataclass(frozen=True)
class Cued:
    """A memory's current cues and (once encoded for this model) their mean raw vector."""

    cues: tuple[str, ...]
    vector: np.ndarray | None


def clean(value: Any) -> list[str]:
    """What the side model answered, made safe and bounded: strings only, one line each,
    at most MAX_CUE_CHARS characters and MAX_CUES of them, duplicates dropped. Redacted before
    it is cut, so no part of a key cut by the limit survives."""
    if not isinstance(value, list):
        return []
    out: dict[str, None] = {}
    for item in value[: MAX_CUES * 4]:
        if not isinstance(item, str):
            continue
        cue = redact_secrets(_CONTROL.sub(" ", item[: MAX_CUE_CHARS * 4])).strip()[:MAX_CUE_CHARS].strip()
        if cue:
            out.setdefault(cue, None)
        if len(out) >= MAX_CUES:
            break
    return list(out)


def cues_sha(cues: Iterable[str]) -> str:
    return hashlib.sha256(json.dumps(list(cues), ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


# -- what the side model is asked for -------------------------------------------------------------
_SHA = "substr(sha256(m.text), 1, 16)"


def wanted(store: Store, limit: int) -> list[tuple[str, str, str]]:
    """(id, category, text) of live memories with no cues for their current text, oldest first."""
    rows = store.query(
        f"SELECT m.id, m.category, m.text FROM memories m LEFT JOIN cues c ON c.memory_id = m.id "
        f"WHERE NOT m.deprecated AND (c.text_sha IS NULL OR c.text_sha <> {_SHA}) "
        "ORDER BY m.created_ms, m.id LIMIT ?",
        [limit],
    )
    return [(str(i), str(c), str(t)) for i, c, t in rows]


def save(store: Store, memory_id: str, text: str, cues: list[str], now_ms: int) -> bool:
    """Keep the cues written for `text`; False (nothing written) when the memory is gone or its
    text changed while the side model was writing them."""
    with store.transaction() as con:
        row = con.execute("SELECT text FROM memories WHERE id = ?", [memory_id]).fetchone()
        if row is None or row[0] != text:
            return False
        con.execute(
            "INSERT OR REPLACE INTO cues (memory_id, text_sha, cues, made_ms) VALUES (?, ?, ?, ?)",
            [memory_id, text_sha(text), list(cues), now_ms],
        )
    return True


def save_for_texts(store: Store, by_text: dict[str, list[str]], now_ms: int) -> int:
    """Cues given with a cases file (`memevo verify`, calibration): keyed by memory text."""
    rows = store.query("SELECT id, text FROM memories")
    saved = 0
    for memory_id, text in rows:
        given = by_text.get(str(text))
        if given is not None:
            saved += save(store, str(memory_id), str(text), clean(given), now_ms)
    return saved


# -- their vectors --------------------------------------------------------------------------------
def stale_vectors(store: Store, model: str) -> list[tuple[str, list[str]]]:
    """(id, cues) whose mean vector is missing or made by another model or for other cues."""
    rows = store.query(
        f"SELECT c.memory_id, c.cues, v.model, v.cues_sha FROM cues c JOIN memories m ON m.id = c.memory_id "
        f"LEFT JOIN cue_vectors v ON v.memory_id = c.memory_id WHERE len(c.cues) > 0 AND c.text_sha = {_SHA}"
    )
    return [(str(i), list(cues)) for i, cues, vm, vs in rows if vm != model or vs != cues_sha(cues)]


def save_vectors(store: Store, model: str, items: list[tuple[str, list[str]]], matrix: np.ndarray) -> None:
    if not items:
        return
    ids = [memory_id for memory_id, _ in items]
    with store.transaction() as con:
        vector_bytes.upsert(
            con, "cue_vectors", "cues_sha", ids, model, [cues_sha(c) for _, c in items], matrix
        )


def mean_vector(vectors: np.ndarray) -> np.ndarray:
    """The cues' normalised mean: one vector per memory, whatever the number of cues."""
    mean = np.asarray(vectors, dtype=np.float32).mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return np.asarray(mean / norm if norm > 0 else mean, dtype=np.float32)


def current(store: Store, model: str, ids: list[str] | None = None) -> dict[str, Cued]:
    """Cues written for each memory's current text (empty answers left out), with their vector
    when one of this model is there."""
    where = f"WHERE len(c.cues) > 0 AND c.text_sha = {_SHA}"
    params: list[Any] = [model]
    if ids is not None:
        where += " AND list_contains(?, c.memory_id)"
        params.append(ids)
    rows = store.query(
        "SELECT c.memory_id, c.cues, v.cues_sha, v.vec FROM cues c JOIN memories m ON m.id = c.memory_id "
        f"LEFT JOIN cue_vectors v ON v.memory_id = c.memory_id AND v.model = ? {where}",
        params,
    )
    out: dict[str, Cued] = {}
    for memory_id, cues, sha, vec in rows:
        vector = vector_bytes.vector_of(vec) if vec is not None and sha == cues_sha(cues) else None
        out[str(memory_id)] = Cued(tuple(cues), vector)
    return out


def of(store: Store, memory_id: str) -> list[str] | None:
    """A memory's cues for its current text; None when none are written for it (yet)."""
    rows = store.query(
        f"SELECT c.cues FROM cues c JOIN memories m ON m.id = c.memory_id "
        f"WHERE c.memory_id = ? AND c.text_sha = {_SHA}",
        [memory_id],
    )
    return list(rows[0][0]) if rows else None


def counts(store: Store) -> dict[str, int]:
    """Live memories, and how many of them have cues for their current text."""
    row = store.query(
        f"SELECT count(*), count(c.memory_id) FILTER (WHERE c.text_sha = {_SHA} AND len(c.cues) > 0) "
        "FROM memories m LEFT JOIN cues c ON c.memory_id = m.id WHERE NOT m.deprecated"
    )[0]
    return {"memories": int(row[0]), "with_cues": int(row[1])}


def drop_orphans(con: Any) -> int:
    """Daily: cues of memories that are neither live nor in the trash (purged, expired)."""
    row = con.execute(
        "SELECT count(*) FROM cues WHERE memory_id NOT IN (SELECT id FROM memories UNION ALL SELECT id FROM trash)"
    ).fetchone()
    for table in ("cues", "cue_vectors"):
        con.execute(
            f"DELETE FROM {table} WHERE memory_id NOT IN "
            "(SELECT id FROM memories UNION ALL SELECT id FROM trash)"
        )
    return int(row[0]) if row else 0
