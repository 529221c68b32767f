"""A repository's git config must not run code (the security issue, item 1): memevo's staleness
check runs git in the user's repositories, and a folder extracted from an archive can ship a
`.git` whose config names programs — a partial clone's promisor remote reached through a
payload (a lazy fetch of a missing blob during `git grep`), core.fsmonitor, a pager, an external
diff, textconv, filter and merge drivers, hooks, an SSH signature program. Each fixture
(tests/hostile_repos.py) is shown to run its payload under plain git first, so a hardened run
that leaves no marker means something: through core/repos/safegit.py, through anchors.Prober, through
a real `memevo serve`. A repository another user owns is not looked into at all."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import hostile_repos
import pytest
import servicerun
from deadlines import HANG_S
from gitrepo import git, make_repo
from hookrun import run_hook
from hostile_repos import MISSING, PRESENT, TRIGGERS, VIA, ran
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.memories import scopes
from memevo.core.repos import anchors, safegit, staleness
from memevo.core.repos import identity as repos
from memevo.core.repos.anchors import Anchor
from memevo.core.store.database import Store

# Every kind of name, so that each way the Prober looks (a stat, a file read, git) is asked.
EVERY_KIND = (
    Anchor("ident", MISSING),
    Anchor("ident", PRESENT),
    Anchor("file", "present.py"),
    Anchor("path", "present.py"),
    Anchor("host", "api.pay.internal"),
    Anchor("flag", "--dry-run"),
    Anchor("script", "build:prod"),
    Anchor("target", "deploy-staging"),
)


def prober(repo: Path) -> anchors.Prober:
    return anchors.Prober(str(repo), deadline=time.monotonic() + HANG_S)


# -- the fixtures are real ---------------------------------------------------------------------------
@pytest.mark.parametrize("via", VIA)
def test_plain_git_grep_runs_the_promisor_payload(tmp_path: Path, via: str) -> None:
    """Without hardening, grep in the partial clone fetches the missing blob lazily, through
    the transport the repository's config names: the payload runs."""
    repo, marker = hostile_repos.promisor_payload_repo(tmp_path, via)
    assert hostile_repos.plain_git(repo, "grep", "-q", "-F", "-e", MISSING) not in (0, 1)
    assert via in ran(marker) and "fsmonitor" in ran(marker)


@pytest.mark.parametrize("setting", sorted(TRIGGERS))
def test_plain_git_runs_each_program_the_config_names(tmp_path: Path, setting: str) -> None:
    repo, marker = hostile_repos.program_repo(tmp_path, setting)
    hostile_repos.plain_git(repo, *TRIGGERS[setting], tty=setting in hostile_repos.ON_A_TERMINAL)
    assert setting in ran(marker)


# -- hardened: nothing runs --------------------------------------------------------------------------
@pytest.mark.parametrize("via", VIA)
def test_no_lazy_fetch_and_no_fsmonitor_through_safegit_and_the_prober(tmp_path: Path, via: str) -> None:
    repo, marker = hostile_repos.promisor_payload_repo(tmp_path, via)
    grep = safegit.run(repo, ["grep", "-q", "-F", "-e", MISSING], timeout=HANG_S)
    assert grep.returncode not in (0, 1), "the blob cannot be had: an error, not an answer"
    listed = safegit.run(repo, ["ls-files", "--error-unmatch", "--", "present.py"], timeout=HANG_S)
    assert listed.returncode == 0, listed.stderr
    assert ran(marker) == []

    probe = prober(repo)
    assert probe.found(Anchor("ident", MISSING)) is None  # unknown, never "gone"
    assert probe.found(Anchor("ident", PRESENT)) in (True, None)
    assert probe.found(Anchor("file", "present.py")) is True
    assert probe.found(Anchor("file", "absent.py")) is False
    assert ran(marker) == []


@pytest.mark.parametrize("setting", sorted(TRIGGERS))
def test_no_program_the_config_names_runs_through_safegit(tmp_path: Path, setting: str) -> None:
    """The very command that ran the payload above, hardened: it does its work (a commit is
    made, a merge conflicts on the driver that fails) and nothing of the repository's runs.
    The pagers need a terminal, which safegit.run never gives: there its own argv and
    environment are run on one."""
    repo, marker = hostile_repos.program_repo(tmp_path, setting)
    args = list(TRIGGERS[setting])
    if setting in hostile_repos.ON_A_TERMINAL:
        code = hostile_repos.on_a_terminal(safegit.command(repo, args), safegit.environment())
    else:
        code = safegit.run(repo, args, timeout=HANG_S).returncode
    assert code == (1 if setting == "merge" else 0)
    assert ran(marker) == []

    for args in (["grep", "-q", "-F", "-e", PRESENT], ["ls-files"], ["status"], ["diff"], ["log", "-p"]):
        safegit.run(repo, args, timeout=HANG_S)
    probe = prober(repo)
    assert probe.found(Anchor("ident", PRESENT)) is True
    assert probe.found(Anchor("file", "a.txt")) is True
    assert ran(marker) == []


def test_a_caller_cannot_undo_the_hardening(tmp_path: Path) -> None:
    """An option before the subcommand (`-c core.fsmonitor=…`) would come after the overrides,
    and `--textconv` after the forced `--no-textconv`: each would win, so neither is taken."""
    for args in (
        ["-c", "core.fsmonitor=x", "grep", "y"],
        ["grep", "--textconv", "y"],
        ["diff", "--ext-diff"],
    ):
        with pytest.raises(ValueError):
            safegit.command(tmp_path, args)


def test_inherited_git_variables_have_no_effect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GIT_DIR, GIT_WORK_TREE, GIT_EXTERNAL_DIFF, GIT_PAGER, GIT_SSH_COMMAND and the command-line
    settings a parent git passes down (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT) in memevo's own
    environment neither redirect git to another repository nor run anything."""
    marker = tmp_path / "marker-env"
    repo = make_repo(tmp_path / "shop", {"shop.py": "only_in_shop = 1\n"})
    other = make_repo(tmp_path / "other", {"other.py": "only_in_other = 1\n"})
    (repo / "shop.py").write_text("only_in_shop = 2\n")  # a change for diff to show
    program = str(hostile_repos.payload(tmp_path, "env", marker))
    inherited = {
        "GIT_DIR": str(other / ".git"),
        "GIT_WORK_TREE": str(other),
        "GIT_EXTERNAL_DIFF": program,
        "GIT_PAGER": program,
        "GIT_SSH_COMMAND": program,
        "GIT_CONFIG_PARAMETERS": f"'core.fsmonitor'='{program}'",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.hooksPath",
        "GIT_CONFIG_VALUE_0": str(tmp_path),
    }
    # the control: plain git with these variables is redirected, and runs the program
    controlled = subprocess.run(
        ["git", "-C", str(repo), "ls-files"], env=os.environ | inherited, capture_output=True, text=True
    )
    assert controlled.stdout.split() == ["other.py"]
    hostile_repos.on_a_terminal(["git", "-C", str(repo), "diff"], dict(os.environ) | inherited)
    assert ran(marker)
    marker.unlink()

    for name, value in inherited.items():
        monkeypatch.setenv(name, value)
    listed = safegit.run(repo, ["ls-files"], timeout=HANG_S)
    assert listed.stdout.split() == [b"shop.py"]
    diff = hostile_repos.on_a_terminal(safegit.command(repo, ["diff"]), safegit.environment())
    assert diff == 0 and safegit.run(repo, ["diff"], timeout=HANG_S).stdout.startswith(
        b"diff --git a/shop.py"
    )
    probe = prober(repo)
    assert probe.found(Anchor("ident", "only_in_shop")) is True
    assert probe.found(Anchor("ident", "only_in_other")) is False
    assert probe.found(Anchor("file", "other.py")) is False
    assert ran(marker) == []


# -- another user's repository ---------------------------------------------------------------------
def test_a_repository_another_user_owns_is_not_looked_into(
    tmp_path: Path,
    store: Store,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    repo, marker = hostile_repos.foreign_owned_repo(tmp_path)
    # the control: git run there anyway (its own safe.directory check waived) runs the payload
    hostile_repos.plain_git(repo, "-c", "safe.directory=*", "ls-files")
    assert "fsmonitor" in ran(marker)
    marker.unlink()
    assert not safegit.owned_by_user(repo)

    fact = f"{MISSING} 和 {PRESENT} 在 present.py，npm run build:prod，make deploy-staging"
    first = memories.create(store, "project", fact, clock, str(repo))
    second = memories.create(
        store, "project", f"主机 api.pay.internal，参数 --dry-run，{PRESENT}", clock, str(repo)
    )
    assert first.scope == second.scope == str(repo)  # named by its folder, not its config's remote

    looked: list[Any] = []
    real_run = subprocess.run
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: looked.append(a) or real_run(*a, **k))
    monkeypatch.setattr(anchors.Prober, "_read", lambda self, name: looked.append(name))
    monkeypatch.setattr(anchors.Prober, "_exists", lambda self, relative: looked.append(relative))

    probe = prober(repo)
    assert [probe.found(anchor) for anchor in EVERY_KIND] == [None] * len(EVERY_KIND)

    caplog.set_level(logging.DEBUG, logger="memevo.staleness")
    report = staleness.check_repo(store, str(repo), clock)
    again = staleness.check_repo(store, str(repo), clock)
    assert report.not_owned == again.not_owned == [str(repo)] and report.checked == again.checked == 0
    assert looked == [] and ran(marker) == []
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING and r.name == "memevo.staleness"]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert str(repo) in warnings[0].getMessage() and "belongs to another user" in warnings[0].getMessage()
    assert staleness.state(store, [first.id])[first.id]["checked_ms"] is None


def test_owned_by_user_follows_a_git_file_and_symlinks(tmp_path: Path) -> None:
    """A linked worktree's `.git` is a file naming its git dir: that dir's owner counts too,
    as for git. A symlink to the folder is judged by what it points at."""
    if os.geteuid() != 0:
        pytest.skip("giving a folder to another uid (chown) needs root")
    main = make_repo(tmp_path / "main", {"a.py": "x = 1\n"})
    worktree = tmp_path / "linked"
    git(main, "worktree", "add", "-q", str(worktree))
    link = tmp_path / "link"
    link.symlink_to(worktree)
    assert safegit.owned_by_user(worktree) and safegit.owned_by_user(link)
    gitdir = main / ".git" / "worktrees" / "linked"
    os.chown(gitdir, hostile_repos.NOBODY, hostile_repos.NOBODY)
    assert not safegit.owned_by_user(worktree) and not safegit.owned_by_user(link)
    os.chown(gitdir, 0, 0)
    os.lchown(link, hostile_repos.NOBODY, hostile_repos.NOBODY)  # the link's own owner: no matter
    assert safegit.owned_by_user(link)
    os.chown(worktree, hostile_repos.NOBODY, hostile_repos.NOBODY)
    assert not safegit.owned_by_user(link)


# -- through the real service ------------------------------------------------------------------------
SERVICE_FACT = f"缺失的开关是 {MISSING}，另一个开关是 {PRESENT}，在 present.py 里"


@pytest.mark.usefixtures("provisioned_model")
def test_a_real_service_checks_the_payload_repository_without_running_it(
    tmp_path: Path, data_dir: Path
) -> None:
    """The chain of the issue: a project fact scoped to the extracted folder, a session start
    there (the service checks its anchors off the request) and `memevo maintenance --force`
    (every repository, at once): the checks complete and the payload never runs."""
    repo, marker = hostile_repos.promisor_payload_repo(tmp_path / "archive", "ssh")
    identity = scopes.repo_of(str(repo))
    assert identity == "example.invalid/shop"

    def populate(_: Path) -> None:
        with Store.open() as store:
            clock = FakeClock(datetime.now(UTC) - timedelta(hours=1))
            memories.create(store, "project", SERVICE_FACT, clock, str(repo))
            with store.transaction() as con:
                repos.remember(con, str(identity), str(repo))

    with servicerun.populated(data_dir, populate):
        payload = {"session_id": "s", "source": "startup", "cwd": str(repo)}
        started = run_hook("claude", "SessionStart", json.dumps(payload))
        assert started.returncode == 0, started.stderr
        done = servicerun.cli("maintenance", "--force", "--json")
        assert done.returncode == 0, done.stderr
        checked = json.loads(done.stdout)["anchors"]
        assert checked["repositories"] == 1 and checked["checked"] == 1, checked
        assert checked["timed_out"] == [] and checked["not_owned"] == []
    # stopped: the session start's check, asked for before, has finished too (the service
    # joins its checks' thread on the way out)
    assert ran(marker) == []
    with Store.open() as store:
        [(names_json, checked_ms)] = store.query("SELECT anchors, checked_ms FROM anchors")
    found = {n["value"]: n["found"] for n in json.loads(names_json)}
    assert checked_ms is not None and found["present.py"] is True and found[MISSING] is None


def test_maintenance_says_which_repositories_it_did_not_look_into(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Skipping another user's repository is said on the terminal, never silent; its name is
    printed safely (it is a folder name another user chose)."""
    import argparse

    from memevo.cli import model_commands

    report = {"day": "2026-12-07", "decayed": 0, "newly_deprecated": 0, "trash_purged": 0}
    anchors_report = {"checked": 0, "repositories": 1, "became_stale": [], "fresh_again": []}
    anchors_report |= {"timed_out": [], "not_owned": ["/tmp/shared/x\x1b[2J"]}
    answer = {"ran": True, "report": report, "anchors": anchors_report}
    monkeypatch.setattr(model_commands, "call", lambda op, **params: answer)
    assert model_commands.cmd_maintenance(argparse.Namespace(force=True, json=False)) == 0
    out = capsys.readouterr().out
    assert "not checked: /tmp/shared/x\\x1b[2J belongs to another user" in out, out
    assert "\x1b" not in out


def test_the_sync_clone_keeps_the_users_own_credential_helper_and_a_repository_never_gets_it(
    tmp_path: Path,
) -> None:
    """An HTTPS sync remote logs in with the credential helper the user set up (their global
    config): network=True keeps it. A repository's git (network=False) runs no helper at all."""
    marker = tmp_path / "helper-ran"
    home = Path(os.environ["HOME"])  # the test's own temp home (conftest.py)
    (home / ".gitconfig").write_text(
        f"[credential]\n\thelper = \"!f() {{ echo ran >> '{marker}'; }}; f\"\n", encoding="utf-8"
    )
    tree = tmp_path / "clone"
    tree.mkdir()
    hostile_repos.plain_git(tree, "init", "-q")
    ask = b"protocol=https\nhost=git.example.com\n\n"
    safegit.run(tree, ["credential", "fill"], timeout=10, network=False, input=ask)
    assert not marker.exists()
    safegit.run(tree, ["credential", "fill"], timeout=10, network=True, input=ask)
    assert marker.read_text().strip() == "ran"
