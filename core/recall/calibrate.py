"""Choose the hybrid gate's defaults by cross-validation, and report figures honestly.

    python -m memevo.core.recall.calibrate tests/data/recall-set.json [more files] [--folds 5] [--seeds 3]

Each file's memories go into a throwaway store (the user's is never opened); with several
files, each file's cases are scored against its own memories only and the search runs over
all cases at once (`stack`). Every case's
cosine and lexical score against every memory are computed once, through the engine's own
indexes; then, for each fold, the lexical weight, the question damping, the generic damping
(generic.py: where it starts and how much) and the two minimums are chosen on the other folds
— the lowest minimums that keep unrelated prompts bringing a rule within `--rule-leak` (4%)
and a project fact within `--project-leak` (0), then the weight and dampings with the most
related hits — and the fold's figures are measured with them. The reported figures are the
folds' sums: never measured on the cases they were chosen on. The values chosen on all cases
are printed last, and beside them what ships (core/recall/gate_defaults.py) on the same cases:
chosen on our own set alone, the values did worse on every set held out from it (the blind
sets, the public development split: `--hold-out`), so what ships is the earlier choice with the
changes that held on all of them (docs/recall.md, "On public data"). The cross-language bonus
is held at the shipped value unless `--cross-language` lists values to choose from. Public
sets (core/recall/public_sets.py) are read as cases files. Action cases are measured with the
prompt gate as chosen on all prompt cases; they are never used to choose anything.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

import numpy as np

from . import generic
from .calibrate_tables import Table
from .gate import RELATIVE_KEEP

WEIGHTS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.5)
DAMPINGS = (0.0, 0.1, 0.2, 0.3)
# (from, weight) of the generic damping (generic.py); the first: none.
NO_GENERIC = (1.0, 0.0)
GENERIC = (NO_GENERIC, *itertools.product((0.55, 0.6, 0.65, 0.7), (0.5, 1.0, 1.5)))
MINIMUMS = tuple(round(0.30 + 0.01 * i, 2) for i in range(91))
# the cross-language bonus (crossing.py)
CROSSINGS = (0.0, 0.05, 0.1, 0.15)


@dataclass(frozen=True)
class Grid:
    """The values the search tries (the minimums are derived for each combination). A grid
    whose only weight is 0 is the cosine gate: no damping, no bonus."""

    weights: tuple[float, ...] = WEIGHTS
    dampings: tuple[float, ...] = DAMPINGS
    generic: tuple[tuple[float, float], ...] = GENERIC
    crossings: tuple[float, ...] = CROSSINGS

    @property
    def hybrid(self) -> bool:
        return self.weights != (0.0,)


FULL = Grid()
COSINE_ONLY = Grid(weights=(0.0,), dampings=(0.0,), generic=(NO_GENERIC,), crossings=(0.0,))
TOP_K = 3
# weight, question damping, min rule, min project, generic from, generic weight, cross-language bonus
Params = tuple[float, float, float, float, float, float, float]


Offsets = tuple[float, float]  # taken off a cued rule's / project fact's fused score
NO_OFFSETS: Offsets = (0.0, 0.0)
OFFSETS = tuple(round(-0.10 + 0.01 * i, 2) for i in range(51))

# The search below runs the gate over every case of a fold at once (a few thousand parameter
# sets a run). Each step is the engine's arithmetic in the engine's types — float32 signals, a
# prompt's damping subtracted as a float32 scalar, the offsets in float64 — so every score, and
# so every choice, is what one case at a time gives (tests/test_recall_calibrate.py holds the
# two to each other).


def _damping(t: Table, q: int, p: Params) -> float:
    """What the case's prompt loses from every fused score (as RecallEngine.damping)."""
    return float(p[1] * t.question[q]) + generic.damping(float(t.generic[q]), p[4], p[5])


def _dampings(t: Table, p: Params) -> np.ndarray:
    """_damping of every case, float32 as the engine subtracts it from float32 scores."""
    key = ("damping", p[1], p[4], p[5])
    if key not in t.derived:
        t.derived[key] = np.asarray(
            [_damping(t, q, p) for q in range(len(t.valid))], dtype=np.float64
        ).astype(t.cosine.dtype)
    return np.asarray(t.derived[key])


def _offsets(t: Table, offsets: Offsets) -> np.ndarray:
    return np.asarray(np.where(t.rule, offsets[0], offsets[1]) * t.cued)


def _fused(t: Table, rows: np.ndarray, p: Params, offsets: Offsets) -> np.ndarray:
    """The fused scores of the cases `rows` (rows x memories)."""
    signals = _cosine(t, rows, p) + p[0] * t.lexical[rows]
    return np.asarray(signals - _dampings(t, p)[rows][:, None] - _offsets(t, offsets)[None, :])


def _cosine(t: Table, rows: np.ndarray, p: Params) -> np.ndarray:
    """The cosines of the cases `rows` as the index gives them: the memory's own with the
    cross-language bonus, then the better of that and its cues'."""
    own = t.cosine[rows]
    if p[6]:
        own = own + (np.float32(p[6]) * t.crossing[rows]).astype(t.cosine.dtype)
    if t.cue_cosine is not None:
        own = np.maximum(own, t.cue_cosine[rows])
    return np.asarray(own)


def _gate(scores: np.ndarray, minimum: float) -> np.ndarray:
    """Per row, which columns the gate keeps: of the top TOP_K, those within RELATIVE_KEEP of
    the first and at least `minimum`."""
    if scores.shape[1] == 0:  # a file with no memory of this category
        return np.zeros(scores.shape, dtype=bool)
    order = np.argsort(-scores, axis=1, kind="stable")[:, :TOP_K]
    top = np.take_along_axis(scores, order, axis=1)
    floor = np.maximum(top[:, 0] * RELATIVE_KEEP, minimum)
    kept = np.zeros(scores.shape, dtype=bool)
    np.put_along_axis(kept, order, top >= floor[:, None], axis=1)
    return kept


@dataclass(frozen=True)
class _Expected:
    related: np.ndarray  # per case: it expects a memory
    matrix: np.ndarray  # cases x memories: expected
    pair_case: np.ndarray  # one entry per expected memory of a case (repeats kept)
    pair_memory: np.ndarray
    pair_alone: np.ndarray  # the one-memory lexical of the pair


def _expected(t: Table) -> _Expected:
    if "expected" not in t.derived:
        n, m = t.cosine.shape
        matrix = np.zeros((n, m), dtype=bool)
        pairs = [(q, k) for q, ks in enumerate(t.expect) for k in ks]
        for q, k in pairs:
            matrix[q, k] = True
        t.derived["expected"] = _Expected(
            np.asarray([bool(e) for e in t.expect], dtype=bool),
            matrix,
            np.asarray([q for q, _ in pairs], dtype=np.intp),
            np.asarray([k for _, k in pairs], dtype=np.intp),
            np.asarray([t.alone.get(pair, 0.0) for pair in pairs], dtype=np.float64),
        )
    expected: _Expected = t.derived["expected"]
    return expected


def figures(t: Table, cases: list[int], p: Params, offsets: Offsets = NO_OFFSETS) -> dict[str, int]:
    weight, min_rule, min_project = p[0], p[2], p[3]
    e = _expected(t)
    chosen = np.asarray(cases, dtype=np.intp)
    related = e.related[chosen]
    times = np.bincount(chosen, minlength=len(t.valid))  # how often each case is counted
    out = dict(hit=0, related=int(related.sum()), rule_leaks=0, project_leaks=0)
    out |= dict(unrelated=int((~related).sum()), single=0, single_total=int(times[e.pair_case].sum()))
    rows = chosen[t.valid[chosen]]
    fused = _fused(t, rows, p, offsets)
    rules, projects = _gate(fused[:, t.rule], min_rule), _gate(fused[:, ~t.rule], min_project)
    kept = np.zeros(fused.shape, dtype=bool)
    kept[:, t.rule], kept[:, ~t.rule] = rules, projects
    asked = e.related[rows]
    out["hit"] = int((kept & e.matrix[rows]).any(axis=1)[asked].sum())
    out["rule_leaks"] = int(np.asarray(rules.any(axis=1))[~asked].sum())
    out["project_leaks"] = int(np.asarray(projects.any(axis=1))[~asked].sum())
    # each expected memory alone: its own one-memory lexical instead of the prompt's
    counted = times[e.pair_case] * t.valid[e.pair_case]
    q, m = e.pair_case, e.pair_memory
    cos = (
        t.cosine[q, m] + (np.float32(p[6]) * t.crossing[q, m]).astype(t.cosine.dtype)
        if p[6]
        else t.cosine[q, m]
    )
    if t.cue_cosine is not None:
        cos = np.maximum(cos, t.cue_cosine[q, m])
    alone = cos + (weight * e.pair_alone).astype(t.cosine.dtype)
    alone = alone - _dampings(t, p)[q] - _offsets(t, offsets)[m]
    passed = alone >= np.where(t.rule[m], min_rule, min_project)
    out["single"] = int((counted * passed).sum())
    return out


def _top_unrelated(t: Table, cases: list[int], p: Params, mask: np.ndarray, offsets: Offsets) -> np.ndarray:
    """Each valid unrelated case's best fused score among the memories of `mask`."""
    chosen = np.asarray(cases, dtype=np.intp)
    rows = chosen[~_expected(t).related[chosen] & t.valid[chosen]]
    return np.asarray(_fused(t, rows, p, offsets)[:, mask].max(axis=1))


def choose_offsets(t: Table, cases: list[int], p: Params, rule_leak: float, project_leak: float) -> Offsets:
    """With the prompt gate `p` fixed, the smallest offset per category that keeps unrelated
    prompts within the leak bounds once cues count (more offset never leaks more)."""
    chosen = []
    for n, (mask, bound, minimum) in enumerate(((t.rule, rule_leak, p[2]), (~t.rule, project_leak, p[3]))):
        allowed = int(np.floor(bound * len([q for q in cases if not t.expect[q]]) + 1e-9))
        for offset in OFFSETS:
            offsets = (offset, 0.0) if n == 0 else (0.0, offset)
            leaks = int((_top_unrelated(t, cases, p, mask, offsets) >= minimum).sum())
            if leaks <= allowed:
                chosen.append(offset)
                break
        else:
            chosen.append(OFFSETS[-1])
    return chosen[0], chosen[1]


def choose(
    t: Table,
    cases: list[int],
    rule_leak: float,
    project_leak: float,
    grid: Grid = FULL,
) -> Params:
    unrelated = [q for q in cases if not t.expect[q]]
    best: tuple[tuple[int, int, int], Params] | None = None
    if not grid.hybrid:
        grid = COSINE_ONLY
    for weight, damping, (start, lift), bonus in itertools.product(
        grid.weights, grid.dampings, grid.generic, grid.crossings
    ):
        chosen = []
        for mask, bound in ((t.rule, rule_leak), (~t.rule, project_leak)):
            probe: Params = (weight, damping, 0.0, 0.0, start, lift, bonus)
            tops = sorted(_top_unrelated(t, cases, probe, mask, NO_OFFSETS).tolist(), reverse=True)
            allowed = int(np.floor(bound * len(unrelated) + 1e-9))
            above = tops[allowed] if allowed < len(tops) else -1.0
            chosen.append(next((m for m in MINIMUMS if m > above), MINIMUMS[-1]))
        params = (weight, damping, chosen[0], chosen[1], start, lift, bonus)
        f = figures(t, cases, params)
        key = (f["hit"], f["single"], -f["rule_leaks"] - f["project_leaks"])
        if best is None or key > best[0]:
            best = (key, params)
    assert best is not None
    return best[1]


def _splits(t: Table, cases: list[int], folds: int, seed: int) -> list[tuple[list[int], list[int]]]:
    """(train, test) per fold; related and unrelated cases spread evenly over the folds."""
    rng = random.Random(seed)
    related = [q for q in cases if t.expect[q]]
    unrelated = [q for q in cases if not t.expect[q]]
    rng.shuffle(related)
    rng.shuffle(unrelated)
    parts = [related[i::folds] + unrelated[i::folds] for i in range(folds)]
    return [([q for j, part in enumerate(parts) if j != i for q in part], parts[i]) for i in range(folds)]


def _add(total: dict[str, int], part: dict[str, int]) -> None:
    for key, value in part.items():
        total[key] = total.get(key, 0) + value


def cross_validate(
    t: Table,
    cases: list[int],
    folds: int,
    seed: int,
    rule_leak: float,
    project_leak: float,
    grid: Grid = FULL,
) -> tuple[dict[str, int], list[Params]]:
    total: dict[str, int] = {}
    chosen = []
    for train, test in _splits(t, cases, folds, seed):
        params = choose(t, train, rule_leak, project_leak, grid)
        chosen.append(params)
        _add(total, figures(t, test, params))
    return total, chosen


def cross_validate_cues(
    plain: Table,
    cued: Table,
    cases: list[int],
    folds: int,
    seed: int,
    rule_leak: float,
    project_leak: float,
    grid: Grid = FULL,
) -> dict[str, int]:
    """The same folds as cross_validate: the prompt gate chosen on the plain figures of the other
    folds, the cue offsets on their cued figures, measured with cues on the fold left out."""
    total: dict[str, int] = {}
    for train, test in _splits(plain, cases, folds, seed):
        params = choose(plain, train, rule_leak, project_leak, grid)
        offsets = choose_offsets(cued, train, params, rule_leak, project_leak)
        _add(total, figures(cued, test, params, offsets))
    return total


if __name__ == "__main__":  # `python -m memevo.core.recall.calibrate`: the command is calibrate_command.py
    from .calibrate_command import main

    raise SystemExit(main())
