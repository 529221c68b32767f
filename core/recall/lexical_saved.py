"""A lexical index as its file holds it (`Snapshot`), and a restored index's postings kept as
those flat arrays (`FrozenPostings`) rather than a Python object per term (lexical.py)."""

from __future__ import annotations

import itertools
from array import array
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Snapshot:
    """A lexical index as flat arrays: documents 0..n-1 (ids, texts, lengths, categories,
    liveness) and each term's postings, the term's slice of `docs`/`tfs` ending at `term_end`."""

    ids: list[str]
    texts: list[str]
    length: np.ndarray
    category: np.ndarray
    live: np.ndarray
    terms: list[str]
    term_end: np.ndarray
    docs: np.ndarray
    tfs: np.ndarray


class FrozenPostings:
    """A restored index's postings, read-only, as flat arrays: term `slot`'s documents and
    counts are `docs[bounds[slot]:bounds[slot + 1]]` (and `tfs`'s), its live document count
    `df[slot]`, its UTF-8 name `names[name_ends[slot]:name_ends[slot + 1]]`. A term is found
    by its `hash()` (this process's: the table is built at restore and never written) in
    `hashes`, sorted, whose `order` gives the slot; the name settles a collision. A term
    given a document after the restore lives in the index's dict from then on (`moved`)."""

    def __init__(
        self, terms: list[str], term_end: np.ndarray, docs: np.ndarray, tfs: np.ndarray, live: np.ndarray
    ):
        count = len(terms)
        self.docs, self.tfs = docs, tfs
        self.bounds = array("q", [0])
        self.bounds.frombytes(np.asarray(term_end, dtype=np.int64).tobytes())
        starts = np.frombuffer(self.bounds, dtype=np.int64)[:-1]
        per_posting = live[docs].astype(np.int64) if len(docs) else np.zeros(0, np.int64)
        df = np.add.reduceat(per_posting, starts) if len(per_posting) else np.zeros(0, np.int64)
        self.df = array("I", df.astype(np.uint32).tobytes())
        encoded = [term.encode() for term in terms]
        self.names = b"".join(encoded)
        self.name_ends = array("q", itertools.accumulate(map(len, encoded), initial=0))
        hashes = np.fromiter(map(hash, terms), dtype=np.int64, count=count)
        order = np.argsort(hashes, kind="stable")
        self.hashes = array("q", hashes[order].tobytes())
        self.order = array("I", order.astype(np.uint32).tobytes())
        # the hashes' top bits index `buckets`, where each bucket's run of `hashes` starts:
        # a lookup reads about one hash, where a binary search over the terms read a dozen or more
        bits = max(1, (count - 1).bit_length())
        self.shift, self.half = 64 - bits, 1 << (bits - 1)
        bucket_of = (hashes[order] >> self.shift) + self.half
        first_of = np.searchsorted(bucket_of, np.arange((1 << bits) + 1))
        self.buckets = array("I", first_of.astype(np.uint32).tobytes())
        self.moved = np.zeros(count, dtype=bool)

    @classmethod
    def empty(cls) -> FrozenPostings:
        none = np.zeros(0, dtype=np.int64)
        return cls([], none, none.astype(np.uint32), none.astype(np.uint16), np.zeros(0, dtype=bool))

    def __len__(self) -> int:
        return len(self.order)

    def find(self, term: str) -> int:
        """The term's slot, or -1."""
        key = hash(term)
        bucket = (key >> self.shift) + self.half
        buckets, hashes = self.buckets, self.hashes
        for at in range(buckets[bucket], buckets[bucket + 1]):
            if hashes[at] == key:
                slot = self.order[at]
                name = term.encode()
                start = self.name_ends[slot]
                if self.name_ends[slot + 1] - start == len(name) and self.names.startswith(name, start):
                    return slot
        return -1

    def name(self, slot: int) -> bytes:
        return self.names[self.name_ends[slot] : self.name_ends[slot + 1]]

    def postings(self, slot: int) -> tuple[np.ndarray, np.ndarray]:
        start, end = self.bounds[slot], self.bounds[slot + 1]
        return self.docs[start:end], self.tfs[start:end]

    def sizes(self) -> np.ndarray:
        """Each slot's posting count, 0 for a moved one."""
        return np.diff(np.frombuffer(self.bounds, dtype=np.int64)) * ~self.moved

    def kept(self) -> list[tuple[str, bytes, bytes]]:
        """(term, documents, counts) of the slots not moved, in slot order: what snapshot()
        writes of them."""
        out = []
        for slot in np.flatnonzero(~self.moved).tolist():
            docs, tfs = self.postings(slot)
            out.append((self.name(slot).decode(), docs.tobytes(), tfs.tobytes()))
        return out


# -- the index ----------------------------------------------------------------------------------------
