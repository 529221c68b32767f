"""The lexical half of recall: a small BM25 index kept beside the vector index.

A small multilingual model blurs exact names — a switch `pay_new_flow_v2`, a host
`pg-staging-02`, a tool name — that a word match sees at once. What a text is cut into is
terms.py's.

BM25 (k1 1.2, b 0.75) over the live memories, each document scored against the query and
normalised by what the query could score at most: 0 (nothing in common) to 1 (every term of
the query found). The idf counts `PRIOR_DOCS` imaginary unrelated memories besides the real
ones, so a pool of three memories does not call every word rare.

The index is a dict of postings (document numbers and term counts in `array`s: 6 bytes a
posting). Documents get increasing numbers and are never renumbered in place: a changed or
removed memory's old document is masked dead, its postings skipped, and the whole index is
rebuilt from the live texts once dead documents outnumber live ones.

An index restored from its file (lexical_file.py) keeps the file's postings as they were read:
flat arrays, each term a slice of them found through the terms' hashes (`FrozenPostings`), no Python
object per term (a dict of per-term views held an object for every term and posting). A
restored term copies its slice into the dict of arrays when a document is added to it.
"""

from __future__ import annotations

import math
import threading
from array import array
from collections import Counter
from collections.abc import Iterable
from typing import TypeAlias

import numpy as np

from .lexical_saved import FrozenPostings, Snapshot
from .terms import terms

K1 = 1.2
B = 0.75
PRIOR_DOCS = 100
CATEGORY_CODES = {"rule": 0, "project": 1}
MAX_QUERY_TERMS = 160

Postings: TypeAlias = "array[int]"


class LexicalIndex:
    """BM25 over live memories, in step with the vector index (same ids, same liveness)."""

    def __init__(self, capacity: int = 1024) -> None:
        # a term's document numbers and counts; a restored index's terms are in `_frozen`
        # until a new document copies one here. `_df`: the live documents of a term, less
        # (or more) than `_frozen.df` says for a restored one
        self._postings: dict[str, tuple[Postings, Postings]] = {}
        self._frozen = FrozenPostings.empty()
        self._df: Counter[str] = Counter()
        self._doc_of: dict[str, int] = {}  # memory id -> its current document number
        self._ids: list[str | None] = []  # document number -> memory id (None: dead)
        self._texts: list[str | None] = []
        self._length = np.zeros(capacity, dtype=np.float32)
        self._category = np.zeros(capacity, dtype=np.int8)
        self._live = np.zeros(capacity, dtype=bool)
        self._total_length = 0.0
        self._live_count = 0
        self._lock = threading.RLock()

    def __len__(self) -> int:
        return self._live_count

    @property
    def documents(self) -> int:
        return len(self._ids)

    def posting_count(self) -> int:
        with self._lock:
            held = sum(len(docs) for docs, _ in self._postings.values())
            return held + int(self._frozen.sizes().sum())

    def nbytes(self) -> int:
        """The postings' and per-document arrays' own bytes (not Python's object overhead)."""
        with self._lock:
            postings = sum(
                docs.itemsize * len(docs) + tfs.itemsize * len(tfs) for docs, tfs in self._postings.values()
            )
            postings += int(self._frozen.sizes().sum()) * (
                self._frozen.docs.itemsize + self._frozen.tfs.itemsize
            )
            return postings + self._length.nbytes + self._category.nbytes + self._live.nbytes

    # -- keeping in sync ----------------------------------------------------------------------------
    def upsert(self, ids: list[str], categories: list[str], texts: list[str], live: Iterable[bool]) -> None:
        with self._lock:
            for memory_id, category, text, alive in zip(ids, categories, texts, live, strict=True):
                self._drop(memory_id)
                self._add(memory_id, category, text, bool(alive))
            self._maybe_compact()

    def text_of(self, memory_id: str) -> str:
        """The text a document was indexed from ("" when there is none)."""
        with self._lock:
            doc = self._doc_of.get(memory_id)
            return (self._texts[doc] or "") if doc is not None else ""

    def remove(self, ids: list[str]) -> None:
        with self._lock:
            for memory_id in ids:
                self._drop(memory_id)
            self._maybe_compact()

    def _add(self, memory_id: str, category: str, text: str, alive: bool) -> None:
        doc = len(self._ids)
        if doc >= len(self._length):
            self._grow(max(1024, doc * 2))
        self._ids.append(memory_id)
        self._texts.append(text)
        self._doc_of[memory_id] = doc
        counts = Counter(terms(text))
        for term, count in counts.items():
            held = self._postings.get(term)
            if held is not None:
                docs, tfs = held
            else:  # a new term, or a restored one's first new document: mutable copies
                docs, tfs = array("I"), array("H")
                slot = self._frozen.find(term)
                if slot >= 0:
                    old_docs, old_tfs = self._frozen.postings(slot)
                    docs.frombytes(old_docs.tobytes())
                    tfs.frombytes(old_tfs.tobytes())
                    self._frozen.moved[slot] = True
                self._postings[term] = (docs, tfs)
            docs.append(doc)
            tfs.append(min(count, 65535))
        length = float(sum(counts.values()))
        self._length[doc] = length
        self._category[doc] = CATEGORY_CODES[category]
        self._live[doc] = alive
        if alive:
            self._count_in(counts, length)

    def _drop(self, memory_id: str) -> None:
        doc = self._doc_of.pop(memory_id, None)
        if doc is None:
            return
        if self._live[doc]:
            self._count_out(Counter(terms(self._texts[doc] or "")), float(self._length[doc]))
        self._live[doc] = False
        self._ids[doc] = None
        self._texts[doc] = None

    def _count_in(self, counts: Counter[str], length: float) -> None:
        self._df.update(counts.keys())
        self._total_length += length
        self._live_count += 1

    def _count_out(self, counts: Counter[str], length: float) -> None:
        self._df.subtract(counts.keys())
        self._total_length -= length
        self._live_count -= 1

    def _grow(self, capacity: int) -> None:
        extra = capacity - len(self._length)
        self._length = np.concatenate([self._length, np.zeros(extra, dtype=np.float32)])
        self._category = np.concatenate([self._category, np.zeros(extra, dtype=np.int8)])
        self._live = np.concatenate([self._live, np.zeros(extra, dtype=bool)])

    def _maybe_compact(self) -> None:
        dead = len(self._ids) - len(self._doc_of)
        if dead > max(1024, len(self._doc_of)):
            self._rebuild()

    def _rebuild(self) -> None:
        kept = [
            (memory_id, self._texts[doc] or "", int(self._category[doc]), bool(self._live[doc]))
            for memory_id, doc in sorted(self._doc_of.items(), key=lambda pair: pair[1])
        ]
        self.__init__(max(1024, len(kept) + 1024))  # type: ignore[misc]
        names = {code: name for name, code in CATEGORY_CODES.items()}
        for memory_id, text, code, alive in kept:
            self._add(memory_id, names[code], text, alive)

    def set_live(self, memory_id: str, alive: bool) -> None:
        with self._lock:
            doc = self._doc_of.get(memory_id)
            if doc is None or bool(self._live[doc]) == alive:
                return
            counts, length = Counter(terms(self._texts[doc] or "")), float(self._length[doc])
            if alive:
                self._count_in(counts, length)
            else:
                self._count_out(counts, length)
            self._live[doc] = alive

    def set_category(self, memory_id: str, category: str) -> None:
        with self._lock:
            doc = self._doc_of.get(memory_id)
            if doc is not None:
                self._category[doc] = CATEGORY_CODES[category]

    # -- scoring ------------------------------------------------------------------------------------
    def idf(self, term: str) -> float:
        with self._lock:
            return _idf(self._live_count, self._df_of(term, self._frozen.find(term)))

    def _df_of(self, term: str, slot: int) -> int:
        return self._df.get(term, 0) + (self._frozen.df[slot] if slot >= 0 else 0)

    def scores(self, text: str) -> LexicalScores:
        """Every document's normalised BM25 score for this query (0 where nothing matched)."""
        with self._lock:
            query = list(dict.fromkeys(terms(text)))[:MAX_QUERY_TERMS]
            n = self._live_count
            frozen = self._frozen
            if len(frozen):  # restored: a term's count is the file's and the changes since
                slots = [frozen.find(t) for t in query]
                dfs = [
                    self._df.get(t, 0) + (frozen.df[slot] if slot >= 0 else 0)
                    for t, slot in zip(query, slots, strict=True)
                ]
            else:
                slots = [-1] * len(query)
                dfs = [self._df.get(t, 0) for t in query]
            weights = [_idf(n, df) for df in dfs]
            ceiling = sum(weights) * (K1 + 1)
            if not query or ceiling <= 0 or n == 0:
                return LexicalScores.empty(self)
            average = self._total_length / n if n else 1.0
            docs_parts: list[np.ndarray] = []
            score_parts: list[np.ndarray] = []
            for term, slot, df, weight in zip(query, slots, dfs, weights, strict=True):
                held = self._postings.get(term)
                if not df or (held is None and slot < 0):
                    continue
                if held is not None:
                    docs = np.frombuffer(held[0], dtype=np.uint32)
                    tfs = np.frombuffer(held[1], dtype=np.uint16).astype(np.float32)
                else:
                    docs, counts = self._frozen.postings(slot)
                    tfs = counts.astype(np.float32)
                norm = K1 * (1 - B + B * self._length[docs] / average)
                docs_parts.append(docs)
                score_parts.append(weight * tfs * (K1 + 1) / (tfs + norm))
            if not docs_parts:
                return LexicalScores.empty(self)
            # one pass over the matched postings and the document numbers (no sort)
            summed = np.bincount(
                np.concatenate(docs_parts), weights=np.concatenate(score_parts), minlength=len(self._ids)
            )
            found = np.flatnonzero(summed[: len(self._ids)] * self._live[: len(self._ids)])
            return LexicalScores(
                self,
                found.astype(np.uint32),
                (summed[found] / ceiling).astype(np.float32),
                self._category[found],
            )

    def doc_of(self, memory_id: str) -> int | None:
        return self._doc_of.get(memory_id)

    # -- catching up with the store's rows, and the copy kept on disk (lexical_file.py) -----------
    def catch_up(self, ids: list[str], categories: list[str], texts: list[str], live: Iterable[bool]) -> int:
        """Make the index hold exactly these rows (the store's pool): documents of other ids
        dropped, a changed text indexed again, a changed category or liveness set. The result
        scores as an index built from the rows would (document numbers aside), and holds the
        rows' own id and text strings (a restored index's equal copies from its file let go).
        Returns how many documents changed."""
        with self._lock:
            wanted = dict.fromkeys(ids)
            gone = [memory_id for memory_id in self._doc_of if memory_id not in wanted]
            for memory_id in gone:
                self._drop(memory_id)
            changed = len(gone)
            for memory_id, category, text, alive in zip(ids, categories, texts, live, strict=True):
                doc = self._doc_of.get(memory_id)
                if doc is None or self._texts[doc] != text:
                    self._drop(memory_id)
                    self._add(memory_id, category, text, bool(alive))
                    changed += 1
                    continue
                # the rows' strings, not the file's equal copies: the vector index holds these
                self._ids[doc], self._texts[doc] = memory_id, text
                if self._category[doc] != CATEGORY_CODES[category]:
                    self._category[doc] = CATEGORY_CODES[category]
                    changed += 1
                if bool(self._live[doc]) != bool(alive):
                    self.set_live(memory_id, bool(alive))
                    changed += 1
            self._doc_of = {memory_id: self._doc_of[memory_id] for memory_id in wanted}  # their keys too
            self._maybe_compact()
            return changed

    def snapshot(self) -> Snapshot:
        """The present documents, numbered again in their order (dead ones left out), and their
        postings as flat arrays: what lexical_file.py writes. The lock is held only to copy."""
        with self._lock:
            kept = sorted(self._doc_of.values())
            ids = [self._ids[doc] or "" for doc in kept]
            texts = [self._texts[doc] or "" for doc in kept]
            rows = np.asarray(kept, dtype=np.int64)
            length, category, live = self._length[rows], self._category[rows], self._live[rows]
            postings = self._frozen.kept()
            postings += [
                (term, docs.tobytes(), tfs.tobytes()) for term, (docs, tfs) in self._postings.items()
            ]
            documents = len(self._ids)
        renumber = np.full(documents + 1, -1, dtype=np.int64)
        renumber[rows] = np.arange(len(rows))
        counts = np.fromiter((len(docs) // 4 for _, docs, _ in postings), dtype=np.int64, count=len(postings))
        old_docs = np.frombuffer(b"".join(docs for _, docs, _ in postings), dtype=np.uint32)
        tfs = np.frombuffer(b"".join(tfs for _, _, tfs in postings), dtype=np.uint16)
        owner = np.repeat(np.arange(len(postings)), counts)
        new_docs = renumber[old_docs]
        keep = new_docs >= 0
        per_term = np.bincount(owner[keep], minlength=len(postings))
        used = np.flatnonzero(per_term)
        return Snapshot(
            ids=ids,
            texts=texts,
            length=length,
            category=category,
            live=live,
            terms=[postings[int(t)][0] for t in used],
            term_end=np.cumsum(per_term[used]).astype(np.int64),
            docs=new_docs[keep].astype(np.uint32),
            tfs=tfs[keep].copy(),
        )

    @classmethod
    def restore(cls, snap: Snapshot) -> LexicalIndex:
        """The index a snapshot was taken of (its document frequencies, total length and live
        count counted again from the postings and flags, so they cannot disagree with them)."""
        n = len(snap.ids)
        index = cls(max(1024, n + 1024))
        index._ids = list(snap.ids)
        index._texts = list(snap.texts)
        index._doc_of = dict(zip(snap.ids, range(n), strict=True))
        index._length[:n] = snap.length
        index._category[:n] = snap.category
        index._live[:n] = snap.live
        docs, tfs = snap.docs.astype(np.uint32), snap.tfs.astype(np.uint16)
        docs.flags.writeable = tfs.flags.writeable = False
        index._frozen = FrozenPostings(
            snap.terms, snap.term_end, docs, tfs, np.asarray(snap.live, dtype=bool)
        )
        index._total_length = float(snap.length[snap.live].astype(np.float64).sum())
        index._live_count = int(snap.live.sum())
        return index


class LexicalScores:
    """One query's lexical scores: by memory id, and the best per category. Documents are
    sorted numbers (np.unique's order), so a lookup is a binary search."""

    def __init__(self, index: LexicalIndex, docs: np.ndarray, scores: np.ndarray, codes: np.ndarray) -> None:
        self._index = index
        self._docs = docs
        self._scores = scores
        self._codes = codes

    @classmethod
    def empty(cls, index: LexicalIndex) -> LexicalScores:
        return cls(index, np.zeros(0, np.uint32), np.zeros(0, np.float32), np.zeros(0, np.int8))

    def __len__(self) -> int:
        return len(self._docs)

    def of(self, memory_id: str) -> float:
        doc = self._index.doc_of(memory_id)
        if doc is None or not len(self._docs):
            return 0.0
        at = int(np.searchsorted(self._docs, doc))
        return float(self._scores[at]) if at < len(self._docs) and self._docs[at] == doc else 0.0

    def of_many(self, memory_ids: list[str]) -> list[float]:
        """`of` for many ids with one binary search (the prompt path asks for dozens of them)."""
        if not len(self._docs):
            return [0.0] * len(memory_ids)
        wanted = [self._index.doc_of(i) for i in memory_ids]
        docs = np.asarray([-1 if d is None else d for d in wanted], dtype=np.int64)
        at = np.minimum(np.searchsorted(self._docs, docs), len(self._docs) - 1)
        found = self._docs[at] == docs
        return np.where(found, self._scores[at], 0.0).tolist()  # type: ignore[no-any-return]

    def top(self, category: str, limit: int) -> list[tuple[str, float]]:
        mask = np.flatnonzero(self._codes == CATEGORY_CODES[category])
        if not mask.size or limit <= 0:
            return []
        scores = self._scores[mask]
        k = min(limit, mask.size)
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.argsort(-scores[best], kind="stable")]
        out = []
        for position in best:
            memory_id = self._index._ids[int(self._docs[mask[position]])]
            if memory_id is not None:
                out.append((memory_id, float(scores[position])))
        return out


def _idf(live: int, df: int) -> float:
    total = live + PRIOR_DOCS
    return math.log(1 + (total - df + 0.5) / (df + 0.5))


def alone(query: str, text: str) -> float:
    """The normalised score of `text` as the only memory of a pool (verify's one-memory figure)."""
    index = LexicalIndex(capacity=4)
    index.upsert(["only"], ["rule"], [text], [True])
    return index.scores(query).of("only")
