"""A repository's facts shared through its own file, with real git and two data dirs playing two
teammates: `memevo share` writes chosen facts to .memevo/facts.md (never a secret), the other
teammate's memevo reads them as that repository's facts, edits and deletions in the file win, a
local edit is offered back as a diff and written only when asked, a file broken by hand names its
line and loses nothing; the service reads the file at session start only when it changed (a stat
otherwise). A teammate's file is read only once trusted (`share --trust`; tests/test_repo_trust.py
covers the trust step itself)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from clirun import in_process
from gitrepo import bare_remote, git
from memevo.core.clock import FakeClock
from memevo.core.memories import history as memory_history
from memevo.core.memories import live as memories
from memevo.core.memories import origins, scopes
from memevo.core.ops import table as optable
from memevo.core.sharing import facts as sharing
from memevo.core.sharing import facts_file as sharefile
from memevo.core.store.database import Store

FACT = "支付页新流程的灰度开关是 pay_new_flow_v2"
OTHER = "测试环境的数据库在 db.staging.internal 上"
SECRET = "部署用的 token 是 ghp_Zq8xN3vR5tY7uW1pK4mL6sD9fG2hJ0cB3nV5"


class Teammate:
    """One person: a data dir of their own and a clone of the shared repository."""

    def __init__(self, home: Path, clone: Path) -> None:
        self.home, self.clone = home, clone

    def memevo(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        done = in_process(
            *args, env={"MEMEVO_HOME": str(self.home), "MEMEVO_NO_SERVICE": "1"}, cwd=self.clone
        )
        if ok:
            assert done.returncode == 0, done.stderr
        return done

    def json(self, *args: str) -> dict[str, Any]:
        return dict(json.loads(self.memevo(*args, "--json").stdout))

    def trust(self) -> dict[str, Any]:
        """`memevo share --trust`: the file's content shown, trusted and read; what was read."""
        return dict(self.json("share", "--trust")["read"])

    def store(self) -> Store:
        return Store.open(self.home / "memevo.duckdb")

    def facts(self) -> dict[str, str]:
        with self.store() as store:
            return {m.id: m.text for m in memories.live(store) if m.category == "project"}

    def push(self, message: str) -> None:
        git(self.clone, "add", "-A")
        git(self.clone, "commit", "-q", "-m", message)
        git(self.clone, "push", "-q", "origin", "HEAD")

    def pull(self) -> None:
        git(self.clone, "pull", "-q", "--rebase", "origin", "HEAD")


@pytest.fixture
def team(tmp_path: Path, data_dir: Path) -> tuple[Teammate, Teammate]:
    remote = bare_remote(tmp_path)
    people = []
    for name in ("alice", "bob"):
        clone = tmp_path / name / "shop"
        clone.parent.mkdir()
        git(tmp_path, "clone", "-q", str(remote), str(clone))
        people.append(Teammate(tmp_path / name / "memevo-home", clone))
    return people[0], people[1]


def _file(who: Teammate) -> str:
    return (who.clone / sharing.FILE).read_text()


def test_shared_facts_reach_a_teammate_and_the_file_wins(team: tuple[Teammate, Teammate]) -> None:
    alice, bob = team
    fact = alice.json("project", "add", FACT, "--here")["memory"]["id"]
    other = alice.json("project", "add", OTHER, "--here")["memory"]["id"]
    secret = alice.json("project", "add", SECRET, "--here")["memory"]["id"]

    listed = alice.json("share")  # not a terminal: what could be shared, nothing written
    assert {m["id"] for m in listed["unshared"]} == {fact, other, secret}
    assert not (alice.clone / sharing.FILE).exists()

    refused = alice.memevo("share", "--all", ok=False)  # a secret would be altered: refused by name
    assert refused.returncode != 0
    assert secret in refused.stderr and "secret" in refused.stderr
    assert not (alice.clone / sharing.FILE).exists()

    written = alice.json("share", fact, other)
    assert written["shared"] == [fact, other]
    text = _file(alice)
    assert f"- {FACT} <!-- memevo:{fact} -->" in text and "ghp_" not in text
    assert alice.json("share")["unshared"] == [m for m in listed["unshared"] if m["id"] == secret]
    alice.push("share two facts")

    bob.pull()
    waiting = bob.json("share")["read"]  # a teammate's file: nothing read before Bob trusts it
    assert waiting["review"]["new"] and waiting["created"] == [] and bob.facts() == {}
    bob_read = bob.trust()
    assert len(bob_read["created"]) == 2
    got = bob.facts()
    assert sorted(got.values()) == sorted([FACT, OTHER])
    with bob.store() as store:
        here = scopes.repo_of(str(bob.clone))
        assert here == scopes.repo_of(str(alice.clone))  # the same repository, another folder
        mine = {m.text: m for m in memories.live(store)}
        assert mine[FACT].scope == here
        came = origins.of(store, mine[FACT].id)
        assert [(o.client, o.proposer) for o in came] == [("repository", "share")]
    assert bob.json("share")["read"].get("unchanged")  # read once: the same file reads nothing

    # Bob edits one item and deletes the other, by hand, and pushes: Alice's copies follow
    lines = _file(bob).splitlines()
    lines = [line.replace("pay_new_flow_v2", "pay_new_flow_v3") for line in lines if OTHER not in line]
    (bob.clone / sharing.FILE).write_text("\n".join(lines) + "\n")
    bob.push("v3; the staging db moved")
    alice.pull()
    assert alice.json("share")["read"]["review"]  # Bob's change waits for Alice's review
    assert alice.facts()[fact] == FACT
    read = alice.trust()
    assert read["updated"] == [fact] and read["deleted"] == [other]
    assert alice.facts()[fact] == FACT.replace("v2", "v3")
    assert other not in alice.facts()
    with alice.store() as store:
        assert [v.text for v in memory_history.history(store, fact)[1]] == [FACT]  # the old text kept
        assert other in {t.memory.id for t in memories.trash_list(store)}


def test_a_local_edit_is_offered_back_never_written_unasked(team: tuple[Teammate, Teammate]) -> None:
    alice, bob = team
    fact = alice.json("project", "add", FACT, "--here")["memory"]["id"]
    alice.json("share", "--all")
    alice.push("share")
    bob.pull()
    bob.trust()
    bob_id = next(iter(bob.facts()))
    bob.memevo("edit", bob_id, FACT + "（只在预发环境）")
    before = _file(bob)
    status = bob.json("share")
    assert [(c["id"], c["local"]) for c in status["pending"]] == [(bob_id, FACT + "（只在预发环境）")]
    assert _file(bob) == before  # shown, not written
    assert bob.facts()[bob_id] == FACT + "（只在预发环境）"  # the file did not change: the local edit stays
    dry = bob.json("share", "--pending", "--dry-run")
    assert "+- " + FACT + "（只在预发环境）" in dry["diff"] and _file(bob) == before
    bob.json("share", "--pending")
    assert f"- {FACT}（只在预发环境） <!-- memevo:{fact} -->" in _file(bob)  # the item keeps its id
    assert bob.json("share")["pending"] == []
    bob.push("the flag is preprod only")
    alice.pull()
    assert alice.trust()["updated"] == [fact]
    assert alice.facts()[fact] == FACT + "（只在预发环境）"
    assert "pay_new_flow_v2" in _file(alice)


def test_a_hand_added_item_gets_a_stable_id(team: tuple[Teammate, Teammate]) -> None:
    _, bob = team
    path = bob.clone / sharing.FILE
    path.parent.mkdir()
    path.write_text(sharefile.HEADER + "\n- " + OTHER + "\n")
    assert len(bob.trust()["created"]) == 1
    bob.json("share", "--pending")  # nothing pending: still writes the hand-added item's id
    assert f"<!-- memevo:{sharefile.derived_id(OTHER)} -->" in path.read_text()
    assert bob.json("share")["read"]["created"] == []  # the same fact, not a second one
    assert list(bob.facts().values()) == [OTHER]


def test_a_file_broken_by_hand_names_its_line_and_loses_nothing(team: tuple[Teammate, Teammate]) -> None:
    alice, _ = team
    alice.json("project", "add", FACT, "--here")
    alice.json("project", "add", OTHER, "--here")
    alice.json("share", "--all")
    good = _file(alice)
    lines = good.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("- "))
    broken = [*lines[:first], "a stray paragraph that is no item", *lines[first:]]
    duplicated = [*lines, lines[-1]]
    for bad, line in ((broken, first + 1), (duplicated, len(lines) + 1)):
        (alice.clone / sharing.FILE).write_text("\n".join(bad) + "\n")
        done = alice.memevo("share", ok=False)
        assert done.returncode != 0
        assert f"{sharing.FILE} line {line}" in done.stderr, done.stderr
        assert sorted(alice.facts().values()) == sorted([FACT, OTHER])  # nothing lost
        assert alice.memevo("share", "--all", ok=False).returncode != 0  # nor written over
        assert (alice.clone / sharing.FILE).read_text() == "\n".join(bad) + "\n"
    (alice.clone / sharing.FILE).write_text(good)
    assert alice.json("share")["problem"] is None


def test_parse_is_strict_about_ids_and_keeps_other_lines() -> None:
    parsed = sharefile.parse(
        "# facts\n\n<!-- a note\n   over lines -->\n- first fact <!-- memevo:a1 -->\n"
        "- second fact\n  more of it <!-- memevo:b2 -->\n"
    )
    assert [(i.share_id, i.text, i.first, i.last) for i in parsed.items] == [
        ("a1", "first fact", 4, 4),
        ("b2", "second fact\nmore of it", 5, 6),
    ]
    with pytest.raises(sharefile.FileProblem, match="line 1: a malformed"):
        sharefile.parse("- first fact <!-- memevo:bad id -->\n")
    with pytest.raises(sharefile.FileProblem, match=r"line 2: .*secret"):
        sharefile.parse("- first fact\n- " + SECRET + "\n")
    with pytest.raises(sharefile.FileProblem, match="line 1: memory text"):
        sharefile.parse("- ab\n")


def test_the_service_reads_the_file_at_session_start_only_when_it_changed(
    team: tuple[Teammate, Teammate], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memevo.core.ops.memory_ops import LocalAccess, LocalContext
    from memevo.core.service import sharework

    alice, bob = team
    alice.json("project", "add", FACT, "--here")
    alice.json("share", "--all")
    alice.push("share")
    bob.pull()
    bob.json("share", "--review")  # shown, not trusted: the service reads nothing of it
    monkeypatch.setenv("MEMEVO_HOME", str(bob.home))
    access = LocalAccess()
    try:
        ctx: Any = LocalContext(access, FakeClock())
        folder = str(bob.clone)
        thread = sharework.want(ctx, folder)
        assert thread is not None
        thread.join(10)
        assert memories.live(ctx.writer()) == []  # waiting for Bob's review
        optable.dispatch(ctx, "share_trust", {"cwd": folder})
        assert sharework.want(ctx, folder) is None  # unchanged: a stat, nothing more
        assert [m.text for m in memories.live(ctx.reader())] == [FACT]
        path = bob.clone / sharing.FILE
        path.write_text(path.read_text().replace("v2", "v4"))
        os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
        thread = sharework.want(ctx, folder)
        assert thread is not None
        thread.join(10)
        assert [m.text for m in memories.live(ctx.reader())] == [FACT]  # a change waits for review too
        optable.dispatch(ctx, "share_trust", {"cwd": folder})
        assert sharework.want(ctx, str(bob.clone / "nowhere")) is None
    finally:
        access.close()
    assert list(bob.facts().values()) == [FACT.replace("v2", "v4")]


def test_a_local_deletion_is_offered_back_as_a_removed_item(team: tuple[Teammate, Teammate]) -> None:
    alice, bob = team
    fact = alice.json("project", "add", FACT, "--here")["memory"]["id"]
    keep = alice.json("project", "add", OTHER, "--here")["memory"]["id"]
    alice.json("share", "--all")
    alice.push("share")
    bob.pull()
    bob.trust()
    gone = next(i for i, text in bob.facts().items() if text == FACT)
    bob.memevo("delete", gone)
    assert [(c["id"], c["local"]) for c in bob.json("share")["pending"]] == [(gone, None)]
    assert FACT in _file(bob)  # offered, not written
    bob.json("share", "--pending")
    assert FACT not in _file(bob) and f"memevo:{keep}" in _file(bob)
    bob.push("the flag is gone")
    alice.pull()
    assert alice.trust()["deleted"] == [fact]
    assert list(alice.facts()) == [keep]
