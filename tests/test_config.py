"""config.json: the schema table, validation, user values only, and broken files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memevo.core import config as config_mod
from memevo.core.errors import InvalidInput

SEED_DEFAULTS = {
    "enabled": True,
    "recallTopK": 3,
    "recallMinMargin": -1,
    "showRecall": False,
    "confirm": True,
    "sideWaitMs": 12000,
    "decayDays": 30,
    "sideApiBase": None,
    "sideApiModel": None,
}


def test_defaults_without_a_file(data_dir: Path) -> None:
    loaded = config_mod.load()
    for key, value in SEED_DEFAULTS.items():
        assert loaded[key] == value, key
    # The recall minimums belong to the active model: unset means "the model's calibrated value".
    assert loaded["recallMinScore"] is None and loaded["recallMinScoreProject"] is None
    assert loaded.problems == [] and loaded.user_set == set()
    assert not (data_dir / "config.json").exists()


def test_setting_one_key_writes_only_that_key(data_dir: Path) -> None:
    config_mod.set_key("recallTopK", 5)
    assert json.loads((data_dir / "config.json").read_text(encoding="utf-8")) == {"recallTopK": 5}
    config_mod.set_key("confirm", False)
    assert json.loads((data_dir / "config.json").read_text(encoding="utf-8")) == {
        "recallTopK": 5,
        "confirm": False,
    }
    loaded = config_mod.load()
    assert loaded.user_set == {"recallTopK", "confirm"}
    assert loaded["decayDays"] == 30


def test_file_is_reread_on_every_use(data_dir: Path) -> None:
    assert config_mod.load()["recallTopK"] == 3
    (data_dir).mkdir(parents=True, exist_ok=True)
    (data_dir / "config.json").write_text('{"recallTopK": 7}', encoding="utf-8")
    assert config_mod.load()["recallTopK"] == 7


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("recallTopK", 0),
        ("recallTopK", 2.5),
        ("recallTopK", "three"),
        ("enabled", "maybe"),
        ("recallMinScore", 1.5),
        ("recallMinScore", -0.5),
        ("sideWaitMs", -1),
        ("decayDays", 0),
        ("sideApiBase", "ftp://example.com"),
        ("sideApiModel", "  "),
        ("recallTopK", 10**30),
        ("decayDays", 10**30),
        ("sideDailyLimit", 10**30),
        ("model", "/etc"),  # a folder, but no model in it: recall would stop at the next start
        ("model", "/no/such/folder"),
        ("model", "not a model id"),
    ],
)
def test_bad_values_are_refused_and_the_file_is_unchanged(data_dir: Path, key: str, value: object) -> None:
    config_mod.set_key("recallTopK", 4)
    before = (data_dir / "config.json").read_bytes()
    with pytest.raises(InvalidInput, match=key):
        config_mod.set_key(key, value)
    assert (data_dir / "config.json").read_bytes() == before


def test_unknown_key_is_refused(data_dir: Path) -> None:
    with pytest.raises(InvalidInput, match="unknown config key"):
        config_mod.set_key("recallTopKK", 3)
    with pytest.raises(InvalidInput, match="unknown config key"):
        config_mod.set_key("sideJudge", True)  # legacy, not settable
    assert not (data_dir / "config.json").exists()


def test_minus_one_switches_a_minimum_off(data_dir: Path) -> None:
    assert config_mod.set_key("recallMinScore", -1) == -1
    assert config_mod.set_key("recallMinScoreProject", 0.31) == 0.31
    loaded = config_mod.load()
    assert loaded["recallMinScore"] == -1 and loaded["recallMinScoreProject"] == 0.31


def test_unset_restores_the_default(data_dir: Path) -> None:
    config_mod.set_key("decayDays", 60)
    config_mod.unset_key("decayDays")
    assert config_mod.load()["decayDays"] == 30
    assert "decayDays" not in json.loads((data_dir / "config.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '"text"', "\x00\xff garbage"])
def test_broken_file_gives_defaults_and_a_reported_problem(data_dir: Path, content: str) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "config.json").write_text(content, encoding="utf-8")
    loaded = config_mod.load()
    assert loaded["recallTopK"] == 3
    assert loaded.problems and "config.json" in loaded.problems[0]
    with pytest.raises(InvalidInput, match="nothing was written"):
        config_mod.set_key("recallTopK", 5)
    assert (data_dir / "config.json").read_text(encoding="utf-8") == content


def test_one_bad_value_in_the_file_falls_back_for_that_key_only(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "config.json").write_text('{"recallTopK": "x", "confirm": false}', encoding="utf-8")
    loaded = config_mod.load()
    assert loaded["recallTopK"] == 3 and loaded["confirm"] is False
    assert len(loaded.problems) == 1 and "recallTopK" in loaded.problems[0]


def test_unknown_keys_in_the_file_are_kept_when_writing(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "config.json").write_text('{"futureKey": 1}', encoding="utf-8")
    config_mod.set_key("showRecall", True)
    assert json.loads((data_dir / "config.json").read_text(encoding="utf-8")) == {
        "futureKey": 1,
        "showRecall": True,
    }


def test_cli_value_parsing() -> None:
    parse = config_mod.parse_cli_value
    assert parse("true") is True and parse("off") is False
    assert parse("5") == 5 and parse("0.25") == 0.25 and parse("-1") == -1
    assert parse("https://api.example.com/v1") == "https://api.example.com/v1"
    assert parse("gpt-4o-mini") == "gpt-4o-mini"


def test_a_model_is_a_hub_id_or_a_folder_holding_one(data_dir: Path, tmp_path: Path) -> None:
    assert config_mod.set_key("model", " BAAI/bge-small-zh-v1.5 ") == "BAAI/bge-small-zh-v1.5"
    folder = tmp_path / "my-model"
    folder.mkdir()
    (folder / "modules.json").write_text("[]", encoding="utf-8")
    assert config_mod.set_key("model", str(folder)) == str(folder)
    assert config_mod.load()["model"] == str(folder)
