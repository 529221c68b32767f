"""`memevo sync` with a remote on this machine (a path, file://): the other end of each fetch and
push is a git that runs here, as the user, in the remote's folder and with its config — and a
local transport clears every `-c` the fetch or push was given. Whoever can write that folder (a
shared Dropbox or Syncthing folder, a USB stick) would run code through its hooks, its
alternates' command, its housekeeping or its work tree's filters. memevo gives that other end
its own hardened command (core/repos/safegit.py `remote_side_command`), and only for local remotes: an
ssh server runs its own, and a forge takes nothing but the bare program name.

Each hostile remote is checked twice: plain git runs its payload (the control), memevo's sync
runs none of it and still fetches and pushes."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from gitrepo import commit, git
from memevo.core.repos import safegit
from memevo.core.sync import clone as syncclone
from syncmachines import Machine

A_RULE = "回答问题时请一律使用中文"
B_FACT = "测试环境的数据库是 db.staging.internal"
# Every hook a push or a fetch could make the other end run, and the housekeeping after a push.
REMOTE_HOOKS = (
    "pre-receive",
    "update",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "proc-receive",
    "pre-auto-gc",
    "post-checkout",
)


# The hooks git feeds on their input; any other payload leaves its input alone (the alternates'
# command inherits receive-pack's own, which stays open for the whole push).
READS_INPUT = frozenset(["pre-receive", "post-receive", "reference-transaction", "proc-receive"])


def payload(folder: Path, name: str, marker: Path) -> Path:
    """An executable that notes its name in the marker and succeeds."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    drain = "cat >/dev/null\n" if name in READS_INPUT else ""
    script.write_text(f"#!/bin/sh\necho {name} ran in \"$PWD\" >> '{marker}'\n{drain}exit 0\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def ran(marker: Path) -> list[str]:
    return sorted({line.split()[0] for line in marker.read_text().splitlines()}) if marker.exists() else []


def hostile_local_remote(tmp_path: Path, marker: Path) -> Path:
    """A bare repository a stranger could write: every hook, in hooks/ and in a folder its
    core.hooksPath names; an alternate whose refs core.alternateRefsCommand lists; housekeeping
    after every push (a pack each push, gc when there are two), in the foreground."""
    remote = tmp_path / "shared" / "memories.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    for name in REMOTE_HOOKS:
        payload(remote / "hooks", name, marker)
        payload(tmp_path / "planted-hooks", name, marker)
    alternate = tmp_path / "shared" / "alternate.git"
    git(tmp_path, "init", "-q", "--bare", str(alternate))
    (remote / "objects" / "info").mkdir(parents=True, exist_ok=True)
    (remote / "objects" / "info" / "alternates").write_text(f"{alternate / 'objects'}\n")
    lister = payload(tmp_path / "planted", "alternateRefsCommand", marker)
    for key, value in (
        ("core.hooksPath", str(tmp_path / "planted-hooks")),
        ("core.alternateRefsCommand", str(lister)),
        ("receive.unpackLimit", "1"),
        ("gc.autoPackLimit", "1"),
        ("gc.autoDetach", "false"),
        ("receive.autogc", "true"),
        ("uploadpack.packObjectsHook", str(payload(tmp_path / "planted", "packObjectsHook", marker))),
    ):
        git(remote, "config", key, value)
    return remote


def plain_push(tmp_path: Path, remote: Path) -> None:
    """The control: a person's own `git push` to the remote."""
    scratch = tmp_path / "scratch"
    git(tmp_path, "clone", "-q", str(remote), str(scratch))
    (scratch / "note.txt").write_text("a change\n")
    commit(scratch, "by hand")
    git(scratch, "push", "-q", "origin", "HEAD:refs/heads/main")


def test_a_local_remotes_hooks_and_programs_never_run(tmp_path: Path, data_dir: Path) -> None:
    """(F4) One machine syncs with the remote's path, the other with its file:// URL: every
    fetch and push succeeds, both machines end with both memories, and nothing the remote
    names ran. A plain `git push` to the same remote runs its hooks, its alternates' command
    and its housekeeping."""
    marker = tmp_path / "PWNED"
    remote = hostile_local_remote(tmp_path, marker)
    laptop, desktop = Machine(tmp_path / "laptop" / "home"), Machine(tmp_path / "desktop" / "home")

    laptop.add("rule", A_RULE)
    assert laptop.json("sync", str(remote))["pushed"]
    desktop.add("project", B_FACT)
    took = desktop.json("sync", f"file://{remote}")
    assert took["pushed"] and took["imported"] == 1  # fetched the laptop's rule, pushed its fact
    again = laptop.json("sync")
    assert again["imported"] == 1 and again["pushed"]
    assert laptop.texts() == desktop.texts() == sorted([A_RULE, B_FACT])
    assert ran(marker) == []

    plain_push(tmp_path, remote)
    assert {
        "pre-receive",
        "update",
        "post-receive",
        "post-update",
        "reference-transaction",
        "pre-auto-gc",
        "alternateRefsCommand",
    } <= set(ran(marker))
    marker.unlink()
    laptop.add("rule", "提交前先跑 make check，再推送")
    assert laptop.json("sync")["pushed"] and ran(marker) == []  # the remote after its gc: the same


def test_a_remote_with_a_work_tree_is_not_checked_out_into(tmp_path: Path, data_dir: Path) -> None:
    """A non-bare remote whose config says updateInstead checks a push out into its work tree,
    running the smudge filter its config names. memevo's push is refused as git refuses a push
    to a checked-out branch (git's words say so), and nothing ran."""
    marker = tmp_path / "PWNED"
    remote = tmp_path / "shared" / "memories"
    remote.mkdir(parents=True)
    git(remote, "init", "-q", "-b", "main")
    commit(remote, "start")  # empty: nothing of the remote's tree is a conflict
    (remote / ".git" / "info" / "attributes").write_text("*.json filter=planted\n*.txt filter=planted\n")
    smudge = payload(tmp_path / "planted", "smudge", marker)
    git(remote, "config", "receive.denyCurrentBranch", "updateInstead")
    git(remote, "config", "filter.planted.smudge", str(smudge))

    laptop = Machine(tmp_path / "laptop" / "home")
    laptop.add("rule", A_RULE)
    done = laptop.memevo("sync", str(remote))
    assert done.returncode != 0 and "checked out" in done.stderr, done
    assert ran(marker) == [] and not (remote / "memories").exists()

    plain_push(tmp_path, remote)
    assert ran(marker) == ["smudge"] and (remote / "note.txt").exists()


# -- only for local remotes ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("/srv/memories.git", True),
        ("relative/memories.git", True),
        ("memories.git", True),
        ("./odd:name.git", True),  # a slash before the colon: a path
        ("file:///srv/memories.git", True),
        ("git@github.com:me/memories.git", False),
        ("backup:memories.git", False),  # host:path is ssh, even if such a folder exists here
        ("ssh://me@nas.local/srv/memories.git", False),
        ("https://github.com/me/memories.git", False),
        ("git://nas.local/memories.git", False),
    ],
)
def test_which_remotes_git_reaches_by_running_a_program_here(url: str, local: bool) -> None:
    assert syncclone.is_local(url) is local


def test_the_remote_side_command_is_hardened_and_shell_safe() -> None:
    receive = safegit.remote_side_command("receive-pack")
    assert receive.startswith("GIT_ALLOW_PROTOCOL= git ") and receive.endswith(" receive-pack")
    for setting in (
        "core.hooksPath=/dev/null",
        "core.fsmonitor=false",
        "core.alternateRefsCommand=true",
        "receive.autogc=false",
        "gc.auto=0",
        "maintenance.auto=false",
        "receive.denyCurrentBranch=refuse",
        "protocol.allow=never",
    ):
        assert f"-c {setting} " in receive
    assert "core.alternateRefsCommand= " not in receive  # overridden once, not twice
    assert safegit.remote_side_command("upload-pack").endswith(" upload-pack")
    with pytest.raises(ValueError):
        safegit.remote_side_command("sh -c id")


def test_a_forge_over_ssh_gets_the_bare_program_name(tmp_path: Path, data_dir: Path) -> None:
    """Over ssh the option would be the command the server runs: a forge takes only
    `git-upload-pack 'PATH'` and `git-receive-pack 'PATH'`. A stand-in ssh that behaves as a
    forge (and runs the command here) sees exactly those, and the sync works."""
    remote = tmp_path / "forge" / "memories.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    said = tmp_path / "forge-commands"
    forge = tmp_path / "forge-ssh"
    forge.write_text(
        "#!/bin/sh\n"
        "for command; do :; done\n"  # the last argument: the command for the server
        'case "$command" in\n'
        f'  "git-upload-pack \'"*|"git-receive-pack \'"*) echo "$command" >> \'{said}\'; exec sh -c "$command" ;;\n'
        '  *) echo "forge: only git-upload-pack and git-receive-pack" >&2; exit 1 ;;\n'
        "esac\n"
    )
    forge.chmod(0o700)
    laptop = Machine(tmp_path / "laptop" / "home")
    laptop.env["GIT_SSH_COMMAND"] = str(forge)
    laptop.add("rule", A_RULE)
    assert laptop.json("sync", f"ssh://forge.example{remote}")["pushed"]
    assert laptop.json("sync")["pushed"]
    commands = said.read_text().splitlines()
    assert {c.split()[0] for c in commands} == {"git-upload-pack", "git-receive-pack"}
    assert all(c.split()[1:] == [f"'{remote}'"] for c in commands), commands
    assert git(remote, "ls-tree", "-r", "--name-only", "main").count("memories/") == 1


def test_a_remote_the_users_config_rewrites_to_a_path_is_hardened_too(tmp_path: Path, data_dir: Path) -> None:
    """`nas:memories.git` looks like ssh, but the user's own `insteadOf` makes it a folder here:
    the URL git will use decides, so its hooks run nowhere either."""
    marker = tmp_path / "PWNED"
    remote = hostile_local_remote(tmp_path, marker)
    git(tmp_path, "config", "--global", f"url.{remote.parent}/.insteadOf", "nas:")
    laptop = Machine(tmp_path / "laptop" / "home")
    laptop.add("rule", A_RULE)
    assert laptop.json("sync", "nas:memories.git")["pushed"]
    assert git(remote, "ls-tree", "-r", "--name-only", "main").count("memories/") == 1
    assert ran(marker) == []
