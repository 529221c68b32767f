"""memevo's sync clone, on disk and in git, trusting no name or link the remote sends.

git is run in it only through core/repos/safegit.py (network only for fetch and push, the other end
hardened too when it is a repository on this machine: `remote_side`) with memevo's
own identity; the remote's URL is checked before git sees it; the clone is set up and, after a
kill, tidied; its record files are read and written without following a link; and the remote's
tree is listed with `ls-tree -z` and only `memories/ID.json` plain files are taken from it.
core/sync/remote.py runs a sync with these (its module doc says what is refused and why).
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .. import atomic, paths
from ..errors import InvalidInput
from ..printable import printable
from ..repos import safegit
from . import records as syncstore

BRANCH = "main"
FOLDER = "memories"
README = "README.md"
LOCAL_TIMEOUT_S = 60.0
NETWORK_TIMEOUT_S = 120.0
# memevo's commits carry its own name, never the user's (whose global config a local git call
# does not read at all). As environment, not `-c`: safegit's argv starts with the subcommand.
IDENTITY = {
    "GIT_AUTHOR_NAME": "memevo",
    "GIT_AUTHOR_EMAIL": "memevo@localhost",
    "GIT_COMMITTER_NAME": "memevo",
    "GIT_COMMITTER_EMAIL": "memevo@localhost",
}
RECORD_NAME = re.compile(rf"({syncstore.ID.pattern})\.json")
MODES = {
    "040000": "a folder",
    "100644": "a file",
    "100755": "an executable file",
    "120000": "a symbolic link",
    "160000": "a gitlink (submodule)",
}
REPAIR = "repair the remote (revert the commit that made it)"
# git's fsck refuses an object while any commit of the branch holds it: a revert is not enough
REPAIR_HISTORY = "repair the remote (reset its branch to a commit before the one that brought it)"


class SyncFailed(InvalidInput):
    pass


def work_tree() -> Path:
    return paths.data_dir() / "sync"


def shown(name: bytes | str) -> str:
    """A name or message from the remote as plain text: undecodable bytes and control or
    direction characters written as escapes, so no terminal or notification acts on them."""
    return printable(name.decode("utf-8", "backslashreplace") if isinstance(name, bytes) else name)


def run(
    tree: Path,
    args: Sequence[str],
    timeout: float = LOCAL_TIMEOUT_S,
    network: bool = False,
    data: bytes | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """git ARGS in the sync clone through core/repos/safegit.py (network only for fetch and push)."""
    try:
        return subprocess.run(
            safegit.command(tree, args, network),
            input=data,
            stdin=None if data is not None else subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            env=safegit.environment(network) | IDENTITY,
            check=False,
        )
    except FileNotFoundError:
        raise SyncFailed("git is not installed (memevo sync runs the git command)") from None
    except subprocess.TimeoutExpired:
        raise SyncFailed(
            f"git {args[0]} took more than {timeout:.0f} s; nothing was lost, try again"
        ) from None


def git(
    tree: Path,
    *args: str,
    timeout: float = LOCAL_TIMEOUT_S,
    check: bool = True,
    data: str | None = None,
    network: bool = False,
) -> str:
    done = run(tree, args, timeout, network, data.encode() if data is not None else None)
    if check and done.returncode != 0:
        raise SyncFailed(f"git {args[0]} failed: {said(done)}")
    return done.stdout.decode("utf-8", "replace")


def said(done: subprocess.CompletedProcess[bytes]) -> str:
    """What a failed git said, on one line, its end, escaped: it may quote the remote's words."""
    lines = (done.stderr or done.stdout).decode("utf-8", "replace").splitlines()
    return shown("; ".join(line.strip() for line in lines if line.strip())[-600:])


_HELPER = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*::")  # git's `<helper>::<address>`
_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://([^/]*)")
_SCHEMES = frozenset(["ssh", "git+ssh", "ssh+git", "git", "http", "https", "file"])


def check_remote(remote: str) -> None:
    """A git URL or a path; InvalidInput for anything git could take for something else: an
    option (a leading '-' or space), a remote helper (`ext::` and `fd::` run programs), a
    transport but ssh, git, http(s) and file, a host or user ssh would read as an option
    (`ssh://-oProxyCommand=…`), or a control character (a newline writes lines of its own into
    the clone's config)."""
    problem = None
    if not remote or remote != remote.strip() or remote.startswith("-"):
        problem = "it is empty, starts with '-' or has spaces around it"
    elif any(not ch.isprintable() for ch in remote):
        problem = "it holds a control character"
    elif _HELPER.match(remote):
        problem = "a remote helper (NAME::…) runs a program"
    elif (url := _URL.match(remote)) is not None:
        if url.group(1).lower() not in _SCHEMES:
            problem = f"{url.group(1)}:// is not a transport memevo uses"
        elif url.group(2).startswith("-") or url.group(2).rpartition("@")[2].startswith("-"):
            problem = "its host starts with '-'"
    elif ":" in remote.split("/", 1)[0] and remote.split(":", 1)[0].rpartition("@")[2].startswith("-"):
        problem = "its host starts with '-'"  # scp-like user@host:path
    if problem is not None:
        raise InvalidInput(
            f"REMOTE must be a git URL (ssh, https, git, file) or a path: {problem}; nothing was changed"
        )


def is_local(url: str) -> bool:
    """Whether git reaches this remote by running its upload-pack or receive-pack here, itself:
    a file:// URL or a path. git's own rule (connect.c): `scheme://` is that scheme, and
    otherwise a colon before any slash makes `host:path` (ssh), anything else a path."""
    url_match = _URL.match(url)
    if url_match is not None:
        return url.startswith("file://")  # git compares the scheme case-sensitively too
    colon, slash = url.find(":"), url.find("/")
    return colon < 0 or 0 <= slash < colon


def remote_side(tree: Path, push: bool) -> list[str]:
    """The option that hardens the other end of a fetch or push (safegit.remote_side_command)
    when origin is a repository on this machine, else none: an ssh, git or https server runs its
    own. The URL is the one the fetch or push will use — git's answer, after the `insteadOf`
    and `pushInsteadOf` rewrites of the user's config (and every push URL). When git cannot
    say, the option is given: hardening an ssh push costs a refusal at worst, missing a local
    one runs the remote's hooks."""
    args = ["remote", "get-url", *(["--push"] if push else []), "origin"]
    done = run(tree, args, network=True)
    urls = done.stdout.decode("utf-8", "surrogateescape").split("\n")
    urls = [u.strip() for u in urls if u.strip()]
    if done.returncode == 0 and urls and not any(is_local(u) for u in urls):
        return []
    program = "receive-pack" if push else "upload-pack"
    return [f"--{program}={safegit.remote_side_command(program)}"]


@contextmanager
def locked(tree: Path) -> Iterator[None]:
    tree.parent.mkdir(parents=True, exist_ok=True)
    with open(tree.parent / "sync.lock", "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SyncFailed("another sync is running; try again when it is done") from None
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def init(tree: Path, remote: str | None) -> None:
    if not (tree / ".git").is_dir():
        if remote is None:
            raise InvalidInput(
                "no sync remote yet: run `memevo sync REMOTE` once (a git URL or path you own)"
            )
        tree.mkdir(parents=True, exist_ok=True)
        git(tree, "init", "-q", "-b", BRANCH)
    if not git(tree, "rev-parse", "--verify", "-q", "HEAD", check=False).strip():  # new, or killed before
        real_folder(tree / FOLDER, create=True)
        atomic.write_text(tree / README, "memevo's memories, one file per memory (`memevo sync`).\n")
        git(tree, "add", README)
        git(tree, "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "memevo sync: start")
    if remote is not None:
        current = git(tree, "remote", check=False).split()
        git(tree, "remote", "set-url" if "origin" in current else "add", "origin", remote)


def leftover_locks(dot_git: Path) -> list[Path]:
    """The lock files a git killed mid-write leaves behind: its index, HEAD, config and packed
    refs at the top, and one beside each ref it was updating (a fetch killed there leaves
    refs/remotes/origin/main.lock, and every later fetch fails on it). Git never removes them
    itself; under our sync.lock no other git works in this private tree, so they are stale."""
    return [*dot_git.glob("*.lock"), *(dot_git / "refs").rglob("*.lock")]


def tidy(tree: Path) -> None:
    if (tree / ".git" / "MERGE_HEAD").exists():
        git(tree, "merge", "--abort", check=False)
    for leftover in leftover_locks(tree / ".git"):
        leftover.unlink(missing_ok=True)
    git(tree, "reset", "-q", "--hard", "HEAD")
    git(tree, "clean", "-q", "-fd")


def real_folder(folder: Path, create: bool = False) -> bool:
    """Whether folder is a directory itself, not a link to one elsewhere (made when missing)."""
    try:
        return stat.S_ISDIR(os.lstat(folder).st_mode)
    except FileNotFoundError:
        if not create:
            return False
        os.mkdir(folder)
        return True


def folder_refused(tree: Path, what: str | None = None) -> dict[str, str]:
    """memories in this clone (what None) or in the remote is not a folder."""
    if what is None:
        why = (
            "memories in memevo's sync folder is not a real folder (a symbolic link?): nothing "
            f"was read from it or written through it; move {tree} away and run `memevo sync REMOTE`"
        )
    else:
        why = (
            f"memories in the remote is {what}, not a folder: nothing was read from it or "
            f"pushed over it; {REPAIR}"
        )
    return {"id": "", "file": FOLDER, "why": why}


def read_record(path: Path) -> str:
    """A record file's text, read without following a link."""
    if stat.S_ISLNK(os.lstat(path).st_mode):
        raise syncstore.BrokenRecord("a symbolic link: not followed")
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # NONBLOCK: a fifo must not hang
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise syncstore.BrokenRecord("not a plain file")
        data = handle.read(syncstore.MAX_RECORD_BYTES + 1)
    if len(data) > syncstore.MAX_RECORD_BYTES:
        raise syncstore.BrokenRecord(f"larger than {syncstore.MAX_RECORD_BYTES} bytes")
    return data.decode("utf-8")


def write_file(tree: Path, memory_id: str, data: bytes | None) -> None:
    """memories/ID.json holds data (None: removed), written without following a link."""
    if not syncstore.valid_id(memory_id):  # never: ids are checked before they get here
        raise SyncFailed(f"refused to write a record for the id {shown(memory_id)}")
    folder = tree / FOLDER
    if not real_folder(folder, create=True):
        raise SyncFailed(folder_refused(tree)["why"])
    path = folder / f"{memory_id}.json"
    if data is None or os.path.islink(path):  # replaced, never written through
        path.unlink(missing_ok=True)
    if data is not None:
        atomic.write_bytes(path, data)


def drop_strays(tree: Path) -> None:
    """Files no sync writes (a stray `"memories` folder an older memevo made from a quoted
    name) leave the tree, so they are not committed or pushed again; a record's own file,
    however broken, stays: it is its memory's conflict until repaired."""
    for name in os.listdir(tree):
        if name in (".git", README, FOLDER):
            continue
        path = tree / name
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            path.unlink()
    folder = tree / FOLDER
    if not real_folder(folder):
        return
    for name in os.listdir(folder):
        path = folder / name
        if RECORD_NAME.fullmatch(name) is None:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                path.unlink()


@dataclass
class Listing:
    """The records of one commit's tree, by memory id (their blob ids), and what was refused."""

    records: dict[str, str] = field(default_factory=dict)
    refused: list[dict[str, str]] = field(default_factory=list)
    refused_ids: set[str] = field(default_factory=set)  # a record's name, but no plain file
    readable: bool = True  # memories is a folder, or absent

    @property
    def clean(self) -> bool:
        return not self.refused


def ls_tree(tree: Path, treeish: str) -> Iterator[tuple[str, str, str, int, bytes]]:
    """(mode, type, object, size or -1, name) of each entry: -z, so names come as stored."""
    out = run(tree, ["ls-tree", "-z", "-l", treeish])
    if out.returncode != 0:
        raise SyncFailed(f"git ls-tree failed: {said(out)}")
    for entry in out.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        mode, kind, sha, size = meta.decode("ascii").split()
        yield mode, kind, sha, int(size) if size.isdigit() else -1, name


def listing(tree: Path, rev: str | None) -> Listing:
    found = Listing()
    if rev is None:
        return found
    folder: str | None = None
    for mode, kind, sha, _size, name in ls_tree(tree, rev):
        what = MODES.get(mode, f"an entry of mode {mode}")
        if name == README.encode() and mode == "100644" and kind == "blob":
            continue
        if name == FOLDER.encode() and mode == "040000" and kind == "tree":
            folder = sha
        elif name == FOLDER.encode():
            found.readable = False
            found.refused.append(folder_refused(tree, what))
        else:
            why = f"{what} memevo does not write (only README.md and memories/ID.json): ignored"
            found.refused.append({"id": "", "file": shown(name), "why": why})
    if folder is None:
        return found
    for mode, kind, sha, size, name in ls_tree(tree, folder):
        what = MODES.get(mode, f"an entry of mode {mode}")
        file = f"{FOLDER}/{shown(name)}"
        match = RECORD_NAME.fullmatch(name.decode("utf-8", "replace"))
        if match is None:
            why = f"{what} whose name is not a memory's (memories/ID.json): ignored"
            found.refused.append({"id": "", "file": file, "why": why})
            continue
        memory_id = match.group(1)
        if mode != "100644" or kind != "blob":
            why = f"{what}, not a plain file: not read"
        elif size > syncstore.MAX_RECORD_BYTES:
            why = f"larger than {syncstore.MAX_RECORD_BYTES} bytes: not read"
        else:
            found.records[memory_id] = sha
            continue
        found.refused_ids.add(memory_id)
        found.refused.append({"id": memory_id, "file": file, "why": why})
    return found


def cat(tree: Path, shas: list[str]) -> dict[str, bytes]:
    """Blob contents by id, all in one `git cat-file --batch` (a missing one is left out)."""
    if not shas:
        return {}
    done = run(tree, ["cat-file", "--batch"], data=("\n".join(shas) + "\n").encode())
    if done.returncode != 0:
        raise SyncFailed(f"git cat-file failed: {said(done)}")
    out = done.stdout
    found: dict[str, bytes] = {}
    pos = 0
    while pos < len(out):
        header_end = out.index(b"\n", pos)
        header = out[pos:header_end].decode("ascii", "replace").split()
        pos = header_end + 1
        if len(header) != 3 or not header[2].isdigit():  # "<id> missing"
            continue
        size = int(header[2])
        found[header[0]] = out[pos : pos + size]
        pos += size + 1
    return found


def is_ancestor(tree: Path, older: str, newer: str) -> bool:
    return run(tree, ["merge-base", "--is-ancestor", older, newer]).returncode == 0
