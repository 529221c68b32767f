"""The model-backed commands, run as separate processes with the real model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clijson import cli_json
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.store.database import Store

pytestmark = pytest.mark.usefixtures("provisioned_model")
RECALL_SET = Path(__file__).parent / "data" / "recall-set.json"


def _small_pool(data_dir: Path) -> None:
    with Store.open() as store:
        clock = FakeClock()
        memories.create(store, "rule", "回答问题时请一律使用中文", clock)
        memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", clock)


def test_verify_json_has_the_documented_keys(run_cli, data_dir: Path) -> None:
    _small_pool(data_dir)
    cases = {
        "cases": [
            {
                "prompt": "支付页新流程要在测试环境打开，开关叫什么来着",
                "expect": ["支付页新流程的灰度开关是 pay_new_flow_v2"],
            },
            {"prompt": "帮我写一个二分查找", "expect": []},
        ]
    }
    (data_dir / "recall-cases.json").write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
    report = cli_json(run_cli("verify", "--json"))
    for key in (
        "relevant_hit",
        "relevant_total",
        "unrelated_total",
        "unrelated_rule_leaks",
        "unrelated_project_leaks",
    ):
        assert isinstance(report[key], int), key
    assert (report["relevant_hit"], report["relevant_total"], report["unrelated_total"]) == (1, 1, 1)
    assert report["cases"][0]["injected"][0]["text"] == "支付页新流程的灰度开关是 pay_new_flow_v2"
    assert [row["min"] for row in report["scan"]["project"]][:2] == [0.05, 0.1]
    read = cli_json(run_cli("read", "project", "--json"))
    assert read["memories"][0]["confidence"] == 0.5  # verify never awards


def test_verify_refuses_a_file_in_the_wrong_format(run_cli, data_dir: Path) -> None:
    wrong = data_dir / "verify-cases.json"
    data_dir.mkdir(parents=True, exist_ok=True)
    wrong.write_text(json.dumps([{"query": "x", "ids": ["a"]}]), encoding="utf-8")
    result = run_cli("verify", "--cases", str(wrong))
    assert result.returncode == 1
    assert "is not a recall-cases file" in result.stderr and "Traceback" not in result.stderr


def test_rebuild_index_backs_up_then_re_encodes(run_cli, data_dir: Path) -> None:
    _small_pool(data_dir)
    first = cli_json(run_cli("rebuild-index", "--json"))
    assert first["encoded"] == 2 and first["backup"] is None  # nothing to back up yet
    second = cli_json(run_cli("rebuild-index", "--json"))
    backup = Path(second["backup"])
    assert backup.parent == data_dir / "backups" and len(backup.read_text(encoding="utf-8").splitlines()) == 2
    assert oct(backup.stat().st_mode & 0o777) == "0o600"


def test_build_background_writes_the_users_mean(run_cli, data_dir: Path) -> None:
    result = cli_json(run_cli("build-background", "--json"))
    path = Path(result["path"])
    assert path.parent == data_dir / "background"
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["model"] == "intfloat/multilingual-e5-small" and len(saved["mean"]) == 384


def test_model_status_and_first_run(run_cli, data_dir: Path) -> None:
    status = cli_json(run_cli("model", "--json"))
    assert status["ready"] is True and status["model"] == "intfloat/multilingual-e5-small"
    overview = run_cli()
    assert overview.returncode == 0 and "ready" in overview.stdout


def test_switching_model_says_thresholds_need_verify(run_cli, data_dir: Path, provisioned_model) -> None:
    result = run_cli("config", "model", str(provisioned_model.folder))
    assert result.returncode == 0 and "memevo verify" in result.stderr


def test_bench_json_reports_every_budget_key(run_cli) -> None:
    result = run_cli("bench", "--json", "--quick")
    figures = cli_json(result)  # stdout is the JSON alone
    stages = [line for line in result.stderr.splitlines() if line.startswith("bench: ")]
    assert len(stages) == 5 and "100,000 memories" in stages[1], result.stderr  # what it is doing
    for key in ("recall_100k_ms", "encode_ms"):
        timing = figures[key]
        assert set(timing) == {"min", "median", "max"}
        assert 0 < timing["min"] <= timing["median"] <= timing["max"]
    assert figures["rebuild_sentences_per_s"] > 0
    assert isinstance(figures["encoder_huge_pages_mb"], int)  # 0 where Linux offers no huge pages
    assert "recall_1m_ms" in figures and "rss_1m_mb" in figures  # null with --quick
    assert figures["soak_growth_pct"] is None and "soak_rss_after_mb" in figures  # the soak too


def test_verify_write_cues_asks_the_side_model_for_the_files_memories(run_cli, data_dir: Path) -> None:
    """`--write-cues`: the file's memories without cues get them (one side call each, the memory
    redacted), the cases run with them, and the report carries them to keep in the file."""
    from fake_openai import FakeOpenAI
    from memevo.core import config as config_mod

    money = "Money amounts are integers in cents or Decimal, never floats"
    given = "回答问题时请一律使用中文"
    cases = {
        "memories": [{"category": "rule", "text": money}, {"category": "rule", "text": given}],
        "cues": {given: ["用中文回答"]},
        "cases": [{"prompt": "这个商品的价格字段我打算用 double 类型", "expect": [money]}],
    }
    path = data_dir / "cases.json"
    data_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
    server = FakeOpenAI([])
    server.cue_answer = ("json", {"cues": ["价格字段用 double 存", "price = 19.99", "计算折扣金额"]})
    try:
        config_mod.set_key("sideApiBase", server.base)
        config_mod.set_key("sideApiModel", "judge-mini")
        env = {"MEMEVO_SIDE_API_KEY": "sk-test-local-only-0000000000"}
        plain = cli_json(run_cli("verify", "--cases", str(path), "--json", env=env))
        assert server.cue_requests == [] and plain["relevant_hit"] == 0
        result = run_cli("verify", "--cases", str(path), "--json", "--write-cues", env=env)
        report = cli_json(result)
        assert len(server.cue_requests) == 1  # the memory the file gave no cues for
        assert money in server.cue_requests[0]["messages"][1]["content"]
        assert report["cues_written"] == {money: ["价格字段用 double 存", "price = 19.99", "计算折扣金额"]}
        assert report["settings"]["memoriesWithCues"] == 2
        assert report["relevant_hit"] == 1 and report["cases"][0]["injected"][0]["cued"] is True
        assert "writing recall cues: 1/1" in result.stderr
        server.cue_answer = ("status", 503)
        failed = run_cli("verify", "--cases", str(path), "--json", "--write-cues", env=env)
        assert cli_json(failed)["cues_written"] == {}
        assert "the side API answered HTTP 503" in failed.stderr
    finally:
        server.close()
