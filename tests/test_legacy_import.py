"""`memevo import-legacy` from the Node tool's files in the same data dir."""

from __future__ import annotations

import json
from pathlib import Path

from memevo.core import config as config_mod
from memevo.core.clock import FakeClock
from memevo.core.importers import legacy
from memevo.core.memories import live as memories
from memevo.core.memories import maintenance
from memevo.core.store.database import Store


def _jsonl(path: Path, records: list[object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _node_install(data_dir: Path) -> dict[str, bytes]:
    _jsonl(
        data_dir / "rule.jsonl",
        [
            {
                "id": "m_rule1",
                "text": "回答用中文",
                "confidence": 1.15,
                "category": "rule",
                "createdAt": "2026-08-01T02:00:00.000Z",
                "lastSeen": "2026-10-01T02:00:00.000Z",
                "observations": 20,
            },
            {
                "id": "m_rule2",
                "text": "改完代码不要自动 commit",
                "confidence": 0.4,
                "deprecated": True,
                "createdAt": "2026-07-01T02:00:00.000Z",
                "lastSeen": "2026-07-01T02:00:00.000Z",
            },
            "{broken json",
            {"id": "m_rule3", "text": "短", "confidence": 0.55},
        ],
    )
    _jsonl(
        data_dir / "project.jsonl",
        [
            {
                "id": "m_proj1",
                "text": "支付页新流程的灰度开关是 pay_v2",
                "confidence": 0.65,
                "category": "project",
                "createdAt": "2026-09-01T00:00:00Z",
                "lastSeen": "2026-09-20T00:00:00Z",
            }
        ],
    )
    _jsonl(
        data_dir / "trash.jsonl",
        [
            {
                "id": "m_old",
                "text": "旧的已删除记忆文本",
                "confidence": 0.5,
                "deletedAt": "2026-11-20T00:00:00Z",
            }
        ],
    )
    _jsonl(data_dir / "embeddings.jsonl", [{"id": "m_rule1", "vector": [0.1, 0.2]}])
    (data_dir / "decay-state.json").write_text('{"lastRun": "2026-11-28"}', encoding="utf-8")
    (data_dir / "config.json").write_text(
        json.dumps(
            {
                "enabled": True,
                "recallTopK": 4,
                "recallMinScore": 0.22,
                "recallMinScoreProject": 0.29,
                "recallMinMargin": -1,
                "confirm": False,
                "decayDays": 45,
                "sideJudge": False,
                "sideApiBase": "https://api.example.com/v1",
                "sideApiModel": "judge-mini",
            }
        ),
        encoding="utf-8",
    )
    return {p.name: p.read_bytes() for p in data_dir.iterdir() if p.is_file()}


def test_import_keeps_ids_confidence_timestamps_and_state(data_dir: Path) -> None:
    node_files = _node_install(data_dir)
    clock = FakeClock()
    with Store.open() as store:
        report = legacy.run(store, clock)
        assert report.imported == {"rule": 3, "project": 1, "trash": 1}
        assert len(report.invalid_lines) == 1 and report.invalid_lines[0].startswith("rule.jsonl:3: ")
        assert report.length_outside_limits == 1  # kept, not lost
        r1 = memories.get(store, "m_rule1")
        assert r1.confidence == 100  # clamped to 1
        assert r1.text == "回答用中文"
        assert r1.as_json()["last_seen"].startswith("2026-10-01")
        assert memories.get(store, "m_rule2").deprecated
        assert memories.get(store, "m_proj1").confidence == 65
        assert memories.get(store, "m_proj1").category == "project"
        assert [t.memory.id for t in memories.trash_list(store)] == ["m_old"]
        assert report.maintenance_day == "2026-11-28"
        assert store.get_state(maintenance.STATE_KEY) == "2026-11-28"
    # The Node tool's files are never changed or removed (config.json is shared and rewritten).
    for name, content in node_files.items():
        if name != "config.json":
            assert (data_dir / name).read_bytes() == content, name


def test_import_is_idempotent(data_dir: Path) -> None:
    _node_install(data_dir)
    clock = FakeClock()
    with Store.open() as store:
        legacy.run(store, clock)
        memories.reinforce(store, "m_proj1", FakeClock(utc_offset_hours=0))
        second = legacy.run(store, clock)
        assert second.imported == {"rule": 0, "project": 0, "trash": 0}
        assert second.already_present == 5
        assert memories.counts(store) == {
            "rule": {"live": 2, "deprecated": 1},
            "project": {"live": 1, "deprecated": 0},
        }


def test_config_keeps_only_keys_that_still_mean_the_same(data_dir: Path) -> None:
    _node_install(data_dir)
    with Store.open() as store:
        report = legacy.run(store, FakeClock())
    assert report.config_keys_dropped == ["recallMinMargin", "recallMinScore", "recallMinScoreProject"]
    loaded = config_mod.load()
    assert loaded["recallMinScore"] is None  # back to our model's calibrated default
    assert loaded["recallTopK"] == 4 and loaded["decayDays"] == 45 and loaded["confirm"] is False
    assert loaded["sideJudge"] is False  # learning stays off until setup is run
    assert (data_dir / "config.json.node-backup").exists()
    # A later run must not touch what the user set since.
    config_mod.set_key("recallMinScore", 0.3)
    with Store.open() as store:
        legacy.run(store, FakeClock())
    assert config_mod.load()["recallMinScore"] == 0.3


def test_warns_when_the_node_tools_hooks_are_still_registered(data_dir: Path) -> None:
    _node_install(data_dir)
    settings = Path.home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "SessionStart": [
                        {"hooks": [{"type": "command", "command": "node /x/bin/memory.mjs hook"}]}
                    ]
                }
            }
        ),
        encoding="utf-8",
    )
    with Store.open() as store:
        report = legacy.run(store, FakeClock())
    assert report.warnings == [f"the Node tool's hooks are still registered in {settings}"]


def test_nothing_to_import_is_not_an_error(data_dir: Path) -> None:
    with Store.open() as store:
        report = legacy.run(store, FakeClock())
    assert report.found_files == [] and report.imported == {"rule": 0, "project": 0, "trash": 0}


def test_memevos_own_settings_survive_the_import(run_cli, data_dir: Path) -> None:
    """Setup offers import-legacy: the settings made with memevo must all come through it."""
    settings = [
        ("sessionStartChars", "3000"),
        ("actionRecall", "false"),
        ("recallTopK", "5"),
        ("model", "intfloat/multilingual-e5-small"),
        ("recallMinScore", "0.5"),
    ]
    for key, value in settings:
        assert run_cli("config", key, value).returncode == 0
    raw = (data_dir / "config.json").read_text(encoding="utf-8")
    raw_data = json.loads(raw) | {"serviceIdleMinutes": 0}  # read from the file only
    (data_dir / "config.json").write_text(json.dumps(raw_data), encoding="utf-8")
    _jsonl(data_dir / "rule.jsonl", [{"id": "n1", "text": "回答用中文", "confidence": 0.7}])
    before = (data_dir / "config.json").read_bytes()
    done = run_cli("import-legacy")
    assert done.returncode == 0, done.stderr
    assert "imported 1 rule" in done.stdout and "dropped" not in done.stdout
    assert "kept as they are" in done.stdout
    assert (data_dir / "config.json").read_bytes() == before
    assert not (data_dir / "config.json.node-backup").exists()
    loaded = config_mod.load()
    assert (loaded["sessionStartChars"], loaded["actionRecall"], loaded["recallTopK"]) == (3000, False, 5)
    assert loaded["recallMinScore"] == 0.5 and loaded["serviceIdleMinutes"] == 0


def test_a_node_config_with_the_node_model_loses_the_old_model_keys(data_dir: Path) -> None:
    _node_install(data_dir)
    path = data_dir / "config.json"
    path.write_text(
        json.dumps(json.loads(path.read_text(encoding="utf-8")) | {"model": "Xenova/bge-base-zh-v1.5"}),
        encoding="utf-8",
    )
    with Store.open() as store:
        report = legacy.run(store, FakeClock())
    assert not report.config_kept
    dropped = ["model", "recallMinMargin", "recallMinScore", "recallMinScoreProject"]
    assert report.config_keys_dropped == dropped
    assert "model" not in config_mod.load().user_set
