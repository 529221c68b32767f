"""Find near-duplicate clusters and contradicting pairs among the live memories, in bulk.

The live memories' centred vectors (as the recall index holds them) are compared a block of
rows at a time (one matrix product per block, never a Python loop over pairs); each memory
keeps its NEIGHBOURS closest above the thresholds' floor, of its own scope (a repository's
fact is compared with that repository's facts and the global ones with the global ones: two
repositories may well use different ports). At most MAX_PAIRS candidate pairs, closest
first, get the text signals (signals.py, linear in the texts) and are classified with the
calibrated thresholds. Duplicates are joined into clusters of at most MAX_CLUSTER memories.
10k memories of one scope: 128 x 10k floats a block (5 MB), about 40 GFLOP in all — seconds,
on the pass's own thread, never in a request of a hook.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from . import signals
from .thresholds import Thresholds, classify

# Rows a matrix product at a time. The pass runs inside the resident service, and glibc keeps
# what a block's temporaries took (the products, their negation, argpartition's int64 indices):
# the larger the block, the more the service keeps after the day's pass (`service_rss_mb`).
BLOCK = 128
NEIGHBOURS = 4
MAX_PAIRS = 2000
MAX_CLUSTER = 5


@dataclass(frozen=True)
class Member:
    id: str
    text: str
    confidence: float = 0.0
    pinned: bool = False


@dataclass
class Finding:
    """A cluster of duplicates, or a pair that contradicts itself; `score`: the closest cosine."""

    kind: str  # "duplicate" or "contradiction"
    members: list[Member]
    score: float
    conflict: str | None = None
    key: str = field(default="", init=False)

    def __post_init__(self) -> None:
        self.key = cluster_key(self.members)


def cluster_key(members: list[Member]) -> str:
    """Names the members and their texts: a changed member or text makes another key (so a
    declined cluster is proposed again only once something in it changed)."""
    parts = sorted(f"{m.id}:{hashlib.sha256(m.text.encode('utf-8')).hexdigest()[:16]}" for m in members)
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:32]


def candidate_pairs(
    matrix: np.ndarray,
    groups: np.ndarray,
    floor: float,
    neighbours: int = NEIGHBOURS,
    max_pairs: int = MAX_PAIRS,
) -> list[tuple[int, int, float]]:
    """(i, j, cosine) with i < j, each row's closest `neighbours` of its group at or above
    `floor`, at most `max_pairs`, closest first. matrix: unit rows. Each group (scope) is
    compared with itself only, a block of rows at a time: n x n x dim multiply-adds at most
    (10k memories of one scope: about 40 GFLOP, seconds), less the more scopes there are."""
    found: dict[tuple[int, int], float] = {}
    for code in np.unique(groups):
        rows = np.flatnonzero(groups == code)
        _pairs_within(matrix[rows], rows, floor, neighbours, found)
    ranked = sorted(found.items(), key=lambda item: -item[1])[:max_pairs]
    return [(i, j, s) for (i, j), s in ranked]


def _pairs_within(
    part: np.ndarray, rows: np.ndarray, floor: float, neighbours: int, found: dict[tuple[int, int], float]
) -> None:
    n = len(part)
    k = min(neighbours, n - 1)
    if k <= 0:
        return
    for start in range(0, n, BLOCK):
        stop = min(start + BLOCK, n)
        sims = part[start:stop] @ part.T
        sims[np.arange(stop - start), np.arange(start, stop)] = -2.0  # itself
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        best = np.take_along_axis(sims, top, axis=1)
        for r, c in zip(*np.nonzero(best >= floor), strict=True):
            i, j = int(rows[start + r]), int(rows[top[r, c]])
            found[(min(i, j), max(i, j))] = float(best[r, c])


def find(
    members: list[Member], matrix: np.ndarray, groups: np.ndarray, thresholds: Thresholds
) -> list[Finding]:
    """Duplicate clusters and contradicting pairs, the closest first."""
    pairs = candidate_pairs(matrix, groups, thresholds.floor())
    readings: dict[int, signals.Reading] = {}

    def reading(i: int) -> signals.Reading:
        if i not in readings:
            readings[i] = signals.read(members[i].text)
        return readings[i]

    duplicates: list[tuple[int, int, float]] = []
    contradictions: list[Finding] = []
    for i, j, cosine in pairs:
        s = signals.compare(reading(i), reading(j))
        kind = classify(cosine, s.lexical, s.frame, s.conflict, thresholds)
        if kind == "duplicate":
            duplicates.append((i, j, cosine))
        elif kind == "contradiction":
            contradictions.append(Finding("contradiction", [members[i], members[j]], cosine, s.conflict))
    clusters = _clusters(duplicates)
    in_cluster = {members[i].id for rows, _ in clusters for i in rows}
    findings = [Finding("duplicate", [members[i] for i in sorted(rows)], score) for rows, score in clusters]
    findings += [f for f in contradictions if not {m.id for m in f.members} <= in_cluster]
    return sorted(findings, key=lambda f: -f.score)


def _clusters(pairs: list[tuple[int, int, float]]) -> list[tuple[set[int], float]]:
    """Union of the duplicate pairs, closest first; a join past MAX_CLUSTER is left out."""
    parent: dict[int, int] = {}
    size: dict[int, int] = {}
    best: dict[int, float] = {}

    def root(x: int) -> int:
        parent.setdefault(x, x)
        size.setdefault(x, 1)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j, score in pairs:  # closest first (candidate_pairs' order)
        a, b = root(i), root(j)
        if a == b:
            continue
        if size[a] + size[b] > MAX_CLUSTER:
            continue
        parent[b] = a
        size[a] += size[b]
        best[a] = max(best.get(a, score), best.get(b, score), score)
    groups: dict[int, set[int]] = {}
    for x in list(parent):
        groups.setdefault(root(x), set()).add(x)
    return [(rows, best.get(r, 0.0)) for r, rows in groups.items() if len(rows) > 1]
