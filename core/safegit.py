"""Git run as if the repository were hostile: the one way memevo runs git.

A repository is text a stranger wrote. Its `.git/config` can name programs for git to run
(`core.fsmonitor`, `core.sshCommand`, `core.pager`, `diff.external`, a textconv driver, hooks,
`core.hooksPath`), and a partial clone's promisor remote makes a plain `git grep` fetch
missing blobs lazily — through whatever transport and command that config names. Every git
call memevo makes in a user's repository (staleness, sharing) goes through `run` with
`network=False`: no transport at all, every program-naming setting overridden on the command
line (which wins over the repository's config), hooks pointed at an empty folder, no pager,
no external diff or textconv, no lazy fetch, no replace objects, and nothing inherited from
the caller's GIT_* environment. memevo's own sync clone (`network=True`) may reach the one
remote the user named, with the same overrides and fsck on every object it receives.

Repositories not owned by the user are skipped before git runs, as git's own
`safe.directory` rule would: another local user can plant a `.git` in a shared folder.

A test (tests/test_safegit.py) grows whenever git adds a way for a repository to run code.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

# Settings that name a program or reach the network, each overridden with a harmless value.
# `-c` on the command line is read after the repository's config, so it wins; child gits
# (a lazy fetch, a submodule) inherit it through GIT_CONFIG_PARAMETERS.
HARDENING: tuple[str, ...] = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",  # no hook can run (a file, not a folder: nothing is found in it)
    "core.pager=cat",
    "core.editor=false",
    "core.askPass=",
    "core.sshCommand=false",
    "core.gitProxy=",
    "core.alternateRefsCommand=",
    "core.untrackedCache=false",
    "core.quotepath=off",
    "credential.helper=",
    "diff.external=",
    "gpg.program=false",
    "sequence.editor=false",
    "pager.grep=false",
    "pager.ls-files=false",
    "grep.fallbackToNoIndex=false",
    "submodule.recurse=false",
    "fetch.recurseSubmodules=false",
    "safe.bareRepository=explicit",
)
OFFLINE: tuple[str, ...] = ("protocol.allow=never",)  # no transport, so no lazy fetch either
# memevo's sync clone: the user's remote over the ordinary transports, every object checked.
ONLINE: tuple[str, ...] = (
    "protocol.allow=never",
    "protocol.file.allow=always",
    "protocol.git.allow=always",
    "protocol.ssh.allow=always",
    "protocol.http.allow=always",
    "protocol.https.allow=always",
    "transfer.fsckObjects=true",
    "fetch.fsckObjects=true",
    "receive.fsckObjects=true",
)
# The caller's environment minus every GIT_* variable (GIT_DIR, GIT_EXTERNAL_DIFF, GIT_PAGER,
# GIT_SSH_COMMAND … would redirect or run things), plus these.
ENV: dict[str, str] = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "",
    "SSH_ASKPASS": "",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_NO_LAZY_FETCH": "1",  # git 2.45+: a promisor's missing object is never fetched
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "LC_ALL": "C",
}
DROPPED = ("PAGER", "EDITOR", "VISUAL", "SSH_ASKPASS")


def environment(network: bool = False) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k not in DROPPED}
    env |= ENV
    if not network:
        env["GIT_ALLOW_PROTOCOL"] = ""  # an empty allow list: no transport whatever the config says
        env["GIT_CONFIG_GLOBAL"] = os.devnull  # the user's aliases and helpers play no part here
    else:
        # the user's own way to reach their remote (an SSH key's options), never a repository's
        env["GIT_SSH_COMMAND"] = os.environ.get("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


def command(folder: str | Path, args: Sequence[str], network: bool = False) -> list[str]:
    """The argv for `git ARGS` in `folder`, hardened (see the module's doc)."""
    settings = (*HARDENING, *(ONLINE if network else OFFLINE))
    if network:  # the sync clone's git uses the user's ssh, not false
        settings = tuple(s for s in settings if not s.startswith("core.sshCommand="))
    flags = [part for setting in settings for part in ("-c", setting)]
    return ["git", "--no-pager", "--no-replace-objects", "-C", str(folder), *flags, *args]


def run(
    folder: str | Path,
    args: Sequence[str],
    *,
    timeout: float,
    network: bool = False,
    input: bytes | None = None,
    capture: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """git ARGS in folder, hardened; raises OSError (no git) and subprocess.TimeoutExpired."""
    return subprocess.run(
        command(folder, args, network),
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
        stderr=subprocess.PIPE if capture else subprocess.DEVNULL,
        timeout=timeout,
        env=environment(network),
        check=False,
    )


def owned_by_user(folder: str | Path) -> bool:
    """Whether a repository's folder and its `.git` belong to the user running memevo (git's
    safe.directory rule; root counts as the user who ran sudo, as git does). A path that cannot
    be stat'ed is not owned. Where there are no uids (Windows), everything is."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return True
    me = getuid()
    if me == 0 and os.environ.get("SUDO_UID", "").isdigit():
        me = int(os.environ["SUDO_UID"])
    root = Path(folder)
    try:
        owners = {os.lstat(root).st_uid}
        dot = root / ".git"
        if os.path.lexists(dot):
            owners.add(os.lstat(dot).st_uid)
    except OSError:
        return False
    return owners == {me}


def not_owned_message(folder: str | Path) -> str:
    return (
        f"{folder} belongs to another user: memevo does not read it or run git there "
        "(as git's safe.directory rule); nothing was read"
    )
