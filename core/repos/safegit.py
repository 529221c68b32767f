"""Git run as if the repository were hostile: the one way memevo runs git.

A repository is text a stranger wrote. Its `.git/config` can name programs for git to run
(`core.fsmonitor`, `core.sshCommand`, `core.pager`, `diff.external`, textconv, filter and merge
drivers, hooks, `core.hooksPath`, `gpg.ssh.program`), and a partial clone's promisor remote
makes a plain `git grep` fetch missing blobs lazily — through whatever transport and command
that config names. Every git call memevo makes in a user's repository (staleness, sharing)
goes through `run` with `network=False`: no transport at all, every program-naming setting
overridden on the command line (which wins over the repository's config) — the drivers, whose
names are the repository's own, one by one as its config lists them — hooks pointed at nothing,
no pager, no external diff or textconv, no lazy fetch, no replace objects, and nothing
inherited from the caller's GIT_* environment. memevo's own sync clone (`network=True`) may reach the one
remote the user named, with the same overrides and fsck on every object it receives.

A fetch or push to a remote on this machine (a path, file://) makes git run upload-pack or
receive-pack here, as the user, in the remote's folder with the remote's config — and a local
transport drops every `-c` on the way. That other end is given its own hardened command
(`remote_side_command`, for `--upload-pack` / `--receive-pack`): no hook, no program its config
names, no housekeeping, no checkout into a work tree, no transport. Only for local remotes: an
ssh server runs its own side (a forge accepts nothing but the bare program name).

Repositories not owned by the user are skipped before git runs, as git's own
`safe.directory` rule would: another local user can plant a `.git` in a shared folder.

A test (tests/test_safegit.py) grows whenever git adds a way for a repository to run code.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import time
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
    # a signature is checked by the program its format names, whatever gpg.format says: an SSH
    # signature runs gpg.ssh.program (a repository's log.showSignature makes `git log` check one)
    "gpg.ssh.program=false",
    "gpg.x509.program=false",
    "log.showSignature=false",
    "sequence.editor=false",
    "pager.grep=false",
    "pager.ls-files=false",
    "grep.fallbackToNoIndex=false",
    "submodule.recurse=false",
    "fetch.recurseSubmodules=false",
    "safe.bareRepository=explicit",
)
# No transport, so no lazy fetch either. A repository's own `protocol.<name>.allow=always` beats
# a general `protocol.allow` from anywhere, so each transport git has is named too;
# GIT_ALLOW_PROTOCOL (environment) beats both, and covers remote helpers (`<helper>::url`).
TRANSPORTS = ("file", "git", "ssh", "http", "https", "ftp", "ftps", "ext", "fd")
OFFLINE: tuple[str, ...] = ("protocol.allow=never", *(f"protocol.{t}.allow=never" for t in TRANSPORTS))
# memevo's sync clone: the user's remote over the ordinary transports, every object checked.
ONLINE_TRANSPORTS = ("file", "git", "ssh", "http", "https")
ONLINE: tuple[str, ...] = (
    "protocol.allow=never",
    *(f"protocol.{t}.allow={'always' if t in ONLINE_TRANSPORTS else 'never'}" for t in TRANSPORTS),
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
    # a promisor's missing object is never fetched: git 2.44+, and the 2.39.4+ security releases
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "LC_ALL": "C",
}
DROPPED = ("PAGER", "EDITOR", "VISUAL", "SSH_ASKPASS")

# Flags put right after these subcommands. A textconv driver and an external diff command are
# named per path (.gitattributes `diff=NAME`, config `diff.NAME.textconv`), so no `-c` can name
# them all; these flags turn them off whatever the name. `diff.external=` above makes a
# subcommand missing here fail ("cannot run") rather than run the repository's program.
FORCED: dict[str, tuple[str, ...]] = {
    "grep": ("--no-textconv",),
    "diff": ("--no-ext-diff", "--no-textconv"),
    "log": ("--no-ext-diff", "--no-textconv"),
    "show": ("--no-ext-diff", "--no-textconv"),
}
UNDOING = frozenset(["--textconv", "--ext-diff"])  # after FORCED, these would win: refused
# Subcommands that never run a filter, diff or merge driver (grep with --no-textconv reads
# files and blobs as they are). Any other first has every driver the repository's config names
# overridden (`drivers`): `git status` runs a clean filter on a file whose stat changed,
# `git blame` a textconv, `git checkout` a smudge filter, `git merge` a merge driver.
NO_DRIVERS = frozenset(["grep", "ls-tree", "rev-parse", "rev-list", "for-each-ref", "show-ref", "merge-base"])
# The settings of a driver that name a program, and the harmless value each gets: an empty
# filter command is no filter (and a required filter is not required any more); an empty
# textconv or diff command fails instead of running; a merge driver that is `false` leaves the
# file conflicted (an empty one would be a shell that exits 0: a merge that silently keeps ours).
DRIVER_KEYS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"filter\..+\.(?:clean|smudge|process)", re.S), ""),
    (re.compile(r"filter\..+\.required", re.S), "false"),
    (re.compile(r"diff\..+\.(?:textconv|command)", re.S), ""),
    (re.compile(r"merge\..+\.driver", re.S), "false"),
)
# How the user reaches their own sync remote — their ssh, their credential helper for an
# HTTPS remote (never asked at a terminal: GIT_TERMINAL_PROMPT=0) — comes from their global
# config and environment, and the sync clone's config is memevo's: kept when network=True.
USERS_OWN = ("core.sshCommand=", "credential.helper=", "core.askPass=")
# The other end of a fetch or push to a repository on this machine (a path, file://): git runs
# `git-upload-pack` / `git-receive-pack` there itself, as the user, in the remote's folder and
# with the remote's config — and a local transport clears GIT_CONFIG_PARAMETERS and the rest of
# git's local environment for it, so no `-c` given to the fetch or push reaches it. These go in
# the command itself (`remote_side_command`): HARDENING, no transport, and what else a fetch or
# push makes git run there.
REMOTE_SIDE_PROGRAMS = frozenset(["upload-pack", "receive-pack"])
REMOTE_SIDE: tuple[str, ...] = (
    *(s for s in HARDENING if not s.startswith("core.alternateRefsCommand=")),
    # receive-pack lists an alternate's refs through this command: `true` lists none, and
    # quietly (an empty command fails with an error on every push)
    "core.alternateRefsCommand=true",
    # a push runs no housekeeping there: `gc --auto` runs the pre-auto-gc hook and, in newer
    # git, programs the remote's config names in a list (gc.recentObjectsHook) that no `-c`
    # can take back; the remote's own `git gc` stays its owner's to run
    "receive.autogc=false",
    "gc.auto=0",
    "maintenance.auto=false",
    # updateInstead checks the pushed tree out into the remote's work tree (or the one its
    # core.worktree names), running the filters and fsmonitor its config names
    "receive.denyCurrentBranch=refuse",
    *OFFLINE,
)
# Not overridden, and why it need not be: uploadpack.packObjectsHook is read only from protected
# config (system, global, the command line), never from the remote's own; receive.procReceiveRefs
# (a list) hands refs to the proc-receive hook, and with hooks pointing nowhere git refuses those
# refs instead of running anything.
GITFILE_MAX_BYTES = 4096  # a `.git` file is one line, "gitdir: PATH"


def environment(network: bool = False, overrides: Sequence[tuple[str, str]] = ()) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k not in DROPPED}
    env |= ENV
    if not network:
        env["GIT_ALLOW_PROTOCOL"] = ""  # an empty allow list: no transport whatever the config says
        env["GIT_CONFIG_GLOBAL"] = os.devnull  # the user's aliases and helpers play no part here
    else:
        env["GIT_ALLOW_PROTOCOL"] = ":".join(ONLINE_TRANSPORTS)  # never ext::, fd:: or a helper
        # the user's own way to reach their remote (an SSH key's options), never a repository's
        env["GIT_SSH_COMMAND"] = os.environ.get("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    # Command-line settings as `-c` would give them, but as separate key and value: a driver's
    # name is the repository's text and may hold "=", which `-c KEY=VALUE` would split on.
    if overrides:
        env["GIT_CONFIG_COUNT"] = str(len(overrides))
        for i, (key, value) in enumerate(overrides):
            env[f"GIT_CONFIG_KEY_{i}"] = key
            env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


def remote_side_command(program: str) -> str:
    """The command a fetch (`--upload-pack=`) or push (`--receive-pack=`) runs at the other end
    when that end is a repository on this machine: `git -c … upload-pack`, hardened like every
    git memevo runs (REMOTE_SIDE), with no transport (GIT_ALLOW_PROTOCOL, which beats any config,
    empty: the other end only answers on its pipe). git runs it through /bin/sh with the
    remote's path appended. Only for local remotes: over ssh it would be the command the server
    runs, which a forge (GitHub, GitLab) refuses unless it is the bare program name — there the
    other end is the server's own."""
    if program not in REMOTE_SIDE_PROGRAMS:
        raise ValueError(f"no remote-side command for {program!r}")
    flags = " ".join(f"-c {shlex.quote(setting)}" for setting in REMOTE_SIDE)
    return f"GIT_ALLOW_PROTOCOL= git --no-replace-objects {flags} {program}"


def command(folder: str | Path, args: Sequence[str], network: bool = False) -> list[str]:
    """The argv for `git ARGS` in `folder`, hardened (see the module's doc). ARGS start with the
    subcommand: an option before it could undo the hardening."""
    if not args or args[0].startswith("-"):
        raise ValueError(f"git arguments must start with the subcommand, not {list(args[:1])}")
    if UNDOING.intersection(args):
        raise ValueError(f"{sorted(UNDOING.intersection(args))} would undo the hardening")
    settings = (*HARDENING, *(ONLINE if network else OFFLINE))
    if network:  # the sync clone is memevo's own: the user's way to reach their remote stays
        settings = tuple(s for s in settings if not s.startswith(USERS_OWN))
    flags = [part for setting in settings for part in ("-c", setting)]
    sub, rest = args[0], list(args[1:])
    return [
        "git",
        "--no-pager",
        "--no-replace-objects",
        "-C",
        str(folder),
        *flags,
        sub,
        *FORCED.get(sub, ()),
        *rest,
    ]


def drivers(folder: str | Path, timeout: float, network: bool = False) -> list[tuple[str, str]] | None:
    """An override for every program-naming setting of a filter, diff or merge driver the
    repository's config (with its includes) defines; None when the config cannot be listed.
    Listing the config runs no program."""
    done = subprocess.run(
        command(folder, ["config", "--null", "--name-only", "--list"], network),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        env=environment(network),
        check=False,
    )
    if done.returncode != 0:
        return None
    overrides: list[tuple[str, str]] = []
    for name in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        harmless = next((value for key, value in DRIVER_KEYS if key.fullmatch(name)), None)
        if harmless is not None:
            overrides.append((name, harmless))
    return overrides


def run(
    folder: str | Path,
    args: Sequence[str],
    *,
    timeout: float,
    network: bool = False,
    input: bytes | None = None,
    capture: bool = True,
    known_drivers: Sequence[tuple[str, str]] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """git ARGS in folder, hardened; raises OSError (no git) and subprocess.TimeoutExpired.
    A repository whose config cannot be listed (for its drivers) answers that failure.
    known_drivers: what `drivers` gave for this repository moments ago (a caller running several
    commands there lists its config once)."""
    argv = command(folder, args, network)
    overrides: Sequence[tuple[str, str]] = []
    deadline = time.monotonic() + timeout
    if args[0] not in NO_DRIVERS:
        found = known_drivers if known_drivers is not None else drivers(folder, timeout, network)
        if found is None:
            return subprocess.CompletedProcess(
                argv, 128, b"", b"memevo: could not list the repository's config\n"
            )
        overrides = found
    return subprocess.run(
        argv,
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
        stderr=subprocess.PIPE if capture else subprocess.DEVNULL,
        timeout=max(deadline - time.monotonic(), 0.001),
        env=environment(network, overrides),
        check=False,
    )


def owned_by_user(folder: str | Path) -> bool:
    """Whether a repository belongs to the user running memevo, as git's safe.directory rule
    has it: its folder, its `.git` and, when `.git` is a file (a linked worktree, a
    submodule), the git dir that file names. Root counts as itself or the user who ran sudo,
    as git does. Symlinks are followed first (git judges the real paths). A path that cannot
    be stat'ed is not owned. Where there are no uids (Windows), everything is."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return True
    me = {getuid()}
    if me == {0} and os.environ.get("SUDO_UID", "").isdigit():
        me.add(int(os.environ["SUDO_UID"]))
    try:
        root = Path(folder).resolve()
        owners = {os.lstat(root).st_uid}
        dot = root / ".git"
        if os.path.lexists(dot):
            owners |= {os.lstat(dot).st_uid, os.stat(dot).st_uid}  # a link, and what it names
            if dot.is_file():
                owners.add(os.stat(_gitdir_of(dot)).st_uid)
    except (OSError, RuntimeError, ValueError):  # RuntimeError: a symlink loop (Python < 3.13)
        return False
    return owners <= me


def _gitdir_of(gitfile: Path) -> Path:
    """The git dir a `.git` file names (relative to the file's folder); ValueError: no such line."""
    with gitfile.open("rb") as handle:
        line = handle.read(GITFILE_MAX_BYTES).decode("utf-8", "surrogateescape").splitlines()[:1]
    if not line or not line[0].startswith("gitdir: "):
        raise ValueError(f"{gitfile} names no git dir")
    return gitfile.parent / line[0][len("gitdir: ") :].strip()


def not_owned_message(folder: str | Path) -> str:
    return (
        f"{folder} belongs to another user: memevo does not read it or run git there "
        "(as git's safe.directory rule); nothing was read"
    )
