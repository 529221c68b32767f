"""Public recall sets through `memevo verify` (core/recall/public_sets.py): the form is read
and refused with the file and the item named, and the figures a run reports are the ones its
own per-prompt records give, file by file, per language and summed."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import servicerun
from clijson import cli_json
from memevo.core.errors import InvalidInput
from memevo.core.recall import public_sets

SLICE = Path(__file__).parent / "data" / "public-slice"
FILES = sorted(SLICE.glob("*.json"))
ZH = SLICE / "madial-zh-lisa-slice.json"
CROSS = SLICE / "madial-enmem-zhprompt-lisa-slice.json"


def _data(path: Path = ZH) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


# -- the form --------------------------------------------------------------------------------------
def test_the_slice_is_mit_data_in_the_public_form() -> None:
    assert len(FILES) == 3
    for path in FILES:
        data = _data(path)
        assert public_sets.is_public(data), path
        assert data["license"] == "MADial-Bench: MIT; MemoryBank: MIT"  # never LoCoMo or PrefEval
        assert all(u["source"].startswith("memorybank") for u in data["unrelated"])
        assert 10 <= len(data["memories"]) <= 15 and len(data["related"]) == len(data["unrelated"]) == 10


def test_a_public_file_becomes_verify_cases() -> None:
    data = _data()
    public = public_sets.parse(data, "slice.json")
    cases = public_sets.case_file(public)
    assert cases.pool == [("project", m["text"]) for m in data["memories"]]  # kind project: a fact
    assert len(cases.cases) == len(data["related"]) + len(data["unrelated"])
    text_of = {m["id"]: m["text"] for m in data["memories"]}
    first = data["related"][0]
    assert cases.cases[0].prompt == first["prompt"]
    assert cases.cases[0].expect == [text_of[i] for i in first["expect"]]
    assert all(c.expect == [] for c in cases.cases[len(data["related"]) :])
    assert {i.lang for i in public.related + public.unrelated} == {"zh"}
    assert public.family == "madial" and public.name == "madial-zh-lisa-slice"
    # a rule is a rule; any other kind a project fact
    data["memories"][0]["kind"] = "rule"
    data["memories"][1]["kind"] = "event"
    categories = [c for c, _ in public_sets.case_file(public_sets.parse(data)).pool or []]
    assert categories[:3] == ["rule", "project", "project"]


def test_field_chooses_the_text_sent_and_falls_back_to_the_prompt() -> None:
    data = _data()
    del data["related"][1]["prompt_last"]
    public = public_sets.parse(data, "slice.json", "prompt_last")
    assert public.related[0].prompt == data["related"][0]["prompt_last"] != data["related"][0]["prompt"]
    assert public.related[1].prompt == data["related"][1]["prompt"]  # no prompt_last: the prompt
    assert public.unrelated[0].prompt == data["unrelated"][0]["prompt"]
    with pytest.raises(InvalidInput, match="--field must be one of"):
        public_sets.parse(data, "slice.json", "answer")


def test_languages_and_the_cross_lingual_family() -> None:
    assert public_sets.language("我喜欢数学和科学 ok") == "zh"  # 8 Han, 2 Latin letters
    assert public_sets.language("我喜欢数学 and science") == "en"  # 5 Han, 10 Latin letters
    assert public_sets.language("I like 数学") == "en"  # 5 Latin letters, 2 Han
    assert public_sets.language("Lisa在学校的作文比赛中赢得了第一名") == "zh"
    assert public_sets.language("12345 !!") == "en"
    cross = public_sets.parse(_data(CROSS), str(CROSS))
    assert (cross.memory_language, cross.prompt_language) == ("en", "zh")
    assert cross.family == "madial cross-lingual"
    data = _data()
    for item in data["related"]:
        item.pop("lang")
    assert {i.lang for i in public_sets.parse(data).related} == {"zh"}  # detected when absent
    data["related"][0]["lang"] = "fr"
    assert public_sets.parse(data).related[0].lang == "fr"  # the item's own label is kept


def _broken(change: Any) -> dict[str, Any]:
    data = copy.deepcopy(_data())
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (
            lambda d: d["related"][2].update(expect=["madial-m41", "no-such-id"]),
            "bad.json: related item 3 expects 'no-such-id', which is not a memory id of the file",
        ),
        (lambda d: d["related"][4].pop("prompt"), 'bad.json: related item 5 has no "prompt"'),
        (lambda d: d["unrelated"][0].update(prompt="  "), 'bad.json: unrelated item 1 has no "prompt"'),
        (lambda d: d["related"][0].update(expect=[]), 'bad.json: related item 1: "expect" is not'),
        (lambda d: d["memories"][3].update(kind=["rule"]), "bad.json: memory 4 is not {'id': str"),
        (lambda d: d["memories"][0].pop("id"), "bad.json: memory 1 is not"),
        (lambda d: d["memories"][1].update(text="短"), "bad.json: memory 2 ('madial-m"),
        (lambda d: d["memories"][2].update(id=d["memories"][0]["id"]), "memory 3 repeats the id"),
        (lambda d: d.update(related={"prompt": "x"}), 'bad.json: "related" is not a list'),
        (lambda d: d.update(memories=[]), 'bad.json: "memories" is not a non-empty list'),
        (lambda d: d.pop("name"), 'bad.json: "name" is not a non-empty string'),
    ],
)
def test_malformed_files_are_refused_naming_the_file_and_the_item(change: Any, said: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        public_sets.parse(_broken(change), "bad.json")
    assert said in str(refused.value)


def test_work_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(public_sets, "MAX_ITEMS", 5)
    with pytest.raises(InvalidInput, match='10 "related" prompts; at most 5'):
        public_sets.parse(_data(), "big.json")


def test_duplicate_texts_are_stored_once_under_their_first_id() -> None:
    data = _data()
    twin = dict(data["memories"][0], id="twin")
    data["memories"].append(twin)
    data["related"][0]["expect"] = ["twin"]
    public = public_sets.parse(data)
    assert len(public.memories) == len(data["memories"]) - 1
    assert public.related[0].expect == (data["memories"][0]["id"],)


# -- a run --------------------------------------------------------------------------------------------
def _independent(records: list[dict[str, Any]], rules: frozenset[str] = frozenset()) -> dict[str, int]:
    """The figures recomputed from the records, without public_sets.tally; `rules`: the ids of
    the file's rules."""
    out = dict.fromkeys(public_sets.COUNTS, 0)
    for r in records:
        got = [row["id"] for row in r["injected"]]
        if r["kind"] == "related":
            out["related"] += 1
            governed = all(e in rules for e in r["expect"])
            out["rule_related"] += governed
            out["at_start"] += governed and r["at_start"]
            out["recall"] += any(e in got for e in r["expect"])
            out["all_expected"] += all(e in got for e in r["expect"])
            out["recall_at_5"] += any(e in r["top5"][:5] for e in r["expect"])
        else:
            out["unrelated"] += 1
            out["false_injections"] += bool(got)
            out["false_rule"] += any(row["category"] == "rule" for row in r["injected"])
            out["false_project"] += any(row["category"] == "project" for row in r["injected"])
    return out


def _summed(parts: list[dict[str, int]]) -> dict[str, int]:
    return {key: sum(p[key] for p in parts) for key in public_sets.COUNTS}


@pytest.mark.usefixtures("provisioned_model")
def test_verify_runs_the_slice_and_its_figures_are_its_records(run_cli_process, data_dir: Path) -> None:
    done = run_cli_process("verify", "--cases", *map(str, FILES), "--json")
    result = cli_json(done)
    progress = [line for line in done.stderr.splitlines() if line.startswith("public set ")]
    assert progress == [
        f"public set {n}/3: {_data(p)['name']} (12 memories, 20 prompts)" for n, p in enumerate(FILES, 1)
    ]
    assert not (data_dir / "memevo.duckdb").exists()  # the user's store is never opened
    assert result["field"] == "prompt" and [s["name"] for s in result["sets"]] == [
        _data(p)["name"] for p in FILES
    ]
    for report, path in zip(result["sets"], FILES, strict=True):
        data = _data(path)
        ids = {m["id"] for m in data["memories"]}
        records = report["records"]
        assert [r["prompt"] for r in records] == [i["prompt"] for i in data["related"] + data["unrelated"]]
        for r in records:
            assert {row["id"] for row in r["injected"]} <= ids and set(r["top5"]) <= ids
            assert len(r["top5"]) == 5  # 12 memories: search always has five
        figures = report["figures"]
        assert figures == _independent(records), report["name"]
        assert (figures["related"], figures["unrelated"]) == (10, 10)
        assert 0 <= figures["recall_at_5"] <= figures["related"]
        assert figures["all_expected"] <= figures["recall"] <= figures["related"]
        # the same run as verify counts it
        gate = report["gate"]
        assert (gate["relevant_hit"], gate["relevant_total"]) == (figures["recall"], figures["related"])
        assert (gate["unrelated_rule_leaks"], gate["unrelated_project_leaks"]) == (
            figures["false_rule"],
            figures["false_project"],
        )
        # per prompt language: each language's records, and they add up to the file
        for lang, part in report["languages"].items():
            assert part == _independent([r for r in records if r["lang"] == lang])
        assert _summed(list(report["languages"].values())) == figures
    # a model that ranks no expected memory in the first five of twelve would be broken
    assert _summed([s["figures"] for s in result["sets"]])["recall_at_5"] >= 10
    # the sums: by family, by prompt language, over all
    families: dict[str, list[dict[str, int]]] = {}
    languages: dict[str, list[dict[str, int]]] = {}
    for report in result["sets"]:
        families.setdefault(report["family"], []).append(report["figures"])
        for lang, part in report["languages"].items():
            languages.setdefault(lang, []).append(part)
    assert set(result["families"]) == {"madial", "madial cross-lingual"}
    assert result["families"] == {k: _summed(v) for k, v in families.items()}
    assert set(result["languages"]) == {"zh", "en"}
    assert result["languages"] == {k: _summed(v) for k, v in languages.items()}
    assert result["all"] == _summed([s["figures"] for s in result["sets"]])
    assert result["languages"]["zh"]["related"] == 20 and result["languages"]["en"]["related"] == 10


@pytest.mark.usefixtures("provisioned_model")
def test_the_table_and_the_service_give_the_same_figures(run_cli, data_dir: Path) -> None:
    alone = cli_json(run_cli("verify", "--cases", str(CROSS), "--field", "prompt_last", "--json"))
    data = _data(CROSS)
    sent = [r["prompt"] for r in alone["sets"][0]["records"]]
    assert sent[:10] == [i.get("prompt_last") or i["prompt"] for i in data["related"]]
    printed = run_cli("verify", "--cases", str(CROSS), "--field", "prompt_last")
    assert printed.returncode == 0, printed.stderr
    f = alone["all"]
    for part in (
        f"recall {f['recall']}/{f['related']} (",
        f"R@5 {f['recall_at_5']}/{f['related']} (",
        f"false-inj {f['false_injections']}/{f['unrelated']} (",
        "by family:",
        "  madial cross-lingual",
        "by prompt language:",
    ):
        assert part in printed.stdout, (part, printed.stdout)
    assert re.search(r"^all +recall \d+/10 \(\d+\.\d%\)", printed.stdout, re.M), printed.stdout
    with servicerun.service(data_dir):
        through = run_cli("verify", "--cases", str(CROSS), "--field", "prompt_last", "--json")
    assert "verify runs in the memevo service" in through.stderr, through.stderr
    served = cli_json(through)
    assert served["sets"][0]["records"] == alone["sets"][0]["records"]
    assert served["all"] == alone["all"]


def test_the_cli_refuses_a_malformed_file_and_mixed_forms(run_cli, data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    bad = data_dir / "bad.json"
    bad.write_text(
        json.dumps(_broken(lambda d: d["related"][2].update(expect=["nope"])), ensure_ascii=False),
        encoding="utf-8",
    )
    result = run_cli("verify", "--cases", str(ZH), str(bad))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{bad}: related item 3 expects 'nope', which is not a memory id of the file" in result.stderr
    assert "public set 1/" not in result.stderr  # refused before any work
    own = data_dir / "own.json"
    own.write_text(json.dumps({"cases": [], "memories": []}), encoding="utf-8")
    mixed = run_cli("verify", "--cases", str(ZH), str(own))
    assert mixed.returncode == 1 and f"only in the public form: {own}" in mixed.stderr
    field = run_cli("verify", "--cases", str(own), "--field", "question")
    assert field.returncode == 1 and "--field applies to files in the public form" in field.stderr


def test_rules_at_session_start_are_counted_for_the_prompts_they_govern(encoder, data_dir: Path) -> None:
    """A prompt governed by rules alone counts as covered at session start when every one of its
    rules is in the list the session starts with; past the list's length, a rule is not."""
    from memevo.core.service.fallback_texts import SESSION_START_RULES

    count = SESSION_START_RULES + 5
    data = {
        "name": "rules-made-here",
        "memories": [
            {"id": f"r{n}", "kind": "rule", "text": f"第 {n} 条规则：变量 var_{n} 的命名必须以 rule{n}_ 开头"}
            for n in range(count)
        ]
        + [{"id": "f0", "kind": "project", "text": "订单服务部署在 prod-sh-1 集群"}],
        "related": [
            {"prompt": "变量 var_0 该怎么命名", "expect": ["r0"]},
            {"prompt": f"变量 var_{count - 1} 该怎么命名", "expect": [f"r{count - 1}"]},
            {"prompt": "订单服务部署在哪个集群", "expect": ["f0"]},
        ],
        "unrelated": [{"prompt": "帮我写一个快速排序"}],
    }
    report = public_sets.run(encoder, public_sets.parse(data, "rules.json"))
    records, figures = report["records"], report["figures"]
    rules = frozenset(f"r{n}" for n in range(count))
    assert figures == _independent(records, rules)
    assert figures["rule_related"] == 2  # the fact's prompt is not governed by a rule
    listed = [r["at_start"] for r in records[:2]]
    assert sorted(listed) == [False, True]  # fifty listed: one of the two is past the list
    assert not (data_dir / "memevo.duckdb").exists()  # a throwaway store, never the user's
