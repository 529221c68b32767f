"""A person's memories on every machine, with real git: a bare remote in a temporary folder and two
data dirs playing two machines. They converge with nothing lost or duplicated: edits, pins, scopes,
trash and history both ways; concurrent edits (the later one wins, the other kept in history); a
delete against an edit (the edit survives); syncs killed with SIGKILL at many points; a broken
record in the remote (a conflict shown and kept); a secret never leaves; a sync folder set up again
loses nothing; a remote URL git could run a program through is refused; what changes whether or
where a memory reaches the assistant is listed for review. A hostile remote's tree:
tests/test_sync_hostile.py; a remote on this machine whose own hooks and config name programs:
tests/test_sync_remote_side.py."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import syncmachines
from gitrepo import git
from memevo.core.sync import clone as syncclone
from memevo.core.sync import remote as syncgit

A_RULE = "回答问题时请一律使用中文"
A_FACT = "支付页新流程的灰度开关是 pay_new_flow_v2"
B_RULE = "提交前先跑 make check，再推送"
B_FACT = "测试环境的数据库是 db.staging.internal"
SECRET = "部署用的 token 是 ghp_Zq8xN3vR5tY7uW1pK4mL6sD9fG2hJ0cB3nV5"


class Machine(syncmachines.Machine):
    def sync(self, first: bool = False) -> dict[str, Any]:
        return self.json("sync", str(self.remote)) if first else self.json("sync")


@pytest.fixture
def machines(tmp_path: Path, data_dir: Path) -> tuple[Machine, Machine]:
    remote = tmp_path / "memories.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True, timeout=30)
    return Machine(tmp_path / "laptop" / "home", remote), Machine(tmp_path / "desktop" / "home", remote)


def _converged(a: Machine, b: Machine) -> dict[str, dict[str, Any]]:
    state = a.state()
    assert state == b.state()
    texts = [m["text"] for m in state.values()]
    assert len(texts) == len(set(texts)), "a memory was duplicated"
    return state


def test_two_machines_converge_both_ways(machines: tuple[Machine, Machine], tmp_path: Path) -> None:
    laptop, desktop = machines
    shop = tmp_path / "desktop" / "shop"
    shop.mkdir(parents=True)
    git(shop, "init", "-q")
    git(shop, "remote", "add", "origin", "git@github.com:org/shop.git")
    rule = laptop.add("rule", A_RULE)
    fact = laptop.add("project", A_FACT)
    laptop.json("pin", rule)
    first = laptop.sync(first=True)
    assert first["exported"] == 2 and first["pushed"]
    assert desktop.sync(first=True)["imported"] == 2
    _converged(laptop, desktop)

    other = desktop.add("rule", B_RULE)
    desktop.json("edit", fact, A_FACT.replace("v2", "v3"))
    desktop.json("delete", rule)
    assert desktop.memevo("scope", other, "here", cwd=shop).returncode == 0
    desktop.sync()
    laptop.sync()
    state = _converged(laptop, desktop)
    assert state[fact]["text"] == A_FACT.replace("v2", "v3")
    assert [h[3] for h in state[fact]["history"]] == [A_FACT]
    assert state[rule]["trashed"] and state[rule]["pinned_ms"]
    assert state[other]["scope"] == "github.com/org/shop"
    assert laptop.sync()["exported"] == 0  # nothing changed: nothing written, nothing merged


def test_concurrent_edits_the_later_wins_and_the_other_is_kept(machines: tuple[Machine, Machine]) -> None:
    laptop, desktop = machines
    fact = laptop.add("project", A_FACT)
    laptop.sync(first=True)
    desktop.sync(first=True)
    desktop.json("edit", fact, A_FACT + "（桌面机改的）")
    laptop.json("edit", fact, A_FACT + "（笔记本改的）")
    desktop.sync()  # the desktop's change is exported first...
    time.sleep(0.01)
    result = laptop.sync()  # ...the laptop's later: it wins, the desktop's text stays in history
    assert result["merged"] == [fact]
    desktop.sync()
    state = _converged(laptop, desktop)
    assert state[fact]["text"] == A_FACT + "（笔记本改的）"
    kept = [h[3] for h in state[fact]["history"]]
    assert A_FACT in kept and A_FACT + "（桌面机改的）" in kept


def test_a_delete_against_an_edit_the_edit_survives(machines: tuple[Machine, Machine]) -> None:
    laptop, desktop = machines
    fact = laptop.add("project", A_FACT)
    laptop.sync(first=True)
    desktop.sync(first=True)
    laptop.json("edit", fact, A_FACT + "，测试环境同名")
    time.sleep(0.01)
    desktop.json("delete", fact)  # deleted later than the edit: still the edit survives
    laptop.sync()
    desktop.sync()
    laptop.sync()
    state = _converged(laptop, desktop)
    assert not state[fact]["trashed"] and state[fact]["text"] == A_FACT + "，测试环境同名"


def test_a_sync_killed_anywhere_loses_and_duplicates_nothing(machines: tuple[Machine, Machine]) -> None:
    laptop, desktop = machines
    base = [laptop.add("rule", f"第 {i} 条规则：提交前先跑完整的测试") for i in range(12)]
    laptop.sync(first=True)
    desktop.sync(first=True)
    for i, memory_id in enumerate(base[:6]):
        laptop.json("edit", memory_id, f"第 {i} 条规则：笔记本上改过")
    for i, memory_id in enumerate(base[6:], 6):
        desktop.json("edit", memory_id, f"第 {i} 条规则：桌面机上改过")
    mine = [laptop.add("project", f"笔记本上新记的事实 {i} 号") for i in range(5)]
    desktop.sync()
    kills = 0
    for delay in [0.05 * n for n in range(1, 60)]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "memevo.cli", "sync"],
            env=os.environ | laptop.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        time.sleep(delay)
        if proc.poll() is not None:
            break
        os.killpg(proc.pid, signal.SIGKILL)  # git's children too
        proc.wait(10)
        kills += 1
    assert kills >= 5
    # killpg also kills the remote's own git (a path remote's receive-pack runs here): a lock it
    # left is the server's, which a real server's client cannot kill; memevo leaves the user's
    # remote alone, so the test clears what only this setup can leave.
    for stale in syncclone.leftover_locks(laptop.remote):  # a bare repository: the same layout
        stale.unlink()
    laptop.sync()
    desktop.sync()
    laptop.sync()
    state = _converged(laptop, desktop)
    assert len(state) == 17
    for i, memory_id in enumerate(base):
        where = "笔记本" if i < 6 else "桌面机"
        assert state[memory_id]["text"] == f"第 {i} 条规则：{where}上改过"
    assert {state[i]["text"] for i in mine} == {f"笔记本上新记的事实 {i} 号" for i in range(5)}


def test_the_locks_a_killed_git_left_do_not_stop_the_next_sync(machines: tuple[Machine, Machine]) -> None:
    """A git killed mid-fetch or mid-commit leaves its lock files (CI saw a fetch killed in the
    test above leave refs/remotes/origin/main.lock); git never removes them, so every later
    sync failed on them until removed by hand."""
    laptop, desktop = machines
    laptop.add("rule", A_RULE)
    laptop.sync(first=True)
    desktop.sync(first=True)
    fact = desktop.add("project", A_FACT)
    desktop.sync()
    dot_git = laptop.home / "sync" / ".git"
    left = [
        dot_git / "index.lock",
        dot_git / "refs" / "heads" / "main.lock",
        dot_git / "refs" / "remotes" / "origin" / "main.lock",
    ]
    for lock in left:
        assert lock.parent.is_dir(), lock
        lock.write_text("")
    mine = laptop.add("project", "笔记本上新记的事实")
    result = laptop.sync()
    assert result["pushed"]
    assert not [lock for lock in left if lock.exists()]
    desktop.sync()
    state = _converged(laptop, desktop)
    assert fact in state and mine in state


def test_a_broken_record_is_a_conflict_shown_and_kept(
    machines: tuple[Machine, Machine], tmp_path: Path
) -> None:
    laptop, desktop = machines
    fact = laptop.add("project", A_FACT)
    laptop.sync(first=True)
    hand = tmp_path / "by-hand"
    git(tmp_path, "clone", "-q", str(laptop.remote), str(hand))
    good = git(hand, "rev-parse", "HEAD").strip()
    (hand / "memories" / f"{fact}.json").write_text('{"schema": 1, "memory": ')
    git(hand, "commit", "-q", "-am", "broken by hand")
    git(hand, "push", "-q", "origin", "HEAD:main")
    done = desktop.memevo("sync", str(laptop.remote), ok=False)
    assert done.returncode == 1 and f"memories/{fact}.json" in done.stdout and "conflict" in done.stdout
    assert fact not in desktop.state()  # nothing taken from the broken file
    assert laptop.memevo("sync", ok=False).returncode == 1
    assert laptop.state()[fact]["text"] == A_FACT  # the memory here is left as it was
    os.environ["MEMEVO_HOME"], saved = str(laptop.home), os.environ["MEMEVO_HOME"]
    try:
        assert [c["id"] for c in syncgit.conflicts()] == [fact]  # kept in a list
    finally:
        os.environ["MEMEVO_HOME"] = saved
    git(hand, "pull", "-q", "--no-rebase", "origin", "main")  # the machines' syncs since
    # repaired by hand: the next sync takes it again
    (hand / "memories" / f"{fact}.json").write_text(git(hand, "show", f"{good}:memories/{fact}.json"))
    git(hand, "commit", "-q", "-am", "repaired")
    git(hand, "push", "-q", "origin", "HEAD:main")
    assert desktop.sync()["conflicts"] == []
    assert laptop.sync()["conflicts"] == []
    _converged(laptop, desktop)


def test_only_memories_leave_and_never_a_secret(machines: tuple[Machine, Machine], tmp_path: Path) -> None:
    laptop, _ = machines
    laptop.add("rule", A_RULE)
    secret = laptop.add("project", SECRET)
    (laptop.home / "config.json").write_text('{"sideApiBase": "https://api.example.com/v1"}')
    result = laptop.sync(first=True)
    assert result["held_back"] == [secret]
    look = tmp_path / "look"
    git(tmp_path, "clone", "-q", str(laptop.remote), str(look))
    files = sorted(str(p.relative_to(look)) for p in look.rglob("*") if p.is_file() and ".git" not in p.parts)
    assert files == ["README.md", *(f"memories/{i}.json" for i in laptop.state() if i != secret)]
    history = git(look, "log", "-p", "--all")
    assert "ghp_" not in history and "sideApiBase" not in history and A_RULE in history


def test_a_first_sync_killed_after_git_init_is_finished_by_the_next(
    machines: tuple[Machine, Machine],
) -> None:
    laptop, desktop = machines
    made = laptop.add("rule", A_RULE)
    tree = laptop.home / "sync"
    tree.mkdir()
    git(tree, "init", "-q", "-b", "main")  # where a kill right after `git init` leaves it
    assert laptop.sync(first=True)["exported"] == 1
    desktop.sync(first=True)
    assert made in _converged(laptop, desktop)


def test_a_sync_folder_set_up_again_loses_nothing(machines: tuple[Machine, Machine]) -> None:
    """The sync folder moved away (as a conflict's advice says) and `memevo sync REMOTE` again:
    the bases of the old clone go with it, so no memory looks deleted in the new, empty tree
    (the old bases had every synced memory purged here and taken in again from the remote);
    both sides are new and merge."""
    laptop, desktop = machines
    rule = laptop.add("rule", A_RULE)
    fact = laptop.add("project", A_FACT)
    laptop.sync(first=True)
    desktop.sync(first=True)
    shutil.rmtree(laptop.home / "sync")
    mine = laptop.add("project", B_FACT)
    again = laptop.sync(first=True)
    assert again["imported"] == 0 and again["review"] == []  # nothing looked deleted, or came back
    desktop.sync()
    state = _converged(laptop, desktop)
    assert {rule, fact, mine} <= set(state) and not any(m["trashed"] for m in state.values())


@pytest.mark.parametrize(
    "url",
    [
        "ext::sh -c touch% {marker}",
        "fd::0",
        "--upload-pack=touch {marker}",
        " --upload-pack=touch {marker}",
        "ssh://-oProxyCommand=touch% {marker}/x",
        "ssh://-oProxyCommand=x@host/x",
        "user@-oProxyCommand=reboot:x",  # scp-like: a colon before any slash
        "{remote}\n[core]\n\tsshCommand = touch {marker}",
        "gopher://example.com/x",
    ],
)
def test_a_remote_git_could_run_something_through_is_refused(
    url: str, machines: tuple[Machine, Machine], tmp_path: Path
) -> None:
    laptop, _ = machines
    marker = tmp_path / "ran"
    laptop.add("rule", A_RULE)
    done = laptop.memevo("sync", url.format(marker=marker, remote=laptop.remote), ok=False)
    assert done.returncode == 1 and "REMOTE must be a git URL" in done.stderr
    assert not marker.exists() and not (laptop.home / "sync" / ".git").exists()


def test_ordinary_remotes_are_taken() -> None:
    for url in [
        "git@github.com:org/shop.git",
        "https://github.com/org/shop",
        "ssh://git@github.com:22/org/shop.git",
        "ssh://[::1]/srv/memories.git",
        "file:///srv/memories.git",
        "/srv/memories.git",
        "../memories.git",
    ]:
        syncclone.check_remote(url)


def test_a_push_git_refuses_for_another_reason_says_what_git_said(
    machines: tuple[Machine, Machine], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a race with another machine (which is tried again): the sync stops with git's own
    words, escaped, and nothing is lost (the next sync pushes)."""
    laptop, _ = machines
    laptop.add("rule", A_RULE)
    real = syncgit.run

    def refusing(tree: Path, args: Any, *rest: Any, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        if args[0] == "push":
            return subprocess.CompletedProcess(args, 128, b"", b"fatal: could not read from remote\x1b[2J\n")
        return real(tree, args, *rest, **kwargs)

    monkeypatch.setattr(syncgit, "run", refusing)
    done = laptop.memevo("sync", str(laptop.remote), ok=False)
    assert done.returncode != 0
    assert "git push failed: fatal: could not read from remote\\x1b[2J" in done.stderr, done.stderr
    monkeypatch.setattr(syncgit, "run", real)
    assert laptop.sync()["pushed"]


def test_a_fact_made_a_rule_a_new_scope_and_a_revived_memory_are_listed_for_review(
    machines: tuple[Machine, Machine], tmp_path: Path
) -> None:
    """What changes where or whether a memory reaches the assistant is applied and listed under
    review, with the command that undoes it: a project fact the remote made a rule, a memory
    the remote scoped to another repository, one this machine deleted that the remote brought
    back (restored there, or edited there while it was deleted here). An ordinary edit is not
    listed."""
    laptop, desktop = machines
    shop = tmp_path / "desktop" / "shop"
    shop.mkdir(parents=True)
    git(shop, "init", "-q")
    git(shop, "remote", "add", "origin", "git@github.com:org/shop.git")
    fact = laptop.add("project", A_FACT)
    scoped = laptop.add("project", B_FACT)
    restored = laptop.add("rule", B_RULE)
    raced = laptop.add("rule", "代码评审意见要逐条回复")
    edited = laptop.add("rule", A_RULE)
    laptop.sync(first=True)
    desktop.sync(first=True)
    laptop.json("delete", restored)
    laptop.sync()
    desktop.sync()

    desktop.json("move", fact, "rule")
    assert desktop.memevo("scope", scoped, "here", cwd=shop).returncode == 0
    desktop.json("restore", restored)
    desktop.json("edit", raced, "代码评审意见要逐条回复，改完再请求复审")
    desktop.json("edit", edited, A_RULE + "，代码注释也一样")
    laptop.json("delete", raced)  # deleted here while the desktop edited it: the edit survives
    desktop.sync()
    review = {item["id"]: item["what"] for item in laptop.sync()["review"]}
    back = "brought back from the trash on the remote (`memevo delete ID` deletes it again)"
    assert review == {
        fact: "moved from project to rule on the remote (`memevo move ID project`)",
        scoped: "scope changed on the remote: everywhere → github.com/org/shop",
        restored: back,
        raced: back,
    }
    state = laptop.state()
    assert state[fact]["category"] == "rule" and state[scoped]["scope"] == "github.com/org/shop"
    assert not state[restored]["trashed"] and not state[raced]["trashed"]
    desktop.sync()
    _converged(laptop, desktop)
    # a scope from the remote is named escaped and cut short
    named = syncgit._scope("github.com/\x1b[2J" + "x" * 200)
    assert "\x1b" not in named and "\\x1b" in named and len(named) == syncgit.SCOPE_SHOWN
