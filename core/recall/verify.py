"""`memevo verify`: run recall cases through the exact production gate, without awarding.

Cases file: {"cases": [{"prompt": "…", "expect": ["<exact memory text>", …]}, …]};
`expect: []` means nothing should be injected. Optional `"actions": [{"tool": "Bash",
"input": {"command": "git commit …"}, "expect": [...]}]` are tool calls about to run, recalled
as the PreToolUse / beforeShellExecution hooks do. Reported: relevant cases hit (at least one
expected memory injected), unrelated cases that injected a rule / a project fact, every
case's injections with both signals (fused score, cosine, lexical) and its best candidates,
the one-memory-pool figure (each expected memory alone in the pool, its lexical score
computed as in a pool of one), the same figures for the actions, and a scan of what each
minimum would give per category.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..memories import cues
from ..memories import live as memories
from ..memories import text as memory_text
from . import actions
from .engine import RecallEngine, Scored
from .gate import GateSettings, gate_category
from .textfilter import recall_input

Ranked = dict[str, list[Scored]]
SCAN = [round(0.05 * i, 2) for i in range(1, 17)]
EXPLAIN_TOP = 3
CATEGORIES: tuple[memory_text.Category, ...] = ("rule", "project")
# a report's counts (beside its cases, settings and scan)
COUNTS = (
    "relevant_hit",
    "relevant_total",
    "unrelated_total",
    "unrelated_rule_leaks",
    "unrelated_project_leaks",
    "single_memory_hit",
    "single_memory_total",
)


@dataclass(frozen=True)
class Case:
    prompt: str
    expect: list[str]
    tool: str | None = None  # an action case: the tool about to run, `prompt` its input as JSON
    tool_input: Any = None


@dataclass(frozen=True)
class CaseFile:
    """A cases file; `pool` (category, text) when it carries its own memories."""

    cases: list[Case]
    pool: list[tuple[str, str]] | None = None
    actions: list[Case] | None = None
    # {"<memory text>": ["cue", …]}: recall cues as the side model wrote them (core/memories/cues.py),
    # given with the file's own memories so a run needs no side API.
    cues: dict[str, list[str]] | None = None


def load_cases(path: Path) -> list[Case]:
    return load_file(path).cases


def load_file(path: Path) -> CaseFile:
    return parse(read(path), str(path))


def read(path: Path, max_bytes: int | None = None) -> Any:
    """A cases file's JSON, in verify's form or the public one (public_sets.py); with
    `max_bytes`, a larger file is refused before it is read."""
    mb = 1024 * 1024
    try:
        if max_bytes is not None and (size := path.stat().st_size) > max_bytes:
            raise InvalidInput(f"{path} is {size // mb} MB; a cases file may be at most {max_bytes // mb} MB")
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InvalidInput(f"no cases file at {path} (write one, or pass --cases FILE)") from exc
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"{path} is not readable JSON: {exc}") from exc


def parse(data: Any, where: str = "the cases") -> CaseFile:
    """{"cases": [...]} against the user's memories, or with {"memories": [{"category",
    "text"}, …]} run in a temporary store of its own (the user's is never touched)."""
    shape = 'expected {"cases": [{"prompt": "…", "expect": ["<exact memory text>", …]}, …]}'
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise InvalidInput(
            f"{where} is not a recall-cases file: {shape} (the Node tool's verify-cases.json differs)"
        )
    cases = []
    for number, raw in enumerate(data["cases"], 1):
        ok = (
            isinstance(raw, dict)
            and isinstance(raw.get("prompt"), str)
            and isinstance(raw.get("expect"), list)
        )
        if not ok or not all(isinstance(e, str) for e in raw["expect"]):
            raise InvalidInput(f"{where}: case {number} is not {{'prompt': str, 'expect': [str, …]}}")
        cases.append(Case(raw["prompt"], list(raw["expect"])))
    action_cases = _parse_actions(data.get("actions"), where)
    key = "memories" if "memories" in data else "pool" if "pool" in data else None  # "pool": older sets
    if key is None:
        return CaseFile(cases, None, action_cases)
    pool = []
    raw_pool = data[key]
    for number, raw in enumerate(raw_pool if isinstance(raw_pool, list) else [None], 1):
        if not (
            isinstance(raw, dict) and raw.get("category") in CATEGORIES and isinstance(raw.get("text"), str)
        ):
            raise InvalidInput(
                f"{where}: memory {number} is not {{'category': 'rule'|'project', 'text': str}}"
            )
        pool.append((str(raw["category"]), str(raw["text"])))
    raw_cues = data.get("cues")
    if raw_cues is not None and not (
        isinstance(raw_cues, dict)
        and all(isinstance(v, list) and all(isinstance(c, str) for c in v) for v in raw_cues.values())
    ):
        raise InvalidInput(f'{where}: "cues" is not {{"<memory text>": ["cue", …], …}}')
    return CaseFile(cases, pool, action_cases, raw_cues)


def _parse_actions(raw_actions: Any, where: str) -> list[Case] | None:
    if raw_actions is None:
        return None
    if not isinstance(raw_actions, list):
        raise InvalidInput(f"{where}: `actions` is not a list")
    out = []
    for number, raw in enumerate(raw_actions, 1):
        ok = (
            isinstance(raw, dict)
            and isinstance(raw.get("tool"), str)
            and isinstance(raw.get("input"), dict | str)
            and isinstance(raw.get("expect"), list)
            and all(isinstance(e, str) for e in raw["expect"])
        )
        if not ok:
            raise InvalidInput(
                f"{where}: action {number} is not {{'tool': str, 'input': {{…}}, 'expect': [str, …]}}"
            )
        shown = (
            raw["input"] if isinstance(raw["input"], str) else json.dumps(raw["input"], ensure_ascii=False)
        )
        out.append(Case(f"{raw['tool']}: {shown}", list(raw["expect"]), raw["tool"], raw["input"]))
    return out


@contextmanager
def pool_engine(encoder: Any, case_file: CaseFile) -> Iterator[tuple[RecallEngine, list[memories.Memory]]]:
    """The file's own memories (and any cues it carries) in a throwaway store, with a recall
    engine over them; the user's store is never opened. Also calibrate.py's."""
    import tempfile

    from ..clock import SystemClock
    from ..store.database import Store

    assert case_file.pool is not None
    clock = SystemClock()
    with tempfile.TemporaryDirectory(prefix="memevo-verify-") as folder:
        store = Store.open(Path(folder) / "verify.duckdb")
        try:
            made = [memories.create(store, category, text, clock) for category, text in case_file.pool]
            if case_file.cues:
                cues.save_for_texts(store, case_file.cues, clock.now_ms())
            yield RecallEngine(store, encoder, clock), made
        finally:
            store.close()


def run_with_pool(encoder: Any, case_file: CaseFile) -> dict[str, Any]:
    """The file's own memories in a throwaway store, recalled by the given encoder."""
    with pool_engine(encoder, case_file) as (engine, _made):
        return run(engine, case_file.cases, actions_=case_file.actions)


def run(
    engine: RecallEngine,
    cases: list[Case],
    settings: GateSettings | None = None,
    actions_: list[Case] | None = None,
) -> dict[str, Any]:
    settings = settings or engine.settings()
    texts, category_of = _live_texts(engine)
    rows, single_hit, single_total = _measure(engine, cases, settings, texts)
    report = _report(engine, rows, settings, single_hit, single_total, texts)
    report["scan"] = _scan(rows, settings, category_of)
    if actions_:
        action_rows, action_single, action_single_total = _measure(engine, actions_, settings, texts)
        part = _report(engine, action_rows, settings, action_single, action_single_total, texts)
        report["actions"] = {key: part[key] for key in (*COUNTS, "expected_not_in_pool", "cases")}
        report["actions"]["scan"] = _scan(action_rows, settings, category_of)
    return report


Row = tuple[Case, Ranked, Ranked, set[str], bool]


def _measure(
    engine: RecallEngine, cases: list[Case], settings: GateSettings, texts: dict[str, list[str]]
) -> tuple[list[Row], int, int]:
    """Each case through the production path; the one-memory figure beside it."""
    limit = max(settings.top_k, 2, EXPLAIN_TOP)
    rows: list[Row] = []
    single_hit = single_total = 0
    for case in cases:
        text, prompt = _input_of(case)
        ranked: Ranked = (
            engine.signals(text, limit, settings, prompt=prompt)
            if text is not None
            else {c: [] for c in CATEGORIES}
        )
        injected = engine.gate(ranked, settings)
        expected_ids = {i for e in case.expect for i in texts.get(e, [])}
        hit = any(row.id in expected_ids for c in CATEGORIES for row in injected[c])
        rows.append((case, ranked, injected, expected_ids, hit))
        if case.expect and text is not None:
            for _memory_id, category, score in _scores_of(engine, text, expected_ids, settings, prompt):
                single_total += 1
                minimum = settings.minimum(category)
                single_hit += score >= (minimum if minimum != -1 else float("-inf"))
        elif case.expect:
            single_total += len(expected_ids)
    return rows, single_hit, single_total


def _input_of(case: Case) -> tuple[str | None, bool]:
    """What recall sees for a case (None: no recall), and whether it is a user's prompt (damped
    as one) rather than a tool call's description."""
    if case.tool is not None:
        described = actions.describe(case.tool, case.tool_input)
        return (described.text if described is not None and described.kinds else None), False
    return recall_input(case.prompt), True


def _live_texts(engine: RecallEngine) -> tuple[dict[str, list[str]], dict[str, set[str]]]:
    """Live memories by exact text, and live ids per category."""
    texts: dict[str, list[str]] = {}
    category_of: dict[str, set[str]] = {c: set() for c in CATEGORIES}
    for category in CATEGORIES:
        for memory in memories.ranked(engine.store, category, limit=None, include_deprecated=False):
            texts.setdefault(memory.text, []).append(memory.id)
            category_of[category].add(memory.id)
    return texts, category_of


def _scores_of(
    engine: RecallEngine, text: str, ids: set[str], settings: GateSettings, prompt: bool
) -> list[tuple[str, str, float]]:
    """Each expected memory's fused score on its own: the one-memory-pool case (its lexical
    score as the only memory of a pool)."""
    if not ids:
        return []
    out = []
    for memory_id in ids:
        scored = engine.alone(text, memory_id, settings, prompt=prompt)
        category = engine.index.category_of(memory_id)
        if scored is not None and category is not None:
            out.append((memory_id, category, scored.score))
    return out


def _report(
    engine: RecallEngine,
    rows: list[Row],
    settings: GateSettings,
    single_hit: int,
    single_total: int,
    texts: dict[str, list[str]],
) -> dict[str, Any]:
    by_id = {i: t for t, ids in texts.items() for i in ids}
    relevant = [r for r in rows if r[0].expect]
    unrelated = [r for r in rows if not r[0].expect]
    missing = sorted({e for r in relevant for e in r[0].expect if e not in texts})
    return {
        "model": engine.encoder.model_id,
        "settings": {
            "recallTopK": settings.top_k,
            "recallMinScore": settings.min_rule,
            "recallMinScoreProject": settings.min_project,
            "recallMinMargin": settings.margin,
            "recallLexicalWeight": settings.lexical_weight,
            "questionDamping": settings.question_damping,
            "genericDamping": {"from": settings.generic_from, "weight": settings.generic_weight},
            "recallCues": settings.use_cues,
            "cueOffsets": {"rule": settings.cue_offset_rule, "project": settings.cue_offset_project},
            "memoriesWithCues": len(engine.cued),
            # the background's language direction taken out of every vector (background.py)
            "languageNeutral": engine.background.language is not None,
        },
        "relevant_hit": sum(1 for r in relevant if r[4]),
        "relevant_total": len(relevant),
        "unrelated_total": len(unrelated),
        "unrelated_rule_leaks": sum(1 for r in unrelated if r[2]["rule"]),
        "unrelated_project_leaks": sum(1 for r in unrelated if r[2]["project"]),
        "single_memory_hit": single_hit,
        "single_memory_total": single_total,
        "expected_not_in_pool": missing,
        "cases": [
            {
                "prompt": case.prompt,
                "expected": case.expect,
                "hit": hit if case.expect else None,
                "injected": [_row_json(row, c, by_id) for c in CATEGORIES for row in injected[c]],
                # the best candidates per category, injected or not: why it was (not) recalled
                "top": {c: [_row_json(row, c, by_id) for row in ranked[c][:EXPLAIN_TOP]] for c in CATEGORIES},
                "expected_ids": sorted(ids),
            }
            for case, ranked, injected, ids, hit in rows
        ],
    }


def _row_json(row: Scored, category: str, by_id: dict[str, str]) -> dict[str, Any]:
    return {
        "id": row.id,
        "category": category,
        "text": by_id.get(row.id, ""),
        "score": round(row.score, 4),
        "cosine": round(row.cosine, 4),
        "lexical": round(row.lexical, 4),
        "cued": row.cued,
        "damped": round(row.damped, 4),
    }


def _scan(
    rows: list[Row],
    settings: GateSettings,
    category_of: dict[str, set[str]],
) -> dict[str, Any]:
    """What each minimum would give, per category, the other gate settings unchanged."""
    scan: dict[str, list[dict[str, Any]]] = {}
    for category in CATEGORIES:
        entries = []
        for minimum in SCAN:
            hits = total = leaks = 0
            for case, ranked, _injected, expected_ids, _hit in rows:
                pairs = [(row.id, row.score) for row in ranked[category]]
                kept = {i for i, _ in gate_category(pairs, minimum, settings.top_k, settings.margin)}
                wanted = expected_ids & category_of[category]
                if case.expect and wanted:
                    total += 1
                    hits += bool(kept & wanted)
                elif not case.expect:
                    leaks += bool(kept)
            entries.append(
                {"min": minimum, "relevant_hit": hits, "relevant_total": total, "unrelated_leaks": leaks}
            )
        scan[category] = entries
    return scan
