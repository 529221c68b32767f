"""`memevo rule add` / `project add` never writes a text twice: the same text reinforces the one there."""

from __future__ import annotations

from pathlib import Path

from clijson import cli_json
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.store.database import Store


def _live(run_cli, category: str = "rule") -> list[dict]:
    return [m for m in cli_json(run_cli("read", category, "--json"))["memories"] if not m["deprecated"]]


def test_the_same_rule_added_again_is_reinforced_not_duplicated(run_cli, data_dir: Path) -> None:
    first = cli_json(run_cli("rule", "add", "回答用中文", "--json"))
    again = run_cli("rule", "add", "回答用中文")
    padded = cli_json(run_cli("rule", "add", "  回答用中文  ", "--json"))  # create strips it the same way
    assert [m["text"] for m in _live(run_cli)] == ["回答用中文"]
    for flavor in ("default", "claude", "codebuddy"):  # what the next session start injects
        injected = (data_dir / "cache" / f"session-start-{flavor}.txt").read_text("utf-8")
        assert injected.count("回答用中文") == 1, flavor
    assert first["action"] == "create"
    assert again.returncode == 0, again.stderr
    assert f"reinforced rule #{first['memory']['id']}" in again.stdout
    assert padded["action"] == "reinforce" and padded["memory"]["id"] == first["memory"]["id"]


def test_line_endings_count_as_the_same_text(run_cli) -> None:
    first = cli_json(run_cli("project", "add", "构建命令是 make all\r\n测试命令是 make test", "--json"))
    again = cli_json(run_cli("project", "add", "构建命令是 make all\n测试命令是 make test\n", "--json"))
    assert (again["action"], again["memory"]["id"]) == ("reinforce", first["memory"]["id"])
    assert len(_live(run_cli, "project")) == 1


def test_other_group_other_repository_or_trash_is_not_the_same(run_cli, tmp_path: Path) -> None:
    rule = cli_json(run_cli("rule", "add", "提交前先跑测试", "--json"))
    assert cli_json(run_cli("project", "add", "提交前先跑测试", "--json"))["action"] == "create"
    repo_a, repo_b = tmp_path / "a", tmp_path / "b"
    for repo in (repo_a, repo_b):
        (repo / ".git").mkdir(parents=True)
    in_a = cli_json(run_cli("project", "add", "接口文档在 docs/api.md", "--here", "--json", cwd=repo_a))
    in_b = cli_json(run_cli("project", "add", "接口文档在 docs/api.md", "--here", "--json", cwd=repo_b))
    assert in_b["action"] == "create" and in_b["memory"]["id"] != in_a["memory"]["id"]
    global_rule = cli_json(run_cli("rule", "add", "提交前先跑测试", "--here", "--json", cwd=repo_a))
    assert global_rule["action"] == "reinforce"  # a global rule already applies in every repository
    run_cli("delete", rule["memory"]["id"])
    anew = cli_json(run_cli("rule", "add", "提交前先跑测试", "--json"))
    assert anew["action"] == "create" and anew["memory"]["id"] != rule["memory"]["id"]


def _deprecated(text: str, confidence: int) -> str:
    with Store.open() as store:
        memory = memories.create(store, "rule", text, FakeClock())
        with store.transaction() as con:
            con.execute(
                "UPDATE memories SET confidence = ?, deprecated = true, award_day = NULL WHERE id = ?",
                [confidence, memory.id],
            )
    return memory.id


def test_a_deprecated_one_is_revived_when_reinforce_lifts_it(run_cli, data_dir: Path) -> None:
    revivable = _deprecated("改完代码不要自动 commit", 40)
    revived = cli_json(run_cli("rule", "add", "改完代码不要自动 commit", "--json"))
    assert (revived["action"], revived["memory"]["id"]) == ("reinforce", revivable)
    assert revived["memory"]["deprecated"] is False and revived["memory"]["confidence"] == 0.5
    too_low = _deprecated("删除文件前先确认一次", 20)  # +0.1 would leave it deprecated: a new one
    fresh = cli_json(run_cli("rule", "add", "删除文件前先确认一次", "--json"))
    assert fresh["action"] == "create" and fresh["memory"]["id"] != too_low
    assert {m["text"] for m in _live(run_cli)} == {"改完代码不要自动 commit", "删除文件前先确认一次"}
