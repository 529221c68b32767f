"""`python -m memevo.core.recall.calibrate`: the search (calibrate.py) over cases files, the
choice measured on held-out files beside what ships, printed or as JSON."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from ..encoder.models import entry_for
from . import calibrate
from .calibrate import (
    COSINE_ONLY,
    FULL,
    NO_GENERIC,
    NO_OFFSETS,
    Grid,
    Offsets,
    Params,
    _add,
    choose,
    choose_offsets,
    cross_validate,
    cross_validate_cues,
    figures,
)
from .calibrate_tables import case_file_of, stack, tables_of
from .gate_defaults import Hybrid, for_model


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
    parser = argparse.ArgumentParser(
        prog="python -m memevo.core.recall.calibrate", description=calibrate.__doc__
    )
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
