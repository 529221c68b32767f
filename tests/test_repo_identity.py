"""A repository is keyed by its normalised remote URL, not its folder, with real git: one project
cloned in two folders has one set of facts, old folder-keyed scopes move to the identity when the
store opens (and stay recalled), and the anchors of a repository known only by its remote are
checked in the folder it was last seen in."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from gitrepo import git
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.memories import scopes
from memevo.core.repos import identity as repos
from memevo.core.repos import staleness
from memevo.core.store.database import Store


@pytest.fixture
def clones(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A bare remote with one commit, cloned in two places."""
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q")
    (seed / "src").mkdir()
    (seed / "src" / "pay.py").write_text("pay_new_flow_v2 = True\n")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "start")
    remote = tmp_path / "shop.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))
    one, two = tmp_path / "work" / "shop", tmp_path / "elsewhere" / "shop-copy"
    for where in (one, two):
        where.parent.mkdir(parents=True, exist_ok=True)
        git(tmp_path, "clone", "-q", str(remote), str(where))
    return remote, one, two


@pytest.mark.parametrize(
    "url",
    [
        "git@github.com:Org/shop.git",
        "https://github.com/Org/shop",
        "https://github.com/Org/shop.git/",
        "ssh://git@github.com/Org/shop.git",
        "ssh://git@github.com:22/Org/shop",
        "https://someone:ghp_s3cretT0ken@GitHub.com/Org/shop",
        "git+ssh://git@github.com/Org/shop.git",
    ],
)
def test_every_form_of_one_remote_is_one_identity(url: str) -> None:
    assert repos.normalise(url) == "github.com/Org/shop"


def test_other_remotes_stay_apart_and_nothing_is_not_a_remote(tmp_path: Path) -> None:
    assert repos.normalise("git@gitlab.com:Org/shop.git") == "gitlab.com/Org/shop"
    assert repos.normalise("git@github.com:Org/shop-api.git") == "github.com/Org/shop-api"
    assert repos.normalise(str(tmp_path / "r.git")) == str(tmp_path / "r")
    assert repos.normalise("file://" + str(tmp_path / "r.git")) == str(tmp_path / "r")
    assert repos.normalise("") is None
    assert repos.normalise("https://github.com/") is None
    assert repos.normalise("git@host:a\nb") is None


def test_a_repository_cloned_twice_has_one_identity(clones: tuple[Path, Path, Path]) -> None:
    remote, one, two = clones
    assert scopes.repo_of(str(one / "src")) == scopes.repo_of(str(two)) == str(remote)[:-4]
    assert scopes.folder_of(str(one / "src")) == str(one.resolve())
    assert scopes.name(scopes.repo_of(str(one))) == "shop"


def test_credentials_never_reach_the_key_and_origin_wins(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "remote", "add", "backup", "git@backup.example.com:me/r.git")
    assert scopes.repo_of(str(repo)) == "backup.example.com/me/r"  # the only remote
    git(repo, "remote", "add", "origin", "https://me:ghp_s3cretT0ken@github.com/me/r.git")
    key = scopes.repo_of(str(repo))
    assert key == "github.com/me/r"
    assert "s3cret" not in str(key)


def test_a_folder_without_a_remote_is_its_own_key(tmp_path: Path) -> None:
    repo = tmp_path / "plain"
    repo.mkdir()
    git(repo, "init", "-q")
    assert scopes.repo_of(str(repo / "deeper")) == str(repo.resolve())
    bare = tmp_path / "nogit"
    bare.mkdir()
    assert scopes.repo_of(str(bare)) == str(bare.resolve())


def test_a_linked_worktree_is_the_same_repository(clones: tuple[Path, Path, Path], tmp_path: Path) -> None:
    _, one, _ = clones
    tree = tmp_path / "tree"
    git(one, "worktree", "add", "-q", str(tree))
    assert scopes.repo_of(str(tree)) == scopes.repo_of(str(one))


def test_old_folder_scopes_move_and_are_recalled_from_the_other_clone(
    clones: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    remote, one, two = clones
    path = tmp_path / "home" / "memory.duckdb"
    clock = FakeClock()
    with Store.open(path) as store:
        rule = memories.create(store, "rule", "在 shop 里提交前先跑 make check", clock, str(one))
        fact = memories.create(
            store, "project", "支付开关在 src/pay.py 里的 pay_new_flow_v2", clock, str(one)
        )
        assert rule.scope == str(remote)[:-4]  # a folder given by hand is keyed by its remote
        with store.transaction() as con:  # as a store written before identities: keyed by folder
            con.execute("UPDATE scopes SET repo = ?", [str(one)])
        assert memories.get(store, fact.id).scope == str(one)
    with Store.open(path) as store:  # the store opens: the folder's scopes move to its remote
        key = scopes.repo_of(str(two))
        assert memories.get(store, fact.id).scope == key
        assert [m.id for m in memories.session_rules(store, 10, key)] == [rule.id]
        assert memories.session_rules(store, 10, str(tmp_path)) == []
        assert scopes.visible(memories.get(store, fact.id).scope, key)
        # the anchors are checked in the folder it lives in here, though the key is no folder
        assert staleness.check_repo(store, str(key), clock).checked == 2  # their names are seen
        (one / "src" / "pay.py").unlink()
        git(one, "commit", "-q", "-am", "pay moved out")
        assert staleness.check_repo(store, str(key), clock).stale == [fact.id]
        time.sleep(0.01)
        with store.transaction() as con:  # the other clone is seen later: checked there
            repos.remember(con, str(key), str(two))
        assert staleness.check_repo(store, str(key), clock).fresh == [fact.id]


def test_a_scope_not_yet_movable_keeps_working(tmp_path: Path) -> None:
    """A folder scope whose folder has no remote (or is gone) stays as it was, still matched."""
    gone = tmp_path / "gone"
    path = tmp_path / "home" / "memory.duckdb"
    with Store.open(path) as store:
        rule = memories.create(store, "rule", "旧仓库的规则", FakeClock(), str(gone))
    with Store.open(path) as store:
        assert memories.get(store, rule.id).scope == str(gone)
        assert [m.id for m in memories.session_rules(store, 10, str(gone))] == [rule.id]


def test_a_scope_must_be_a_repository(tmp_path: Path) -> None:
    from memevo.core.errors import InvalidInput

    assert memories.check_scope("github.com/Org/shop") == "github.com/Org/shop"
    for bad in ("shop", "github.com/Org/my shop", "", "a\x00/b"):
        with pytest.raises(InvalidInput):
            memories.check_scope(bad)


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root"
)
def test_a_repository_another_user_owns_is_named_by_its_folder_not_its_claimed_remote(
    clones: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """A `.git` another local user planted (a shared /tmp folder) claims the user's project's
    remote: its config is no claim memevo takes, so it cannot reach that project's facts."""
    _, one, _ = clones
    planted = tmp_path / "shared" / "planted"
    planted.mkdir(parents=True)
    git(planted, "init", "-q")
    git(planted, "remote", "add", "origin", str(clones[0]))
    assert repos.identity(str(planted)) == repos.identity(str(one))  # owned by us: the claim counts
    for path in (planted, planted / ".git"):
        os.chown(path, 65534, 65534)
    assert repos.identity(str(planted)) == str(planted)
