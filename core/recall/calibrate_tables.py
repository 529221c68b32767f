"""calibrate.py's tables: every case's signals against every memory of its file, computed
once through the engine's own indexes, and several files' tables stacked into one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import crossing, generic, lexical
from .concepts import textbook_question
from .engine import RecallEngine
from .verify import Case, CaseFile, _input_of, parse, pool_engine


@dataclass
class Table:
    """Per case: cosine and lexical against every memory, and the one-memory lexical."""

    cosine: np.ndarray  # cases x memories
    lexical: np.ndarray
    alone: dict[tuple[int, int], float]
    question: np.ndarray
    generic: np.ndarray  # per case: closeness to the generic prompts (tool calls: 0)
    valid: np.ndarray
    expect: list[list[int]]
    rule: np.ndarray  # memories: True for a rule
    cued: np.ndarray  # memories: True when recall cues counted in both signals
    # cases x memories: how far apart the two texts' shares of Chinese are (crossing.py)
    crossing: np.ndarray
    # cases x memories: the cues' cosine of a cued memory (NO_CUE elsewhere); `cosine` is then
    # the memory's own, which the cross-language bonus lifts before the better of the two counts
    cue_cosine: np.ndarray | None = None
    # what the search derives from the table once (_derived): a table is not changed once used
    derived: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)


def tabulate(
    engine: RecallEngine, cases: list[Case], texts: list[str], ids: list[str], *, cues: bool = False
) -> Table:
    """With `cues`, each cued memory's signals are the better of its own and its cues' (as
    recall computes them); without, the memories alone."""
    position = {t: n for n, t in enumerate(texts)}
    cued = np.asarray([cues and i in engine.cued for i in ids])
    n = len(cases)
    cosine = np.zeros((n, len(ids)), dtype=np.float32)
    lex = np.zeros_like(cosine)
    alone: dict[tuple[int, int], float] = {}
    question = np.zeros(n)
    closeness = np.zeros(n)
    # calibrating needs the closeness even for a model whose shipped gate does not damp yet
    generic_prompts = (
        engine.generic
        if len(engine.generic.matrix)
        else generic.Closeness.of_model(engine.encoder, engine.background)
    )
    valid = np.zeros(n, dtype=bool)
    settings = engine.settings({})  # the model's defaults: what the search does not choose
    memory_shares = crossing.shares(texts)
    apart = np.zeros_like(cosine)
    cue_cosine = np.full_like(cosine, NO_CUE)
    for q, case in enumerate(cases):
        text, prompt = _input_of(case)
        if text is None:
            continue
        valid[q] = True
        apart[q] = np.abs(memory_shares - np.float32(crossing.chinese_share(text)))
        question[q] = float(prompt and textbook_question(text))
        # searched as recall searches it: with its sentences when the model's gate does
        centred, queries = engine.queries(text, settings, prompt=prompt)
        closeness[q] = generic_prompts.of(centred) if prompt else 0.0
        found = engine.index.scores_of(queries, ids)
        cosine[q] = [found[i] for i in ids]
        if cues:
            by_cue = engine.index.cue_scores_of(queries, [i for i, c in zip(ids, cued, strict=True) if c])
            cue_cosine[q] = [by_cue.get(i, NO_CUE) for i in ids]
        scores = engine.lexical.scores(text)
        lex[q] = [scores.of(i) for i in ids]
        if cues:
            by_cues = engine.cue_lexical.scores(text)
            lex[q] = np.where(cued, np.maximum(lex[q], [by_cues.of(i) for i in ids]), lex[q])
        for expected in case.expect:
            m = position[expected]
            alone[(q, m)] = lexical.alone(text, expected)
            if cued[m]:
                cue_text = "\n".join(engine.cue_texts(ids[m]))
                alone[(q, m)] = max(alone[(q, m)], lexical.alone(text, cue_text))
    rule = np.asarray([engine.index.category_of(i) == "rule" for i in ids])
    expect = [[position[e] for e in case.expect] for case in cases]
    return Table(
        cosine,
        lex,
        alone,
        question,
        closeness,
        valid,
        expect,
        rule,
        cued,
        apart,
        cue_cosine if cues else None,
    )


# A memory of another file's pool, for a case: never a candidate, never above a minimum.
ELSEWHERE = -10.0
NO_CUE = -10.0  # the cue cosine of a memory without cues: never the better one


def stack(tables: list[Table]) -> Table:
    """Several files' tables as one: each case scored against its own file's memories only (the
    other pools' cells are ELSEWHERE), so the gate, the folds and the search run over all
    cases at once and the chosen values fit every file's team, not one."""
    if len(tables) == 1:
        return tables[0]
    rows, cols = sum(len(t.valid) for t in tables), sum(len(t.rule) for t in tables)
    cosine = np.full((rows, cols), ELSEWHERE, dtype=np.float32)
    lex = np.zeros((rows, cols), dtype=np.float32)
    apart = np.zeros((rows, cols), dtype=np.float32)
    by_cues = np.full((rows, cols), NO_CUE, dtype=np.float32)
    alone: dict[tuple[int, int], float] = {}
    expect: list[list[int]] = []
    q0 = m0 = 0
    for t in tables:
        n, m = t.cosine.shape
        cosine[q0 : q0 + n, m0 : m0 + m] = t.cosine
        lex[q0 : q0 + n, m0 : m0 + m] = t.lexical
        apart[q0 : q0 + n, m0 : m0 + m] = t.crossing
        if t.cue_cosine is not None:
            by_cues[q0 : q0 + n, m0 : m0 + m] = t.cue_cosine
        alone.update({(q + q0, k + m0): v for (q, k), v in t.alone.items()})
        expect += [[k + m0 for k in e] for e in t.expect]
        q0, m0 = q0 + n, m0 + m
    joined = {
        name: np.concatenate([getattr(t, name) for t in tables]) for name in ("question", "generic", "valid")
    }
    return Table(
        cosine,
        lex,
        alone,
        joined["question"],
        joined["generic"],
        joined["valid"],
        expect,
        np.concatenate([t.rule for t in tables]),
        np.concatenate([t.cued for t in tables]),
        apart,
        by_cues if any(t.cue_cosine is not None for t in tables) else None,
    )


def case_file_of(path: Path) -> CaseFile:
    """A cases file with its own memories, or a public set (public_sets.py) as one."""
    from . import public_sets

    raw = public_sets.read(path)
    if public_sets.is_public(raw):
        return public_sets.case_file(public_sets.parse(raw, str(path)))
    case_file = parse(raw, str(path))
    if case_file.pool is None:
        raise SystemExit(f"{path}: calibrate needs a cases file with its own memories (`memories` or `pool`)")
    return case_file


def tables_of(
    encoder: Any, case_files: list[CaseFile]
) -> list[tuple[Table, Table, Table | None, Table | None]]:
    """Per file: its prompts' table, the same with cues (the same table when it has none), and
    its tool calls' two tables (None: it has none)."""
    parts: list[tuple[Table, Table, Table | None, Table | None]] = []
    for case_file in case_files:
        with pool_engine(encoder, case_file) as (engine, made):
            texts = [m.text for m in made]
            ids = [m.id for m in made]
            plain = tabulate(engine, case_file.cases, texts, ids)
            cued = tabulate(engine, case_file.cases, texts, ids, cues=True) if engine.cued else plain
            acts = acts_cued = None
            if case_file.actions:
                acts = tabulate(engine, case_file.actions, texts, ids)
                acts_cued = (
                    tabulate(engine, case_file.actions, texts, ids, cues=True) if engine.cued else acts
                )
            parts.append((plain, cued, acts, acts_cued))
    return parts
