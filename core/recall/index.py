"""The in-memory matrix recall searches: brute force over background-centred vectors.

It also keeps each memory's text, so answering a prompt never waits for the store.

numpy does 100k x 384 in a few milliseconds, so no approximate index is needed; the store
is never on this path. Each memory is a slot in a growable buffer; removed slots are masked
and reused, so keeping the index in sync with the store costs no full copy.

The buffer holds the vectors as columns (dim × capacity): a prompt's search right after its
encode finds the pool out of the cache (the encoder's weights went through it), and BLAS
reads a column-major pool faster than one vector per row there (`memevo bench --json`:
recall_100k_ms).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..encoder.background import Background, center
from ..store.vectors import Pool
from . import crossing

CATEGORY_CODES = {"rule": 0, "project": 1}
Crossed = tuple[float, float]  # a prompt's share of Chinese, and the cross-language bonus
SPLIT_AT = 40_000
_POOL = ThreadPoolExecutor(1, thread_name_prefix="memevo-search")


def _best(products: np.ndarray) -> np.ndarray:
    """Per memory, the best of the query's rows (a prompt and its sentences, sentences.py);
    a query of one row as it is."""
    return np.asarray(products if products.ndim == 1 else products.max(axis=0))


class MemoryIndex:
    def __init__(self, dim: int, background: Background | np.ndarray, capacity: int = 1024) -> None:
        self.dim = dim
        self.background = (
            background
            if isinstance(background, Background)
            else Background(np.asarray(background, np.float32))
        )
        self._matrix = np.zeros((dim, capacity), dtype=np.float32)  # a column per slot
        self._category = np.zeros(capacity, dtype=np.int8)
        self._live = np.zeros(capacity, dtype=bool)  # present and not deprecated
        # Recall cues (core/memories/cues.py): each cued memory's centred mean cue vector, scored beside
        # its own and the better cosine counts. Allocated with the first cue, so a pool
        # without cues (every bench pool) costs nothing more.
        self._cue: np.ndarray | None = None
        self._has_cue = np.zeros(capacity, dtype=bool)
        # each memory's share of Chinese (crossing.py): a cross-language pair's cosine gains
        self._share = np.zeros(capacity, dtype=np.float32)
        self._ids: list[str | None] = [None] * capacity
        self._texts: list[str | None] = [None] * capacity
        self._row: dict[str, int] = {}
        self._free: list[int] = []
        self._used = 0
        # Writers (the panel's worker, request threads, the side runner, maintenance) and
        # searches run on different threads: one lock keeps slots, growth and reads consistent.
        self._lock = threading.RLock()

    def __len__(self) -> int:
        return len(self._row)

    def live_count(self) -> int:
        return int(self._live[: self._used].sum())

    # -- keeping in sync -------------------------------------------------------------------------
    def reserve(self, rows: int) -> None:
        """Size the buffers once for a known pool, instead of growing by doubling."""
        with self._lock:
            while len(self._ids) < rows:
                self._grow(max(rows, 1024))

    def upsert_pool(self, pool: Pool) -> None:
        self.upsert(pool.ids, pool.categories, pool.texts, pool.deprecated, pool.matrix)

    def upsert(
        self, ids: list[str], categories: list[str], texts: list[str], deprecated: np.ndarray, raw: np.ndarray
    ) -> None:
        with self._lock:
            if not ids:
                return
            centred = center(raw, self.background)
            rows = [self._slot(memory_id) for memory_id in ids]
            index = np.asarray(rows, dtype=np.int64)
            self._matrix[:, index] = centred.T
            self._category[index] = [CATEGORY_CODES[c] for c in categories]
            self._live[index] = ~np.asarray(deprecated, dtype=bool)
            self._has_cue[index] = False  # a changed text's cues are stale; set_cues follows
            self._share[index] = crossing.shares(texts)
            for row, text in zip(rows, texts, strict=True):
                self._texts[row] = text

    def remove(self, ids: list[str]) -> None:
        with self._lock:
            for memory_id in ids:
                row = self._row.pop(memory_id, None)
                if row is not None:
                    self._live[row] = False
                    self._has_cue[row] = False
                    self._ids[row] = None
                    self._texts[row] = None
                    self._free.append(row)

    def set_cues(self, vectors: dict[str, np.ndarray | None]) -> None:
        """Each memory's raw mean cue vector, or None: it has none (or none encoded yet)."""
        with self._lock:
            for memory_id, raw in vectors.items():
                row = self._row.get(memory_id)
                if row is None:
                    continue
                if raw is None:
                    self._has_cue[row] = False
                    continue
                if self._cue is None:
                    self._cue = np.zeros_like(self._matrix)
                self._cue[:, row] = self.centre_query(np.asarray(raw, dtype=np.float32))
                self._has_cue[row] = True

    def cue_scores_of(self, centred_query: np.ndarray, ids: list[str]) -> dict[str, float]:
        """The cosine of each cued live memory's cues among `ids` (calibrate.py keeps it apart
        from the memory's own)."""
        with self._lock:
            rows = [
                (i, self._row[i])
                for i in ids
                if i in self._row and self._live[self._row[i]] and self._has_cue[self._row[i]]
            ]
            if not rows or self._cue is None:
                return {}
            index = np.asarray([r for _, r in rows], dtype=np.int64)
            found = _best(centred_query @ self._cue[:, index])
            return {i: float(v) for (i, _), v in zip(rows, found.tolist(), strict=True)}

    def has_cue(self, memory_id: str) -> bool:
        with self._lock:
            row = self._row.get(memory_id)
            return row is not None and bool(self._has_cue[row])

    def _with_cues(self, rows: np.ndarray | None, scores: np.ndarray, query: np.ndarray) -> np.ndarray:
        """scores (of `rows`; None: of the first len(scores) rows) raised to the cue vector's
        cosine where that is better."""
        if self._cue is None:
            return scores
        flags = self._has_cue[: len(scores)] if rows is None else self._has_cue[rows]
        cued = np.flatnonzero(flags)
        if cued.size:
            scores = scores.copy()
            slots = cued if rows is None else rows[cued]
            scores[cued] = np.maximum(scores[cued], _best(query @ self._cue[:, slots]))
        return scores

    def set_deprecated(self, ids: list[str], deprecated: bool) -> None:
        with self._lock:
            for memory_id in ids:
                row = self._row.get(memory_id)
                if row is not None:
                    self._live[row] = not deprecated

    def set_category(self, memory_id: str, category: str) -> None:
        with self._lock:
            row = self._row.get(memory_id)
            if row is not None:
                self._category[row] = CATEGORY_CODES[category]

    def _slot(self, memory_id: str) -> int:
        row = self._row.get(memory_id)
        if row is not None:
            return row
        if self._free:
            row = self._free.pop()
        else:
            if self._used == len(self._ids):
                self._grow()
            row = self._used
            self._used += 1
        self._row[memory_id] = row
        self._ids[row] = memory_id
        return row

    def _grow(self, capacity: int | None = None) -> None:
        capacity = capacity or max(1024, len(self._ids) * 2)
        matrix = np.zeros((self.dim, capacity), dtype=np.float32)
        matrix[:, : self._used] = self._matrix[:, : self._used]
        self._matrix = matrix
        self._category = np.concatenate([self._category, np.zeros(capacity - len(self._ids), dtype=np.int8)])
        self._live = np.concatenate([self._live, np.zeros(capacity - len(self._ids), dtype=bool)])
        self._has_cue = np.concatenate([self._has_cue, np.zeros(capacity - len(self._ids), dtype=bool)])
        self._share = np.concatenate([self._share, np.zeros(capacity - len(self._ids), dtype=np.float32)])
        if self._cue is not None:
            cue = np.zeros((self.dim, capacity), dtype=np.float32)
            cue[:, : self._used] = self._cue[:, : self._used]
            self._cue = cue
        self._texts += [None] * (capacity - len(self._ids))
        self._ids += [None] * (capacity - len(self._ids))

    def text(self, memory_id: str) -> str | None:
        with self._lock:
            row = self._row.get(memory_id)
            return None if row is None else self._texts[row]

    def is_live(self, memory_id: str) -> bool:
        with self._lock:
            row = self._row.get(memory_id)
            return row is not None and bool(self._live[row])

    def category_of(self, memory_id: str) -> str | None:
        with self._lock:
            row = self._row.get(memory_id)
            if row is None:
                return None
            return "rule" if self._category[row] == CATEGORY_CODES["rule"] else "project"

    def score(self, raw_query: np.ndarray, memory_id: str) -> float | None:
        with self._lock:
            row = self._row.get(memory_id)
            return None if row is None else float(self.centre_query(raw_query) @ self._matrix[:, row])

    def scores_of(
        self,
        centred_query: np.ndarray,
        ids: list[str],
        *,
        cues: bool = False,
        crossed: Crossed | None = None,
    ) -> dict[str, float]:
        """The cosine of each live memory among `ids` (others left out) for a centred query —
        one vector, or several rows (a prompt and its sentences) of which the best counts;
        with `crossed` (the prompt's share of Chinese, the bonus), a cross-language pair's gain
        added to the memory's own cosine; with `cues`, the better of that and its cues' cosine
        (cues are written in both languages: theirs needs no bonus)."""
        with self._lock:
            rows = [(i, self._row[i]) for i in ids if i in self._row and self._live[self._row[i]]]
            if not rows:
                return {}
            index = np.asarray([r for _, r in rows], dtype=np.int64)
            found = _best(centred_query @ self._matrix[:, index])
            if crossed is not None and crossed[1]:
                found = found + crossing.bonus(crossed[0], self._share[index], crossed[1])
            if cues:
                found = self._with_cues(index, found, centred_query)
            return {i: float(s) for (i, _), s in zip(rows, found.tolist(), strict=True)}

    # -- searching ---------------------------------------------------------------------------------

    def centre_query(self, raw_query: np.ndarray) -> np.ndarray:
        return np.asarray(center(raw_query.reshape(1, -1), self.background)[0], dtype=np.float32)

    def centre_queries(self, raw_queries: np.ndarray) -> np.ndarray:
        """Several raw vectors (rows) centred at once: a prompt and its sentences."""
        return np.asarray(center(raw_queries, self.background), dtype=np.float32)

    def _scores(self, query: np.ndarray, used: int) -> np.ndarray:
        """Large pools are split across two threads of our own: the service runs BLAS on one
        thread (its spinning workers would fight torch for the cores), and numpy releases the
        GIL inside the product, so two halves run in parallel."""
        if used < SPLIT_AT:
            return _best(query @ self._matrix[:, :used])
        half = used // 2
        first = _POOL.submit(np.matmul, query, self._matrix[:, :half])
        second = query @ self._matrix[:, half:used]
        return _best(np.concatenate([first.result(), second], axis=-1))

    def ranked(self, raw_query: np.ndarray, limit: int) -> dict[str, list[tuple[str, float]]]:
        """Per category, the best `limit` live memories as (id, score), best first."""
        return self.ranked_centred(self.centre_query(raw_query), limit)

    def ranked_centred(
        self, query: np.ndarray, limit: int, *, cues: bool = False, crossed: Crossed | None = None
    ) -> dict[str, list[tuple[str, float]]]:
        with self._lock:
            used = self._used
            scores = self._scores(query, used)
            if crossed is not None and crossed[1]:
                scores = scores + crossing.bonus(crossed[0], self._share[:used], crossed[1])
            if cues:
                scores = self._with_cues(None, scores, query)
            result: dict[str, list[tuple[str, float]]] = {}
            for category, code in CATEGORY_CODES.items():
                mask = self._live[:used] & (self._category[:used] == code)
                candidates = np.flatnonzero(mask)
                if candidates.size == 0:
                    result[category] = []
                    continue
                cat_scores = scores[candidates]
                k = min(limit, candidates.size)
                top = np.argpartition(-cat_scores, k - 1)[:k]
                top = top[np.argsort(-cat_scores[top], kind="stable")]
                result[category] = [(str(self._ids[candidates[t]]), float(cat_scores[t])) for t in top]
            return result
