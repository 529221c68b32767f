"""Public recall benchmarks through `memevo verify`'s production gate.

Three public memory benchmarks (LoCoMo, MADial-Bench, PrefEval; unrelated prompts from
MemoryBank too) are converted to one JSON form (extbench/README.md):

    {"name": "madial-zh-lisa", "source": "…", "license": "…",
     "memories": [{"id": "m1", "kind": "rule" | "project" | …, "text": "…"}, …],
     "related": [{"prompt": "…", "expect": ["m1", …], "lang"?: "zh" | "en", "question"?: "…",
                  "prompt_last"?: "…", …}, …],
     "unrelated": [{"prompt": "…", "lang"?: …, "source"?: …}, …],
     "unrelated_excluded": [… never sent …]}

A file becomes verify's CaseFile (kind "rule" is a rule, any other kind a project fact; the
expected ids become their texts) and runs in a throwaway store (verify.pool_engine: the user's
store is never opened), every prompt through the exact gate recall uses (verify.run). Reported
per file and per prompt language: recall (related prompts with at least one expected memory
injected), all-expected (every expected memory injected), false injections (unrelated prompts
that injected anything, split rule / project), and recall@5 of `memevo search`'s ranking
(memsearch.scored: an expected memory among the first five). `summarise` sums files by family
(the name before its first "-", "cross-lingual" added when the memories' language is not the
prompts') and by prompt language.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, MemevoError
from ..memories import live as memories
from ..memories import search as memsearch
from . import verify

FIELDS = ("prompt", "question", "prompt_last")
LANGUAGES = ("zh", "en")
TOP = 5  # recall@5: `memevo search`'s first five
# Bounded work: a file is read whole and every prompt is encoded, so a file past these is refused.
MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_MEMORIES = 20_000
MAX_ITEMS = 20_000
MAX_EXPECT = 200
COUNTS = (
    "related",
    "recall",
    "all_expected",
    "recall_at_5",
    "unrelated",
    "false_injections",
    "false_rule",
    "false_project",
    # related prompts governed by rules alone, and of those, the ones whose every rule is in the
    # list the session starts with (rules are injected at every session start; recall per
    # prompt is the reminder)
    "rule_related",
    "at_start",
)
SHAPE = (
    'expected {"name", "memories": [{"id", "kind", "text"}, …], "related": [{"prompt", '
    '"expect": [memory ids]}, …], "unrelated": [{"prompt"}, …]}'
)


@dataclass(frozen=True)
class Memory:
    id: str
    category: str  # "rule" or "project"
    text: str  # as the store keeps it (memories.check_text)


@dataclass(frozen=True)
class Item:
    prompt: str  # the text sent: the chosen field, else "prompt"
    expect: tuple[str, ...]  # memory ids (a duplicate text's id is its first id); () for unrelated
    lang: str


@dataclass(frozen=True)
class PublicSet:
    name: str
    where: str
    field: str
    memories: list[Memory]
    related: list[Item]
    unrelated: list[Item]

    @property
    def memory_language(self) -> str:
        return majority(language(m.text) for m in self.memories)

    @property
    def prompt_language(self) -> str:
        return majority(i.lang for i in (self.related or self.unrelated))

    @property
    def family(self) -> str:
        base = self.name.split("-", 1)[0]
        return f"{base} cross-lingual" if self.memory_language != self.prompt_language else base


# -- language ---------------------------------------------------------------------------------------
def _han(char: str) -> bool:
    code = ord(char)
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0xF900 <= code <= 0xFAFF
        or 0x20000 <= code <= 0x3FFFF
    )


def _latin(char: str) -> bool:
    return ("a" <= char.lower() <= "z") or (char.isalpha() and 0x00C0 <= ord(char) <= 0x024F)


def language(text: str) -> str:
    """ "zh" when the text has more Han characters than Latin letters, else "en"."""
    han = sum(1 for c in text if _han(c))
    latin = sum(1 for c in text if _latin(c))
    return "zh" if han > latin else "en"


def majority(langs: Iterable[str]) -> str:
    counts = Counter(langs)
    if not counts:
        return "en"
    return max(sorted(counts), key=lambda lang: counts[lang])


# -- reading ----------------------------------------------------------------------------------------
def is_public(data: Any) -> bool:
    """The public form: memories with ids and related / unrelated prompts, no verify "cases"."""
    return (
        isinstance(data, dict)
        and "cases" not in data
        and "memories" in data
        and ("related" in data or "unrelated" in data)
    )


def read(path: Path) -> Any:
    """A cases file's JSON, either form (verify.read), refused unread past the size bound: the
    one read of a file `memevo verify` or calibrate is given."""
    return verify.read(path, MAX_FILE_BYTES)


def check_field(field: str) -> str:
    if field not in FIELDS:
        raise InvalidInput(f"--field must be one of {', '.join(FIELDS)}, got {field!r}"[:200])
    return field


def parse(data: Any, where: str = "the public set", field: str = "prompt") -> PublicSet:
    check_field(field)
    if not is_public(data):
        raise InvalidInput(f"{where} is not a public recall set: {SHAPE}")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput(f'{where}: "name" is not a non-empty string')
    raw_memories = data["memories"]
    if not isinstance(raw_memories, list) or not raw_memories:
        raise InvalidInput(f'{where}: "memories" is not a non-empty list')
    if len(raw_memories) > MAX_MEMORIES:
        raise InvalidInput(f"{where}: {len(raw_memories)} memories; at most {MAX_MEMORIES}")
    pool, alias = _memories(raw_memories, where)
    related = _items(data.get("related", []), "related", where, field, alias)
    unrelated = _items(data.get("unrelated", []), "unrelated", where, field, None)
    if not related and not unrelated:
        raise InvalidInput(f"{where}: no related and no unrelated prompts")
    return PublicSet(name.strip(), where, field, pool, related, unrelated)


def _memories(raw: list[Any], where: str) -> tuple[list[Memory], dict[str, str]]:
    """The pool (identical texts stored once, under their first id) and every id's pool id."""
    pool: list[Memory] = []
    alias: dict[str, str] = {}
    first_of_text: dict[str, str] = {}
    for number, item in enumerate(raw, 1):
        ok = (
            isinstance(item, dict)
            and isinstance(item.get("id"), str | int)
            and not isinstance(item.get("id"), bool)
            and isinstance(item.get("kind"), str)
            and isinstance(item.get("text"), str)
        )
        if not ok:
            raise InvalidInput(
                f"{where}: memory {number} is not {{'id': str, 'kind': 'rule'|'project'|…, 'text': str}}"
            )
        memory_id = str(item["id"])
        if memory_id in alias:
            raise InvalidInput(f"{where}: memory {number} repeats the id {memory_id!r}"[:300])
        try:
            text = memories.check_text(item["text"])
        except MemevoError as exc:
            raise InvalidInput(f"{where}: memory {number} ({memory_id!r}): {exc}"[:400]) from exc
        category = "rule" if item["kind"] == "rule" else "project"
        key = f"{category}\n{text}"
        if key in first_of_text:
            alias[memory_id] = first_of_text[key]
            continue
        first_of_text[key] = memory_id
        alias[memory_id] = memory_id
        pool.append(Memory(memory_id, category, text))
    return pool, alias


def _items(raw: Any, part: str, where: str, field: str, alias: dict[str, str] | None) -> list[Item]:
    if not isinstance(raw, list):
        raise InvalidInput(f'{where}: "{part}" is not a list')
    if len(raw) > MAX_ITEMS:
        raise InvalidInput(f'{where}: {len(raw)} "{part}" prompts; at most {MAX_ITEMS}')
    out = []
    for number, item in enumerate(raw, 1):
        label = f"{where}: {part} item {number}"
        if not isinstance(item, dict):
            raise InvalidInput(f"{label} is not an object")
        prompt = item.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise InvalidInput(f'{label} has no "prompt" (a non-empty string)')
        chosen = item.get(field)
        text = chosen if isinstance(chosen, str) and chosen.strip() else prompt
        lang = item.get("lang")
        if lang is not None and not isinstance(lang, str):
            raise InvalidInput(f'{label}: "lang" is not a string')
        expect: tuple[str, ...] = ()
        if alias is not None:
            expect = _expect(item.get("expect"), label, alias)
        out.append(Item(text, expect, lang or language(text)))
    return out


def _expect(raw: Any, label: str, alias: dict[str, str]) -> tuple[str, ...]:
    if (
        not isinstance(raw, list)
        or not raw
        or not all(isinstance(e, str | int) and not isinstance(e, bool) for e in raw)
    ):
        raise InvalidInput(f'{label}: "expect" is not a non-empty list of memory ids')
    if len(raw) > MAX_EXPECT:
        raise InvalidInput(f'{label}: "expect" names {len(raw)} memories; at most {MAX_EXPECT}')
    ids = []
    for memory_id in (str(e) for e in raw):
        if memory_id not in alias:
            raise InvalidInput(f"{label} expects {memory_id!r}, which is not a memory id of the file"[:300])
        ids.append(alias[memory_id])
    return tuple(dict.fromkeys(ids))


def case_file(public: PublicSet) -> verify.CaseFile:
    """verify's form: the pool as (category, text), related prompts expecting texts, unrelated
    prompts expecting nothing."""
    text_of = {m.id: m.text for m in public.memories}
    cases = [verify.Case(i.prompt, [text_of[e] for e in i.expect]) for i in public.related]
    cases += [verify.Case(i.prompt, []) for i in public.unrelated]
    return verify.CaseFile(cases, [(m.category, m.text) for m in public.memories])


# -- running ----------------------------------------------------------------------------------------
def run(encoder: Any, public: PublicSet) -> dict[str, Any]:
    """One file in a throwaway store through the production gate, and `memevo search`'s top five
    for each prompt; per-prompt records beside the figures they sum to."""
    cases = case_file(public)
    items = [("related", i) for i in public.related] + [("unrelated", i) for i in public.unrelated]
    with verify.pool_engine(encoder, cases) as (engine, made):
        ours = {stored.id: public.memories[n].id for n, stored in enumerate(made)}
        report = verify.run(engine, cases.cases)
        at_start = {ours.get(i, i) for i in _session_start_rules(engine.store)}
        top = [
            [ours.get(i, i) for _score, i, _c in memsearch.scored(engine, _query(item.prompt), TOP)][:TOP]
            for _kind, item in items
        ]
    kinds = {m.id: m.category for m in public.memories}
    records = []
    for (kind, item), case, top5 in zip(items, report["cases"], top, strict=True):
        injected = [
            {"id": ours.get(row["id"], row["id"]), "category": row["category"], "score": row["score"]}
            for row in case["injected"]
        ]
        records.append(
            {
                "kind": kind,
                "prompt": item.prompt,
                "lang": item.lang,
                "expect": list(item.expect),
                "injected": injected,
                "top5": top5,
                "hit": case["hit"],
                # every expected memory a rule, each listed at session start
                "rules_only": bool(item.expect) and all(kinds.get(e) == "rule" for e in item.expect),
                "at_start": bool(item.expect) and set(item.expect) <= at_start,
            }
        )
    by_lang: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_lang.setdefault(record["lang"], []).append(record)
    return {
        "name": public.name,
        "file": public.where,
        "field": public.field,
        "family": public.family,
        "memory_language": public.memory_language,
        "prompt_language": public.prompt_language,
        "memories": len(public.memories),
        "model": report["model"],
        "settings": report["settings"],
        "figures": tally(records),
        "languages": {lang: tally(rows) for lang, rows in sorted(by_lang.items())},
        # verify's own counts of the same run (its "hit" is recall's)
        "gate": {key: report[key] for key in verify.COUNTS},
        "records": records,
    }


def _session_start_rules(store: Any) -> list[str]:
    """The ids of the rules a session of this store starts with, under the configured budget
    (what the SessionStart hook injects)."""
    from .. import config as config_mod
    from ..service import fallback_texts

    _text, ids = fallback_texts.session_start_text(store, config_mod.load(), False, "claude", 1 << 30)
    return ids


def _query(prompt: str) -> str:
    """What `memevo search` would take: stripped, at most its longest query."""
    return prompt.strip()[: memsearch.MAX_QUERY]


def tally(records: list[dict[str, Any]]) -> dict[str, int]:
    related = [r for r in records if r["kind"] == "related"]
    unrelated = [r for r in records if r["kind"] == "unrelated"]

    def ids(record: dict[str, Any]) -> set[str]:
        return {row["id"] for row in record["injected"]}

    def injected(record: dict[str, Any], category: str) -> bool:
        return any(row["category"] == category for row in record["injected"])

    return {
        "related": len(related),
        "recall": sum(1 for r in related if ids(r) & set(r["expect"])),
        "all_expected": sum(1 for r in related if set(r["expect"]) <= ids(r)),
        "recall_at_5": sum(1 for r in related if set(r["top5"][:TOP]) & set(r["expect"])),
        "unrelated": len(unrelated),
        "false_injections": sum(1 for r in unrelated if r["injected"]),
        "false_rule": sum(1 for r in unrelated if injected(r, "rule")),
        "false_project": sum(1 for r in unrelated if injected(r, "project")),
        "rule_related": sum(1 for r in related if r.get("rules_only")),
        "at_start": sum(1 for r in related if r.get("rules_only") and r.get("at_start")),
    }


def add(total: dict[str, int], part: dict[str, int]) -> None:
    for key in COUNTS:
        total[key] = total.get(key, 0) + part[key]


def summarise(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """The files' counts summed by family, by prompt language, and over all."""
    families: dict[str, dict[str, int]] = {}
    languages: dict[str, dict[str, int]] = {}
    every: dict[str, int] = dict.fromkeys(COUNTS, 0)
    for report in reports:
        add(families.setdefault(report["family"], dict.fromkeys(COUNTS, 0)), report["figures"])
        for lang, figures in report["languages"].items():
            add(languages.setdefault(lang, dict.fromkeys(COUNTS, 0)), figures)
        add(every, report["figures"])
    return {
        "families": dict(sorted(families.items())),
        "languages": dict(sorted(languages.items())),
        "all": every,
    }


def combined(reports: list[dict[str, Any]], field: str) -> dict[str, Any]:
    return {"field": field, "sets": reports, **summarise(reports)}


def percent(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f}%)" if whole else f"{part}/0"
