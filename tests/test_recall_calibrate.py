"""calibrate over several cases files: each file's cases meet only their own memories."""

from __future__ import annotations

import numpy as np
from memevo.core.recall import calibrate, calibrate_tables


def _table(seed: int, cases: int, memories: int) -> calibrate_tables.Table:
    rng = np.random.default_rng(seed)
    cosine = rng.uniform(0.2, 0.7, (cases, memories)).astype(np.float32)
    lexical = rng.uniform(0.0, 0.4, (cases, memories)).astype(np.float32)
    expect = [[int(rng.integers(memories))] if q % 2 == 0 else [] for q in range(cases)]
    alone = {(q, m): float(lexical[q, m]) + 0.05 for q, ms in enumerate(expect) for m in ms}
    return calibrate_tables.Table(
        cosine=cosine,
        lexical=lexical,
        alone=alone,
        question=(rng.uniform(size=cases) < 0.3).astype(float),
        generic=rng.uniform(0.3, 0.9, cases),
        valid=np.ones(cases, dtype=bool),
        expect=expect,
        rule=np.arange(memories) % 2 == 0,
        cued=rng.uniform(size=memories) < 0.5,
        # a third of the pairs in one language, the others apart by some share of Chinese
        crossing=np.where(
            rng.uniform(size=(cases, memories)) < 0.3, 0.0, rng.uniform(0.0, 1.0, (cases, memories))
        ).astype(np.float32),
    )


def test_stacked_figures_are_the_sum_of_each_file_s() -> None:
    """Whatever the values, a stacked table's figures are each file's own added up: no case
    ever sees another file's memories (they would change its top 3 and its leaks)."""
    first, second = _table(1, 40, 12), _table(2, 30, 9)
    both = calibrate_tables.stack([first, second])
    assert both.cosine.shape == (70, 21)
    for params in [
        (0.4, 0.1, 0.46, 0.5, 0.55, 1.0, 0.0),
        (0.0, 0.0, 0.35, 0.4, 1.0, 0.0, 0.1),
        (1.0, 0.3, 0.6, 0.3, 0.6, 1.5, 0.15),
    ]:
        for offsets in [calibrate.NO_OFFSETS, (0.06, -0.04)]:
            alone = [
                calibrate.figures(t, list(range(len(t.valid))), params, offsets) for t in (first, second)
            ]
            together = calibrate.figures(both, list(range(70)), params, offsets)
            assert together == {key: alone[0][key] + alone[1][key] for key in together}


def test_a_memory_of_another_file_never_passes_the_gate() -> None:
    """The second file's unrelated cases would leak on the first file's strong memory if they
    could see it; stacked, they do not, and the minimums chosen fit both files."""
    strong = _table(3, 10, 4)
    strong.cosine[:, 0] = 0.95  # every case of the first file is close to its memory 0
    strong.expect = [[0]] * 10
    strong.alone = {(q, 0): 0.5 for q in range(10)}
    weak = _table(4, 10, 4)
    weak.expect = [[] for _ in range(10)]
    both = calibrate_tables.stack([strong, weak])
    chosen = calibrate.choose(both, list(range(20)), 0.0, 0.0)
    figures = calibrate.figures(both, list(range(20)), chosen)
    assert figures["hit"] == 10 and figures["rule_leaks"] == 0 and figures["project_leaks"] == 0
    assert (both.cosine[10:, :4] == calibrate_tables.ELSEWHERE).all() and (
        both.cosine[:10, 4:] == calibrate_tables.ELSEWHERE
    ).all()


# -- the search, a fold at once, against the engine's arithmetic one case at a time ---------------
def _fused_one(
    t: calibrate_tables.Table, q: int, p: calibrate.Params, offsets: calibrate.Offsets
) -> np.ndarray:
    """As RecallEngine fuses one prompt's scores (and calibrate did, case by case, before)."""
    off = np.where(t.rule, offsets[0], offsets[1]) * t.cued
    return np.asarray(_cosine_one(t, q, p) + p[0] * t.lexical[q] - calibrate._damping(t, q, p) - off)


def _cosine_one(t: calibrate_tables.Table, q: int, p: calibrate.Params) -> np.ndarray:
    """As the index gives a prompt's cosines: the cross-language bonus added to the memory's own
    (crossing.bonus), then the better of that and its cues' cosine."""
    own = np.asarray(t.cosine[q] + (np.float32(p[6]) * t.crossing[q]).astype(np.float32))
    return own if t.cue_cosine is None else np.maximum(own, t.cue_cosine[q])


def _gate_one(scores: np.ndarray, minimum: float) -> set[int]:
    order = np.argsort(-scores, kind="stable")[: calibrate.TOP_K]
    floor = max(float(scores[order[0]]) * calibrate.RELATIVE_KEEP, minimum)
    return {int(i) for i in order if scores[i] >= floor}


def _figures_one(
    t: calibrate_tables.Table, cases: list[int], p: calibrate.Params, offsets: calibrate.Offsets
) -> dict[str, int]:
    weight, min_rule, min_project = p[0], p[2], p[3]
    rule_ids, project_ids = np.flatnonzero(t.rule), np.flatnonzero(~t.rule)
    out = dict(hit=0, related=0, rule_leaks=0, project_leaks=0, unrelated=0, single=0, single_total=0)
    for q in cases:
        expected = t.expect[q]
        out["related" if expected else "unrelated"] += 1
        out["single_total"] += len(expected)
        if not t.valid[q]:
            continue
        fused = _fused_one(t, q, p, offsets)
        rules = {int(rule_ids[i]) for i in _gate_one(fused[rule_ids], min_rule)}
        projects = {int(project_ids[i]) for i in _gate_one(fused[project_ids], min_project)}
        if expected:
            out["hit"] += bool((rules | projects) & set(expected))
            for m in expected:
                off = (offsets[0] if t.rule[m] else offsets[1]) * t.cued[m]
                cos = _cosine_one(t, q, p)[m]
                alone = cos + weight * t.alone.get((q, m), 0.0) - calibrate._damping(t, q, p) - off
                out["single"] += bool(alone >= (min_rule if t.rule[m] else min_project))
        else:
            out["rule_leaks"] += bool(rules)
            out["project_leaks"] += bool(projects)
    return out


def _tied_table(seed: int) -> calibrate_tables.Table:
    """Scores on a coarse grid (ties in every top 3, scores exactly on the minimums), cases
    that are not valid, a case expecting two memories and one expecting the same one twice."""
    t = _table(seed, 60, 10)
    rng = np.random.default_rng(seed + 100)
    t.cosine = (np.round(t.cosine * 20) / 20).astype(np.float32)
    t.lexical = (np.round(t.lexical * 10) / 10).astype(np.float32)
    t.valid[rng.choice(60, 6, replace=False)] = False
    t.expect[0], t.expect[2] = [1, 2], [3, 3]
    t.alone |= {(0, 1): 0.2, (0, 2): 0.1, (2, 3): 0.3}
    if seed % 2:  # a cued table: its cues' cosine kept apart from the memories' own
        cue = (np.round(rng.uniform(0.2, 0.8, t.cosine.shape) * 20) / 20).astype(np.float32)
        t.cue_cosine = np.where(t.cued[None, :], cue, calibrate_tables.NO_CUE).astype(np.float32)
    return t


def test_the_search_a_fold_at_once_gives_what_one_case_at_a_time_gives() -> None:
    for seed in range(4):
        t = _tied_table(seed)
        folds = [list(range(60)), list(range(0, 60, 3)), list(range(1, 60, 2))]
        for params in [
            (0.4, 0.1, 0.45, 0.5, 0.55, 1.0, 0.0),
            (0.0, 0.0, 0.35, 0.4, 1.0, 0.0, 0.1),
            (1.5, 0.3, 0.6, 0.3, 0.6, 1.5, 0.05),
            (0.2, 0.2, 0.5, 0.5, 0.7, 0.5, 0.15),
        ]:
            for offsets in [calibrate.NO_OFFSETS, (0.06, -0.04), (-0.05, 0.05)]:
                for cases in folds:
                    assert calibrate.figures(t, cases, params, offsets) == _figures_one(
                        t, cases, params, offsets
                    )
        # the choices, from what one case at a time gives for every candidate
        chosen = calibrate.choose(t, folds[0], 0.04, 0.0)
        unrelated = [q for q in folds[0] if not t.expect[q] and t.valid[q]]
        for mask, minimum, bound in ((t.rule, chosen[2], 0.04), (~t.rule, chosen[3], 0.0)):
            probe = (*chosen[:2], 0.0, 0.0, *chosen[4:])
            tops = sorted(
                (float(_fused_one(t, q, probe, calibrate.NO_OFFSETS)[mask].max()) for q in unrelated),
                reverse=True,
            )
            allowed = int(np.floor(bound * len([q for q in folds[0] if not t.expect[q]]) + 1e-9))
            above = tops[allowed] if allowed < len(tops) else -1.0
            assert minimum == next((m for m in calibrate.MINIMUMS if m > above), calibrate.MINIMUMS[-1])
        offsets = calibrate.choose_offsets(t, folds[0], chosen, 0.04, 0.0)
        for n, (mask, minimum) in enumerate(((t.rule, chosen[2]), (~t.rule, chosen[3]))):
            allowed = int(
                np.floor((0.04 if n == 0 else 0.0) * len([q for q in folds[0] if not t.expect[q]]) + 1e-9)
            )
            leaks = [
                sum(
                    float(_fused_one(t, q, chosen, (o, 0.0) if n == 0 else (0.0, o))[mask].max()) >= minimum
                    for q in unrelated
                )
                for o in calibrate.OFFSETS
            ]
            first = next(
                (o for o, k in zip(calibrate.OFFSETS, leaks, strict=True) if k <= allowed),
                calibrate.OFFSETS[-1],
            )
            assert offsets[n] == first
