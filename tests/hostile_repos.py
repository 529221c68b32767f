"""Hostile repositories for the tests: folders a stranger wrote (an extracted archive, a clone
of someone's project) whose `.git` names programs for git to run. Each builder makes files
under the given tmp folder and returns the repository and the marker file its payloads append
to; a payload that ran leaves a line "<tag> <args>" there, so a test says which one ran.

`plain_git` runs git as a naive caller would (no hardening): the tests use it to prove each
fixture is real, i.e. that its payload does run, so a hardened run that leaves no marker means
something.
"""

from __future__ import annotations

import os
import pty
import select
import shlex
import subprocess
from pathlib import Path

import pytest
from deadlines import HANG_S
from gitrepo import git

PRESENT = "present_name"  # in present.py, checked out: grep finds it on disk
MISSING = "missing_name"  # in missing.py, whose blob is not in the object store
NOBODY = 65534

# Which git command runs each program_repo's payload (plain git, in that repository).
TRIGGERS: dict[str, tuple[str, ...]] = {
    "fsmonitor": ("ls-files",),
    "core.pager": ("log", "-1"),  # on a terminal only (plain_git(tty=True))
    "pager.grep": ("grep", "-e", PRESENT),  # on a terminal only
    "diff.external": ("diff",),
    "textconv": ("log", "-p", "-1"),
    "filter": ("status", "--short"),
    "merge": ("merge", "-q", "other"),
    "hooks": ("commit", "-q", "--allow-empty", "-m", "x"),
    "core.hooksPath": ("commit", "-q", "--allow-empty", "-m", "x"),
    "gpg.ssh.program": ("log", "-1"),
}
ON_A_TERMINAL = frozenset(["core.pager", "pager.grep"])
# How a partial clone's lazy fetch reaches a promisor remote that runs the payload.
VIA = ("ssh", "uploadpack", "ext")
HOOKS = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "reference-transaction")


def payload(tmp: Path, tag: str, marker: Path) -> Path:
    """A script that appends "<tag> <its args>" to marker and fails (a transport then gives up
    at once, a pager or driver has done its harm by then)."""
    script = tmp / f"payload-{tag.replace('/', '-')}.sh"
    script.write_text(f'#!/bin/sh\necho {shlex.quote(tag)} "$@" >> {shlex.quote(str(marker))}\nexit 1\n')
    script.chmod(0o755)
    return script


def plain_git(repo: Path, *args: str, tty: bool = False, env: dict[str, str] | None = None) -> int:
    """`git -C repo ARGS` with no hardening, in the caller's environment minus its GIT_*
    variables (a test's own setting must not mask what the repository does); with tty, on a
    pseudo-terminal as a person's shell would give it (git pages only there)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | (env or {})
    argv = ["git", "-C", str(repo), *args]
    if not tty:
        done = subprocess.run(argv, env=full, capture_output=True, timeout=HANG_S, check=False)
        return done.returncode
    return on_a_terminal(argv, full)


def on_a_terminal(argv: list[str], env: dict[str, str]) -> int:
    """Run argv with its stdin, stdout and stderr on a pseudo-terminal; its exit code."""
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen(
            argv, stdin=follower, stdout=follower, stderr=follower, env=env | {"TERM": "xterm"}
        )
    finally:
        os.close(follower)
    try:
        while True:  # drained, or a pager waiting for room would never end
            ready, _, _ = select.select([leader], [], [], HANG_S)
            if not ready:
                break
            try:
                if not os.read(leader, 65536):
                    break
            except OSError:  # EIO: every writer has closed the terminal
                break
        return proc.wait(timeout=HANG_S)
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def ran(marker: Path) -> list[str]:
    """The tags of the payloads that ran (one per line written)."""
    return [line.split(" ", 1)[0] for line in marker.read_text().splitlines()] if marker.exists() else []


# -- a partial clone whose lazy fetch runs a payload ---------------------------------------------
def promisor_payload_repo(tmp: Path, via: str = "ssh") -> tuple[Path, Path]:
    """A real partial clone (`--filter=blob:none`) whose tracked missing.py has no blob in the
    object store, marked assume-unchanged (as the archive's index may say) so that `git grep`
    reads the blob instead of the absent file and fetches it lazily from the promisor remote,
    which is reached through `via`:

    * ssh: `ssh://example.invalid/...` with `core.sshCommand` = the payload;
    * uploadpack: a local path whose `remote.origin.uploadpack` is the payload;
    * ext: an `ext::` URL running the payload (`protocol.ext.allow=always` in the repository).

    The repository's config also allows each transport outright (`protocol.<name>.allow`, which
    beats a general `protocol.allow`) and names a `core.fsmonitor` payload (any read of the
    index runs it: grep and ls-files too)."""
    assert via in VIA, via
    tmp.mkdir(parents=True, exist_ok=True)
    marker = tmp / f"marker-promisor-{via}"
    source = tmp / f"source-{via}"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    (source / "present.py").write_text(f"{PRESENT} = 1\n")
    (source / "missing.py").write_text(f"{MISSING} = 2\n")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "start")
    git(source, "config", "uploadpack.allowFilter", "true")
    repo = tmp / f"promisor-{via}"
    git(tmp, "clone", "-q", "--filter=blob:none", "--no-checkout", source.resolve().as_uri(), str(repo))
    git(repo, "read-tree", "HEAD")
    git(repo, "checkout", "--", "present.py")  # fetches this one blob, while the remote is real
    git(repo, "update-index", "--assume-unchanged", "missing.py")
    missing = git(repo, "rev-parse", "HEAD:missing.py").strip()
    present = git(repo, "rev-list", "--objects", "--missing=print", "HEAD")
    assert f"?{missing}" in present.split(), "the blob of missing.py must be absent"

    script = payload(tmp, via, marker)
    if via == "ssh":
        git(repo, "config", "remote.origin.url", "ssh://example.invalid/shop.git")
        git(repo, "config", "core.sshCommand", str(script))
    elif via == "uploadpack":
        git(repo, "config", "remote.origin.url", str(source))
        git(repo, "config", "remote.origin.uploadpack", str(script))
    else:
        git(repo, "config", "remote.origin.url", f"ext::{script} %S")
    for transport in ("ssh", "file", "ext"):
        git(repo, "config", f"protocol.{transport}.allow", "always")
    git(repo, "config", "core.fsmonitor", str(payload(tmp, "fsmonitor", marker)))
    return repo, marker


# -- a repository whose config names one program ----------------------------------------------------
def program_repo(tmp: Path, setting: str) -> tuple[Path, Path]:
    """A repository whose config names a payload through `setting` (a key of TRIGGERS); the
    plain git command TRIGGERS gives runs it. Identity is the repository's own (a stranger's
    config sets it), so a commit needs nothing from the caller."""
    assert setting in TRIGGERS, setting
    tmp.mkdir(parents=True, exist_ok=True)
    marker = tmp / f"marker-{setting}"
    repo = tmp / f"repo-{setting}"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "stranger")
    git(repo, "config", "user.email", "stranger@example.com")
    (repo / "a.txt").write_text(f"{PRESENT}\nbase\n")
    if setting in ("textconv", "filter", "merge"):
        (repo / ".gitattributes").write_text("*.txt diff=evil filter=evil merge=evil\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start")
    script = str(payload(tmp, setting, marker))

    if setting == "fsmonitor":
        git(repo, "config", "core.fsmonitor", script)
    elif setting == "core.pager":
        git(repo, "config", "core.pager", script)
    elif setting == "pager.grep":
        git(repo, "config", "pager.grep", script)
    elif setting == "diff.external":
        git(repo, "config", "diff.external", script)
        (repo / "a.txt").write_text(f"{PRESENT}\nchanged\n")
    elif setting == "textconv":
        git(repo, "config", "diff.evil.textconv", script)
    elif setting == "filter":
        for key in ("clean", "smudge"):
            git(repo, "config", f"filter.evil.{key}", script)
        git(repo, "config", "filter.evil.required", "true")
        os.utime(repo / "a.txt", (1, 1))  # the stat differs from the index: status reads it again
    elif setting == "merge":
        git(repo, "checkout", "-q", "-b", "other")
        (repo / "a.txt").write_text(f"{PRESENT}\nother\n")
        git(repo, "commit", "-q", "-am", "other")
        git(repo, "checkout", "-q", "main")
        (repo / "a.txt").write_text(f"{PRESENT}\nmain\n")
        git(repo, "commit", "-q", "-am", "main")
        git(repo, "config", "merge.evil.driver", script)
    elif setting in ("hooks", "core.hooksPath"):
        hooks = repo / ".git" / "hooks" if setting == "hooks" else tmp / "stranger-hooks"
        hooks.mkdir(exist_ok=True)
        for hook in HOOKS:
            (hooks / hook).write_text(f'#!/bin/sh\n{shlex.quote(script)} {hook} "$@"\n')
            (hooks / hook).chmod(0o755)
        if setting == "core.hooksPath":
            git(repo, "config", "core.hooksPath", str(hooks))
    elif setting == "gpg.ssh.program":
        _ssh_signed_head(repo)
        (repo / ".git" / "allowed_signers").write_text("")
        git(repo, "config", "log.showSignature", "true")
        git(repo, "config", "gpg.ssh.allowedSignersFile", str(repo / ".git" / "allowed_signers"))
        git(repo, "config", "gpg.ssh.program", script)
    return repo, marker


def _ssh_signed_head(repo: Path) -> None:
    """HEAD becomes a commit carrying an SSH signature (its bytes need not verify: git runs the
    program to find out)."""
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    body = (
        f"tree {tree}\nauthor s <s@example.com> 1 +0000\ncommitter s <s@example.com> 1 +0000\n"
        "gpgsig -----BEGIN SSH SIGNATURE-----\n U1NIU0lH\n -----END SSH SIGNATURE-----\n\nsigned\n"
    )
    done = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"],
        input=body.encode(),
        capture_output=True,
        check=True,
        timeout=HANG_S,
    )
    git(repo, "update-ref", "refs/heads/main", done.stdout.decode().strip())


# -- a repository another user owns -----------------------------------------------------------------
def foreign_owned_repo(tmp: Path) -> tuple[Path, Path]:
    """A promisor payload repository (fsmonitor and an ssh lazy fetch) with a package.json and a
    Makefile, all of it chowned to uid NOBODY: as planted in a shared folder by another local
    user. Skips the test when not run as root (only root can give files away)."""
    if os.geteuid() != 0:
        pytest.skip("giving a repository to another uid (chown) needs root")
    repo, marker = promisor_payload_repo(tmp, "ssh")
    (repo / "package.json").write_text('{"scripts": {"build:prod": "vite build"}}')
    (repo / "Makefile").write_text("deploy-staging:\n\ttrue\n")
    for folder, dirs, files in os.walk(repo):
        os.lchown(folder, NOBODY, NOBODY)
        for name in dirs + files:
            os.lchown(os.path.join(folder, name), NOBODY, NOBODY)
    return repo, marker
