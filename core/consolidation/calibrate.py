"""Choose the consolidation thresholds on labelled pairs, and report figures honestly.

    python -m memevo.core.consolidation.calibrate [PAIRS.json] [--folds 5] [--seeds 3] [--json]

PAIRS.json (default: the shipped resources/consolidation-pairs.json) holds {"pairs": [{"a",
"b", "label"}]}, label one of duplicate, contradiction, related, unrelated. Each pair's
centred cosine (as recall computes it) and its text signals (signals.py) are computed once;
then the duplicate rule (cosine + lexical weight x lexical at least a minimum, no conflicting
value) and the contradiction rule (a conflicting value, cosine and frame at least their
minimums) are each chosen to find the most of their kind while a wrong proposal costs
PENALTY found ones (a proposal the user must decline is worse than one not made); ties go to
the higher minimum. The cross-validated figures come from pairs the values were not chosen
on; the values chosen on all pairs are printed last: those ship (thresholds.py).
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import signals
from .thresholds import Thresholds, classify

LABELS = ("duplicate", "contradiction", "related", "unrelated")
PENALTY = 2.0
WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.5)
DUPLICATE_MINS = tuple(round(0.60 + 0.01 * i, 2) for i in range(61))
CONTRADICTION_MINS = tuple(round(0.50 + 0.01 * i, 2) for i in range(46))
FRAME_MINS = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


def shipped_pairs() -> Path:
    from importlib.resources import files

    return Path(str(files("memevo.resources").joinpath("consolidation-pairs.json")))


@dataclass(frozen=True)
class Pair:
    label: str
    cosine: float
    lexical: float
    frame: float
    conflict: str | None


def load(path: Path) -> list[dict[str, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    pairs = data.get("pairs") if isinstance(data, dict) else None
    if not isinstance(pairs, list) or not pairs:
        raise SystemExit(f"{path}: no pairs")
    for n, item in enumerate(pairs):
        if not (isinstance(item, dict) and item.get("label") in LABELS and item.get("a") and item.get("b")):
            raise SystemExit(f"{path}: pair {n} needs a, b and a label among {', '.join(LABELS)}")
    return pairs


def measure(encoder: Any, pairs: list[dict[str, str]]) -> list[Pair]:
    """Every pair's cosine of centred vectors (the recall index's measure) and text signals."""
    from ..encoder.background import center, ensure

    texts = sorted({p["a"] for p in pairs} | {p["b"] for p in pairs})
    at = {t: n for n, t in enumerate(texts)}
    vectors = center(encoder.encode(texts), ensure(encoder))
    out = []
    for p in pairs:
        cosine = float(vectors[at[p["a"]]] @ vectors[at[p["b"]]])
        s = signals.compare(signals.read(p["a"]), signals.read(p["b"]))
        out.append(Pair(p["label"], cosine, s.lexical, s.frame, s.conflict))
    return out


def figures(pairs: list[Pair], t: Thresholds) -> dict[str, int]:
    f = {"duplicates": 0, "duplicates_found": 0, "contradictions": 0, "contradictions_found": 0}
    f |= {"wrong_duplicate": 0, "wrong_contradiction": 0}
    for p in pairs:
        said = classify(p.cosine, p.lexical, p.frame, p.conflict, t)
        if p.label == "duplicate":
            f["duplicates"] += 1
        if p.label == "contradiction":
            f["contradictions"] += 1
        if said == "duplicate":
            f["duplicates_found" if p.label == "duplicate" else "wrong_duplicate"] += 1
        if said == "contradiction":
            f["contradictions_found" if p.label == "contradiction" else "wrong_contradiction"] += 1
    return f


def choose(pairs: list[Pair]) -> Thresholds:
    """Each rule on its own (they never overlap: one needs a conflict, the other none)."""
    free = [p for p in pairs if p.conflict is None]
    best_dup: tuple[float, float, int, float] | None = None  # score, minimum, -order, weight
    cos = np.asarray([p.cosine for p in free])
    lex = np.asarray([p.lexical for p in free])
    good = np.asarray([p.label == "duplicate" for p in free])
    for order, weight in enumerate(WEIGHTS):
        fused = cos + weight * lex
        for minimum in DUPLICATE_MINS:
            said = fused >= minimum
            score = float((said & good).sum() - PENALTY * (said & ~good).sum())
            key = (score, minimum, -order, weight)
            if best_dup is None or key > best_dup:
                best_dup = key
    split = [p for p in pairs if p.conflict is not None]
    ccos = np.asarray([p.cosine for p in split])
    frame = np.asarray([p.frame for p in split])
    cgood = np.asarray([p.label == "contradiction" for p in split])
    best_con: tuple[float, float, float] | None = None
    for fmin in FRAME_MINS:
        for minimum in CONTRADICTION_MINS:
            said = (ccos >= minimum) & (frame >= fmin)
            score = float((said & cgood).sum() - PENALTY * (said & ~cgood).sum())
            found = (score, minimum, fmin)
            if best_con is None or found > best_con:
                best_con = found
    assert best_dup is not None and best_con is not None
    return Thresholds(
        duplicate_min=best_dup[1],
        lexical_weight=best_dup[3],
        contradiction_min=best_con[1],
        frame_min=best_con[2],
    )


def cross_validate(pairs: list[Pair], folds: int, seed: int) -> dict[str, int]:
    """Figures of each fold measured with the values chosen on the other folds, summed;
    folds keep each label's share."""
    rng = random.Random(seed)
    fold_of = [0] * len(pairs)
    for label in LABELS:
        members = [n for n, p in enumerate(pairs) if p.label == label]
        rng.shuffle(members)
        for k, n in enumerate(members):
            fold_of[n] = k % folds
    total: dict[str, int] = {}
    for fold in range(folds):
        train = [p for n, p in enumerate(pairs) if fold_of[n] != fold]
        test = [p for n, p in enumerate(pairs) if fold_of[n] == fold]
        for key, value in figures(test, choose(train)).items():
            total[key] = total.get(key, 0) + value
    return total


def line(name: str, f: dict[str, int]) -> str:
    return (
        f"{name}: duplicates {f['duplicates_found']}/{f['duplicates']}, contradictions "
        f"{f['contradictions_found']}/{f['contradictions']}, wrong duplicate proposals {f['wrong_duplicate']}, "
        f"wrong contradiction proposals {f['wrong_contradiction']}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m memevo.core.consolidation.calibrate", description=__doc__
    )
    parser.add_argument("pairs", nargs="?", help="labelled pairs (default: the shipped set)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from ..process.runtime import load_encoder
    from .thresholds import for_model

    path = Path(args.pairs) if args.pairs else shipped_pairs()
    encoder = load_encoder()
    pairs = measure(encoder, load(path))
    rows = [
        (f"cross-validated (seed {seed})", cross_validate(pairs, args.folds, seed))
        for seed in range(args.seeds)
    ]
    chosen = choose(pairs)
    rows.append(("as chosen, on all pairs (in-sample)", figures(pairs, chosen)))
    shipped = for_model(encoder.model_id)
    if shipped is not None:
        rows.append(("as shipped, on all pairs", figures(pairs, shipped)))
    report = {"model": encoder.model_id, "pairs": str(path), "chosen": chosen.__dict__, "rows": rows}
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    for name, f in rows:
        print(line(name, f))
    print(
        f"chosen on all pairs (ships): duplicate minimum {chosen.duplicate_min}, lexical weight "
        f"{chosen.lexical_weight}, contradiction minimum {chosen.contradiction_min}, frame minimum {chosen.frame_min}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
