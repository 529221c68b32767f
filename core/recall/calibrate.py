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

import argparse
import dataclasses
import itertools
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..encoder.models import entry_for
from . import generic
from .calibrate_tables import Table, case_file_of, stack, tables_of
from .gate import RELATIVE_KEEP
from .gate_defaults import Hybrid, for_model

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


def line(name: str, f: dict[str, int]) -> str:
    def pct(a: int, b: int) -> str:
        return f"{a}/{b} ({100 * a / max(1, b):.0f}%)"

    return (
        f"{name:<44} related {pct(f['hit'], f['related'])}  unrelated→rule {pct(f['rule_leaks'], f['unrelated'])}"
        f"  →project {pct(f['project_leaks'], f['unrelated'])}  one-memory {pct(f['single'], f['single_total'])}"
    )


def _params_of(hybrid: Hybrid) -> tuple[Params, Offsets]:
    """A calibration.Hybrid as the search's parameters and cue offsets."""
    params: Params = (
        hybrid.lexical_weight,
        hybrid.question_damping,
        hybrid.min_rule,
        hybrid.min_project,
        hybrid.generic_from,
        hybrid.generic_weight,
        hybrid.cross_language,
    )
    return params, (hybrid.cue_offset_rule, hybrid.cue_offset_project)


def _grid(shipped: Hybrid | None, crossings: list[float] | None, shipped_dampings: bool) -> Grid:
    """The search's grid: the bonus held at the shipped value unless values are given; with
    `shipped_dampings`, the question and generic damping as shipped too."""
    grid = dataclasses.replace(
        FULL, crossings=tuple(crossings or [shipped.cross_language if shipped else 0.0])
    )
    if shipped_dampings and shipped is not None:
        grid = dataclasses.replace(
            grid,
            dampings=(shipped.question_damping,),
            generic=((shipped.generic_from, shipped.generic_weight),),
        )
    return grid


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memevo.core.recall.calibrate", description=__doc__)
    parser.add_argument("cases", nargs="+", help="cases files, each with its own memories")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--rule-leak", type=float, default=0.04)
    parser.add_argument("--project-leak", type=float, default=0.0)
    parser.add_argument(
        "--hold-out",
        nargs="+",
        default=[],
        metavar="FILE",
        help="files never chosen on: the values chosen on CASES are measured on each of them",
    )
    parser.add_argument(
        "--shipped-dampings",
        action="store_true",
        help="keep the question and generic damping as shipped (a smaller search, for large sets)",
    )
    parser.add_argument(
        "--cross-language",
        type=float,
        nargs="+",
        metavar="BONUS",
        help="the cross-language bonus (or several to choose from); default: the shipped one, which "
        "is chosen across sets, not on one (docs/recall.md)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from ..process.runtime import load_encoder

    case_files = [case_file_of(Path(name)) for name in args.cases]
    held_files = [case_file_of(Path(name)) for name in args.hold_out]
    encoder = load_encoder()
    entry = entry_for(encoder.model_id)
    shipped_model = for_model(encoder.model_id)
    grid = _grid(shipped_model, args.cross_language, args.shipped_dampings)
    parts = tables_of(encoder, case_files)
    held = tables_of(encoder, held_files)
    any_cues = any(part[1] is not part[0] for part in parts)
    prompts = stack([part[0] for part in parts])
    with_cues = stack([part[1] for part in parts]) if any_cues else None
    action_parts = [part for part in parts if part[2] is not None]
    acts = stack([part[2] for part in action_parts if part[2] is not None]) if action_parts else None
    acts_cues = (
        stack([part[3] for part in action_parts if part[3] is not None])
        if action_parts and any_cues
        else None
    )
    everything = list(range(len(prompts.valid)))
    bounds = (args.rule_leak, args.project_leak)
    report: dict[str, Any] = {"model": encoder.model_id, "folds": args.folds, "seeds": args.seeds}
    old: Params = (0.0, 0.0, entry.recall_min_rule, entry.recall_min_project, *NO_GENERIC, 0.0)
    rows = [("before: cosine, shipped minimums", figures(prompts, everything, old))]
    for seed in range(args.seeds):
        cos, _ = cross_validate(prompts, everything, args.folds, seed, *bounds, COSINE_ONLY)
        rows.append((f"cosine only, cross-validated (seed {seed})", cos))
    for seed in range(args.seeds):
        hyb, chosen = cross_validate(prompts, everything, args.folds, seed, *bounds, grid)
        rows.append((f"hybrid, cross-validated (seed {seed})", hyb))
        report.setdefault("fold_choices", []).append(chosen)
    chosen_all = choose(prompts, everything, *bounds, grid)
    report["chosen"] = dict(
        zip(
            (
                "lexical_weight",
                "question_damping",
                "min_rule",
                "min_project",
                "generic_from",
                "generic_weight",
                "cross_language",
            ),
            chosen_all,
            strict=True,
        )
    )
    offsets = NO_OFFSETS
    if with_cues is not None:
        for seed in range(args.seeds):
            rows.append(
                (
                    f"hybrid + cues, cross-validated (seed {seed})",
                    cross_validate_cues(prompts, with_cues, everything, args.folds, seed, *bounds, grid),
                )
            )
        offsets = choose_offsets(with_cues, everything, chosen_all, *bounds)
        report["chosen"].update(cue_offset_rule=offsets[0], cue_offset_project=offsets[1])
    if len(parts) > 1:  # each file's own figures with the values chosen on all of them
        start = 0
        for name, part in zip(args.cases, parts, strict=True):
            own = list(range(start, start + len(part[0].valid)))
            start += len(own)
            rows.append((f"as chosen, in-sample: {Path(name).name}", figures(prompts, own, chosen_all)))
            if with_cues is not None:
                rows.append(
                    (
                        f"as chosen + cues, in-sample: {Path(name).name}",
                        figures(with_cues, own, chosen_all, offsets),
                    )
                )
    held_total: dict[str, int] = {}
    held_cued: dict[str, int] = {}
    for name, part in zip(args.hold_out, held, strict=True):  # never chosen on
        every = list(range(len(part[0].valid)))
        mine = figures(part[0], every, chosen_all)
        _add(held_total, mine)
        rows.append((f"as chosen, held out: {Path(name).name}", mine))
        if part[1] is not part[0]:
            rows.append(
                (
                    f"as chosen + cues, held out: {Path(name).name}",
                    figures(part[1], every, chosen_all, offsets),
                )
            )
        _add(held_cued, figures(part[1], every, chosen_all, offsets))
    if len(held) > 1:
        rows.append(("as chosen, all held-out files", held_total))
        rows.append(("as chosen + cues where they have them, all held-out files", held_cued))
    if shipped_model is not None:  # what ships beside what was chosen, on the same cases
        shipped_params, shipped_offsets = _params_of(shipped_model)
        rows.append(("as shipped, in-sample", figures(prompts, everything, shipped_params)))
        if with_cues is not None:
            rows.append(
                (
                    "as shipped + cues, in-sample",
                    figures(with_cues, everything, shipped_params, shipped_offsets),
                )
            )
        if held:
            plain_sum: dict[str, int] = {}
            cued_sum: dict[str, int] = {}
            for part in held:
                every = list(range(len(part[0].valid)))
                _add(plain_sum, figures(part[0], every, shipped_params))
                _add(cued_sum, figures(part[1], every, shipped_params, shipped_offsets))
            rows.append(("as shipped, all held-out files", plain_sum))
            rows.append(("as shipped + cues where they have them, all held-out files", cued_sum))
    every_action = list(range(len(acts.valid))) if acts is not None else []
    if acts is not None:
        rows.append(("actions, before (cosine, shipped minimums)", figures(acts, every_action, old)))
        rows.append(
            ("actions, hybrid gate as chosen (never tuned on them)", figures(acts, every_action, chosen_all))
        )
    if acts_cues is not None:
        rows.append(
            ("actions, hybrid + cues as chosen", figures(acts_cues, every_action, chosen_all, offsets))
        )
    report["rows"] = [{"name": name, **f} for name, f in rows]
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    for name, f in rows:
        print(line(name, f))
    print(
        "chosen on all cases (what ships is core/recall/gate_defaults.py, measured above as shipped): lexical weight {}, question damping {}, rule minimum {}, "
        "project minimum {}, generic damping from {} weight {}, cross-language bonus {}".format(*chosen_all)
        + (", cue offsets {} (rule) / {} (project)".format(*offsets) if with_cues is not None else "")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
