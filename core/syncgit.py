"""`memevo sync`: a person's memories on every machine, through a git remote they own.

The records (core/syncstore.py) live in a git work tree in the data dir (`sync/`, one file per
memory under `memories/`). A sync, under a file lock:

1. tidy: a merge or commit left half done by a kill is undone (`git merge --abort`, `reset
   --hard`, `clean`): nothing is lost by it, as a base moves only after its commit;
2. reconcile the store with the committed tree (either side changed since the base: taken; both:
   merged), commit, then move the bases;
3. fetch; merge the remote branch by memory — for each file only one side changed, that side's;
   both changed, the records merged — one merge commit; reconcile again (the store takes the
   merged records);
4. push (a push refused because the remote moved meanwhile: from 3 again, at most 3 times).

Only memory records leave the machine: no config, key or session data is ever in the tree, and
a memory whose text (or any old text) looks like it holds a secret is held back. git runs as
the real binary without a shell, with bounded timeouts and no terminal prompt (GIT_TERMINAL_PROMPT
=0: an SSH key or credential helper the user set up, never a question). A record that cannot be
read (a broken file in the remote) is a conflict: listed in sync-conflicts.json and by the
command, its memory here left as it was; the file stays in git's history.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import atomic, paths, syncstore
from .clock import Clock
from .errors import InvalidInput
from .store import Store
from .syncstore import Record

log = logging.getLogger(__name__)

BRANCH = "main"
FOLDER = "memories"
LOCAL_TIMEOUT_S = 60.0
NETWORK_TIMEOUT_S = 120.0
PUSH_TRIES = 3
_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "",
    "SSH_ASKPASS": "",
    "GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND", "ssh -o BatchMode=yes"),
    "LC_ALL": "C",
    "GIT_CONFIG_NOSYSTEM": "1",
}
_IDENTITY = ["-c", "user.name=memevo", "-c", "user.email=memevo@localhost", "-c", "commit.gpgsign=false"]


class SyncFailed(InvalidInput):
    pass


@dataclass
class Report:
    exported: int = 0
    imported: int = 0
    merged: list[str] = field(default_factory=list)
    held_back: list[str] = field(default_factory=list)
    conflicts: list[dict[str, str]] = field(default_factory=list)
    pushed: bool = False
    remote: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "exported": self.exported,
            "imported": self.imported,
            "merged": self.merged,
            "held_back": self.held_back,
            "conflicts": self.conflicts,
            "pushed": self.pushed,
            "remote": self.remote,
        }


def work_tree() -> Path:
    return paths.data_dir() / "sync"


def conflicts_path() -> Path:
    return paths.data_dir() / "sync-conflicts.json"


def git(
    tree: Path, *args: str, timeout: float = LOCAL_TIMEOUT_S, check: bool = True, data: str | None = None
) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | _ENV
    try:
        done = subprocess.run(
            ["git", "-C", str(tree), *_IDENTITY, *args],
            input=data,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            stdin=None if data is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise SyncFailed("git is not installed (memevo sync runs the git command)") from None
    except subprocess.TimeoutExpired:
        raise SyncFailed(
            f"git {args[0]} took more than {timeout:.0f} s; nothing was lost, try again"
        ) from None
    if check and done.returncode != 0:
        raise SyncFailed(f"git {args[0]} failed: {(done.stderr or done.stdout).strip()[-600:]}")
    return done.stdout


@contextmanager
def _locked(tree: Path) -> Iterator[None]:
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


def _init(tree: Path, remote: str | None) -> None:
    if not (tree / ".git").is_dir():
        if remote is None:
            raise InvalidInput(
                "no sync remote yet: run `memevo sync REMOTE` once (a git URL or path you own)"
            )
        tree.mkdir(parents=True, exist_ok=True)
        git(tree, "init", "-q", "-b", BRANCH)
    if not git(tree, "rev-parse", "--verify", "-q", "HEAD", check=False).strip():  # new, or killed before
        (tree / FOLDER).mkdir(exist_ok=True)
        atomic.write_text(tree / "README.md", "memevo's memories, one file per memory (`memevo sync`).\n")
        git(tree, "add", "README.md")
        git(tree, "commit", "-q", "-m", "memevo sync: start")
    if remote is not None:
        current = git(tree, "remote", check=False).split()
        git(tree, "remote", "set-url" if "origin" in current else "add", "origin", remote)


def leftover_locks(dot_git: Path) -> list[Path]:
    """The lock files a git killed mid-write leaves behind: its index, HEAD, config and packed
    refs at the top, and one beside each ref it was updating (a fetch killed there leaves
    refs/remotes/origin/main.lock, and every later fetch fails on it). Git never removes them
    itself; under our sync.lock no other git works in this private tree, so they are stale."""
    return [*dot_git.glob("*.lock"), *(dot_git / "refs").rglob("*.lock")]


def _tidy(tree: Path) -> None:
    if (tree / ".git" / "MERGE_HEAD").exists():
        git(tree, "merge", "--abort", check=False)
    for leftover in leftover_locks(tree / ".git"):
        leftover.unlink(missing_ok=True)
    git(tree, "reset", "-q", "--hard", "HEAD")
    git(tree, "clean", "-q", "-fd")


def _read_tree(tree: Path, report: Report) -> dict[str, Record | None]:
    """The committed records (the tree is HEAD after _tidy); a broken one maps to None and is
    listed as a conflict."""
    found: dict[str, Record | None] = {}
    report.conflicts = [
        c for c in report.conflicts if c["why"].startswith("cannot merge")
    ]  # the last read counts
    (tree / FOLDER).mkdir(exist_ok=True)
    for path in sorted((tree / FOLDER).glob("*.json")):
        memory_id = path.stem
        try:
            record = syncstore.parse(path.read_text("utf-8"))
            if record.id != memory_id:
                raise syncstore.BrokenRecord(f"holds memory {record.id}")
        except (OSError, UnicodeDecodeError, syncstore.BrokenRecord) as exc:
            report.conflicts.append({"id": memory_id, "file": f"{FOLDER}/{path.name}", "why": str(exc)})
            found[memory_id] = None
            continue
        found[memory_id] = record
    return found


def _reconcile(store: Store, tree: Path, clock: Clock, report: Report) -> dict[str, tuple[str, int] | None]:
    """Bring store and tree together; returns the bases to set once the tree is committed."""
    local, held = syncstore.export_all(store)
    report.held_back = held
    committed = _read_tree(tree, report)
    broken = {i for i, r in committed.items() if r is None}
    bases = syncstore.bases(store)
    later: dict[str, tuple[str, int] | None] = {}
    now = clock.now_ms()
    for memory_id in sorted(set(local) | set(committed) | set(bases)):
        if memory_id in broken or memory_id in held:
            continue
        mine = local.get(memory_id)
        theirs = committed.get(memory_id)
        base = bases.get(memory_id)
        mine_sha = syncstore.content_sha(mine) if mine is not None else None
        theirs_sha = theirs.sha if theirs is not None else None
        base_sha = base[0] if base else None
        if mine_sha == theirs_sha:
            if base_sha != mine_sha:
                syncstore.set_bases(store, {memory_id: (theirs.sha, theirs.changed_ms) if theirs else None})
            continue
        if mine_sha == base_sha:  # only the tree changed: the store takes it (with its base)
            syncstore.write(store, memory_id, theirs, base=True)
            report.imported += 1
            continue
        record = Record(mine, now) if mine is not None else None
        if theirs_sha != base_sha:  # both changed: merged, the store and the tree take it
            record = syncstore.merge(record, theirs)
            syncstore.write(store, memory_id, record, base=False)
            report.merged.append(memory_id)
        _write_file(tree, memory_id, record)
        report.exported += 1
        later[memory_id] = (record.sha, record.changed_ms) if record else None
    return later


def _write_file(tree: Path, memory_id: str, record: Record | None) -> None:
    path = tree / FOLDER / f"{memory_id}.json"
    if record is None:
        path.unlink(missing_ok=True)
    else:
        atomic.write_text(path, record.to_text())


def _commit(store: Store, tree: Path, message: str, later: dict[str, tuple[str, int] | None]) -> None:
    git(tree, "add", "-A")  # the tree holds only memevo's records (and its README)
    if git(tree, "status", "--porcelain").strip() or (tree / ".git" / "MERGE_HEAD").exists():
        git(tree, "commit", "-q", "--no-verify", "-m", message)
    syncstore.set_bases(store, later)  # only now: the tree that holds them is committed


def _blobs(tree: Path, rev: str | None) -> dict[str, str]:
    if rev is None:
        return {}
    out = git(tree, "ls-tree", "-r", rev, "--", FOLDER)
    blobs: dict[str, str] = {}
    for line in out.splitlines():
        meta, _, path = line.partition("\t")
        blobs[path] = meta.split()[2]
    return blobs


def _cat(tree: Path, shas: list[str]) -> dict[str, str]:
    """Blob contents by sha, all in one `git cat-file --batch`."""
    if not shas:
        return {}
    out = subprocess.run(
        ["git", "-C", str(tree), "cat-file", "--batch"],
        input=("\n".join(shas) + "\n").encode(),
        capture_output=True,
        timeout=LOCAL_TIMEOUT_S,
        env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | _ENV,
        check=True,
    ).stdout
    found: dict[str, str] = {}
    pos = 0
    while pos < len(out):
        header_end = out.index(b"\n", pos)
        sha, _kind, size = out[pos:header_end].decode().split()
        start = header_end + 1
        found[sha] = out[start : start + int(size)].decode("utf-8", "replace")
        pos = start + int(size) + 1
    return found


def _merge_remote(store: Store, tree: Path, clock: Clock, report: Report) -> bool:
    """Fetch and merge the remote branch by memory; False when the remote has no branch yet."""
    git(tree, "fetch", "-q", "origin", timeout=NETWORK_TIMEOUT_S)
    remote_ref = f"origin/{BRANCH}"
    if not git(tree, "rev-parse", "--verify", "-q", remote_ref, check=False).strip():
        return False
    if _is_ancestor(tree, remote_ref, "HEAD"):
        return False  # nothing new there
    base_rev = git(tree, "merge-base", "HEAD", remote_ref, check=False).strip() or None
    ours, theirs, base = _blobs(tree, "HEAD"), _blobs(tree, remote_ref), _blobs(tree, base_rev)
    if _is_ancestor(tree, "HEAD", remote_ref):
        git(tree, "merge", "-q", "--ff-only", remote_ref)
        return True
    git(tree, "merge", "-q", "-s", "ours", "--no-commit", "--allow-unrelated-histories", remote_ref)
    both: list[str] = []
    for path in sorted(set(ours) | set(theirs)):
        mine, other, was = ours.get(path), theirs.get(path), base.get(path)
        if mine == other or other == was:
            continue
        if mine == was:  # only the remote changed it
            if other is None:
                (tree / path).unlink(missing_ok=True)
            else:
                both.append(path)  # written from its blob below
            continue
        both.append(path)
    contents = _cat(tree, sorted({s for p in both for s in (ours.get(p), theirs.get(p)) if s}))
    for path in both:
        mine_sha, other_sha, was = ours.get(path), theirs.get(path), base.get(path)
        if mine_sha == was:
            atomic.write_text(tree / path, contents[str(other_sha)])
            continue
        try:
            mine_record = syncstore.parse(contents[mine_sha]) if mine_sha else None
            other_record = syncstore.parse(contents[other_sha]) if other_sha else None
        except syncstore.BrokenRecord as exc:  # kept as it is here; listed, never lost
            report.conflicts.append({"id": Path(path).stem, "file": path, "why": f"cannot merge: {exc}"})
            continue
        merged = syncstore.merge(mine_record, other_record)
        _write_file(tree, Path(path).stem, merged)
        report.merged.append(Path(path).stem)
    _commit(store, tree, "memevo sync: merge", {})
    return True


def _is_ancestor(tree: Path, older: str, newer: str) -> bool:
    done = subprocess.run(
        ["git", "-C", str(tree), "merge-base", "--is-ancestor", older, newer],
        capture_output=True,
        timeout=LOCAL_TIMEOUT_S,
        env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | _ENV,
    )
    return done.returncode == 0


def sync(store: Store, clock: Clock, remote: str | None = None) -> Report:
    tree = work_tree()
    report = Report()
    if remote is not None and (not remote.strip() or remote.startswith("-") or "\x00" in remote):
        raise InvalidInput("REMOTE must be a git URL or path")
    with _locked(tree):
        _init(tree, remote)
        _tidy(tree)
        report.remote = git(tree, "remote", "get-url", "origin", check=False).strip() or None
        if report.remote is None:
            raise InvalidInput(
                "no sync remote yet: run `memevo sync REMOTE` once (a git URL or path you own)"
            )
        _commit(store, tree, "memevo sync: this machine's changes", _reconcile(store, tree, clock, report))
        for _ in range(PUSH_TRIES):
            if _merge_remote(store, tree, clock, report):
                _commit(store, tree, "memevo sync: merged", _reconcile(store, tree, clock, report))
            pushed = subprocess.run(
                ["git", "-C", str(tree), "push", "-q", "origin", f"HEAD:{BRANCH}"],
                capture_output=True,
                text=True,
                timeout=NETWORK_TIMEOUT_S,
                env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | _ENV,
                stdin=subprocess.DEVNULL,
            )
            if pushed.returncode == 0:
                report.pushed = True
                break
            if "rejected" not in pushed.stderr and "fetch first" not in pushed.stderr:
                raise SyncFailed(f"git push failed: {pushed.stderr.strip()[-600:]}")
            time.sleep(0.2)
        report.conflicts = _dedupe(report.conflicts)
        atomic.write_text(conflicts_path(), json.dumps(report.conflicts, ensure_ascii=False, indent=1) + "\n")
    return report


def _dedupe(items: list[dict[str, str]]) -> list[dict[str, str]]:
    seen: dict[str, dict[str, str]] = {}
    for item in items:
        seen.setdefault(item["file"], item)
    return list(seen.values())


def is_set_up() -> bool:
    """A sync remote was given once (`memevo sync REMOTE`): a stat, for the tray's timer."""
    return (work_tree() / ".git" / "config").is_file()


def conflicts() -> list[dict[str, str]]:
    try:
        return list(json.loads(conflicts_path().read_text("utf-8")))
    except (OSError, ValueError):
        return []
