"""calibrate over several cases files: each file's cases meet only their own memories."""

from __future__ import annotations

import numpy as np
from memevo.core.recall import calibrate


def _table(seed: int, cases: int, memories: int) -> calibrate.Table:
    rng = np.random.default_rng(seed)
    cosine = rng.uniform(0.2, 0.7, (cases, memories)).astype(np.float32)
    lexical = rng.uniform(0.0, 0.4, (cases, memories)).astype(np.float32)
    expect = [[int(rng.integers(memories))] if q % 2 == 0 else [] for q in range(cases)]
    alone = {(q, m): float(lexical[q, m]) + 0.05 for q, ms in enumerate(expect) for m in ms}
    return calibrate.Table(
        cosine=cosine,
        lexical=lexical,
        alone=alone,
        question=(rng.uniform(size=cases) < 0.3).astype(float),
        generic=rng.uniform(0.3, 0.9, cases),
        valid=np.ones(cases, dtype=bool),
        expect=expect,
        rule=np.arange(memories) % 2 == 0,
        cued=rng.uniform(size=memories) < 0.5,
    )


def test_stacked_figures_are_the_sum_of_each_file_s() -> None:
    """Whatever the values, a stacked table's figures are each file's own added up: no case
    ever sees another file's memories (they would change its top 3 and its leaks)."""
    first, second = _table(1, 40, 12), _table(2, 30, 9)
    both = calibrate.stack([first, second])
    assert both.cosine.shape == (70, 21)
    for params in [
        (0.4, 0.1, 0.46, 0.5, 0.55, 1.0),
        (0.0, 0.0, 0.35, 0.4, 1.0, 0.0),
        (1.0, 0.3, 0.6, 0.3, 0.6, 1.5),
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
    both = calibrate.stack([strong, weak])
    chosen = calibrate.choose(both, list(range(20)), 0.0, 0.0)
    figures = calibrate.figures(both, list(range(20)), chosen)
    assert figures["hit"] == 10 and figures["rule_leaks"] == 0 and figures["project_leaks"] == 0
    assert (both.cosine[10:, :4] == calibrate.ELSEWHERE).all() and (
        both.cosine[:10, 4:] == calibrate.ELSEWHERE
    ).all()
