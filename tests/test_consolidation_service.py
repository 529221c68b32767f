"""Consolidation through real processes: a `memevo serve` holds the store and the model; `memevo
consolidate` finds the planted duplicates and contradictions and proposes them without changing a
memory; `memevo pending` lists them; an answer applies exactly once; a declined one is not proposed
again by the next pass."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import servicerun
from deadlines import HANG_S
from memevo.core.clock import SystemClock
from memevo.core.memories import live as memories
from memevo.core.store.database import Store

pytestmark = pytest.mark.usefixtures("provisioned_model")

PLANTED = [
    ("rule", "回答用中文"),
    ("rule", "回答用英文"),
    ("project", "The API server listens on port 8080"),
    ("project", "API server port: 8080"),
    ("project", "部署脚本在 scripts/deploy.sh"),
    ("rule", "Write commit messages in English"),
]


def _populate(home: Path) -> None:
    os.environ["MEMEVO_HOME"] = str(home)
    with Store.open() as store:
        for category, text in PLANTED:
            memories.create(store, category, text, SystemClock())


home, _home_env = servicerun.module_service("consolidate-home", _populate)
memevo = servicerun.cli


def as_json(*args: str) -> Any:
    done = memevo(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def texts() -> dict[str, str]:
    return {m["id"]: m["text"] for c in ("rule", "project") for m in as_json("read", c)["memories"]}


def waiting() -> dict[frozenset[str], dict[str, Any]]:
    return {
        frozenset(o.removeprefix("keep:") for o in item["options"] if o.startswith("keep:")): item
        for item in as_json("pending")["pending"]
        if item["proposer"] == "consolidate"
    }


def test_consolidate_proposes_and_an_answer_applies_once(home: Path) -> None:
    before = texts()
    ids = {text: i for i, text in before.items()}
    report = as_json("consolidate")
    assert report["duplicates"] >= 1 and report["contradictions"] >= 1 and len(report["proposed"]) >= 2
    assert texts() == before  # proposed, not applied
    said = memevo("consolidate").stdout
    assert "already proposed" in said and "proposed 0" in said

    found = waiting()
    languages = found[frozenset({ids["回答用中文"], ids["回答用英文"]})]
    assert languages["options"] == [f"keep:{ids['回答用英文']}", f"keep:{ids['回答用中文']}", "discard"]
    listed = memevo("pending").stdout
    assert "整理记忆" in listed and f"keep:{ids['回答用中文']}" in listed

    session = languages["sessionID"]
    done = memevo("pending", "accept", session[:12], "--as", f"keep:{ids['回答用中文']}")
    assert done.returncode == 0, done.stderr
    assert "保留记忆" in done.stdout
    after = texts()
    assert ids["回答用英文"] not in after and after[ids["回答用中文"]] == "回答用中文"
    trash = as_json("trash")["trash"]
    assert [t["id"] for t in trash] == [ids["回答用英文"]]
    again = memevo("pending", "accept", session[:12], "--as", f"keep:{ids['回答用英文']}")
    assert again.returncode != 0 and texts() == after  # once: it is no longer waiting
    assert len(as_json("trash")["trash"]) == 1

    api = found[frozenset({ids["The API server listens on port 8080"], ids["API server port: 8080"]})]
    declined = memevo("pending", "discard", api["sessionID"][:12])
    assert declined.returncode == 0, declined.stderr
    assert texts() == after
    next_pass = as_json("consolidate")
    assert (
        next_pass["proposed"] == []
        and next_pass["skipped"]["declined"] + next_pass["skipped"]["proposed_before"] >= 1
    )
    assert not waiting()


def test_maintenance_runs_the_pass_in_the_background(home: Path) -> None:
    """`memevo maintenance --force` (as the day's first session start does) starts a pass on
    the service's own thread: a duplicate added since shows up as a proposal soon after."""
    import time

    added = as_json("project", "add", "用 scripts/deploy.sh 部署")["memory"]
    ids = {text: i for i, text in texts().items()}
    pair = frozenset({ids["部署脚本在 scripts/deploy.sh"], added["id"]})
    assert pair not in waiting()
    done = as_json("maintenance", "--force")
    assert done["ran"] is True
    deadline = time.monotonic() + HANG_S
    while pair not in waiting():
        assert time.monotonic() < deadline, "no consolidation proposal after the maintenance"
        time.sleep(0.3)
    assert texts()[added["id"]] == "用 scripts/deploy.sh 部署"  # proposed only


def test_the_mcp_tool_runs_the_pass_and_changes_nothing(home: Path) -> None:
    from test_mcp import _run, _text

    before = texts()
    _, (said,) = _run(home, [("memory_consolidate", {})])
    assert "近似重复" in _text(said) and "没有改动任何记忆" in _text(said)
    assert texts() == before


def test_memevo_consolidate_without_a_service_runs_the_pass_here(
    run_cli: Any, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No tray and no `memevo serve`: the command runs the pass on the store itself (it used to
    answer "unknown operation 'consolidate'"); the proposal waits in `memevo pending`."""
    monkeypatch.setenv("MEMEVO_HOME", str(data_dir))  # a data dir of its own, no service
    planted = {"dup_a": PLANTED[2], "dup_b": PLANTED[3], "deploy": PLANTED[4]}
    for category, text in planted.values():
        assert run_cli(category, "add", text).returncode == 0
    result = run_cli("consolidate")
    assert result.returncode == 0, result.stderr
    assert "found 1 cluster of near-duplicates" in result.stdout and "proposed 1" in result.stdout
    waiting = run_cli("pending").stdout
    assert planted["dup_a"][1] in waiting and planted["dup_b"][1] in waiting
    assert planted["deploy"][1] not in waiting and "memevo's consolidation" in waiting
    refused = run_cli("consolidate", "--limit", "99")
    assert refused.returncode != 0 and "limit must be a whole number from 0 to 50" in refused.stderr
