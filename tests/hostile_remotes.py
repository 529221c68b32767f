"""Hostile sync remotes for the tests: whoever can push to the remote `memevo sync` was given
writes what a sync reads. Each builder crafts the remote object by object with real git —
trees made with `git mktree`, committed with `git commit-tree` and put on `main` with
`git update-ref` — since a checkout cannot hold a `..` entry or a symlink where a folder
should be. Used by tests/test_sync_hostile.py (memevo in process) and tests/installed_attacks.py
(the installed wheel)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from deadlines import HANG_S

Entry = tuple[str, str, str, bytes]  # mode, type, object, name


def raw(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=mallory", "-c", "user.email=m@example.com", *args],
        input=data,
        capture_output=True,
        timeout=HANG_S,
        check=True,
    )
    return done.stdout


def blob(repo: Path, data: bytes) -> str:
    return raw(repo, "hash-object", "-w", "--stdin", data=data).decode().strip()


def mktree(repo: Path, entries: list[Entry]) -> str:
    """A tree of exactly these entries: mktree checks no name, so `..` is one."""
    listing = b"".join(f"{mode} {kind} {sha}\t".encode() + name + b"\0" for mode, kind, sha, name in entries)
    return raw(repo, "mktree", "-z", "--missing", data=listing).decode().strip()


def entries(repo: Path, treeish: str) -> list[Entry]:
    found: list[Entry] = []
    for item in raw(repo, "ls-tree", "-z", treeish).split(b"\0"):
        if item:
            meta, _, name = item.partition(b"\t")
            mode, kind, sha = meta.decode().split()
            found.append((mode, kind, sha, name))
    return found


def attack(
    remote: Path, memories: list[Entry] | None = None, root: list[Entry] | None = None, drop: bytes = b""
) -> None:
    """A commit on top of the remote's main: `memories` entries added to (or replacing those of
    the same name in) its memories/ tree, `root` entries likewise at the top; `drop` left out."""
    top = entries(remote, "main")
    if memories is not None:
        folder = next(sha for _, _, sha, name in top if name == b"memories")
        names = {e[3] for e in memories} | {drop}
        inner = [e for e in entries(remote, folder) if e[3] not in names] + memories
        top = [e for e in top if e[3] != b"memories"] + [
            ("040000", "tree", mktree(remote, inner), b"memories")
        ]
    if root is not None:
        names = {e[3] for e in root}
        top = [e for e in top if e[3] not in names] + root
    commit = raw(remote, "commit-tree", mktree(remote, top), "-p", "main", "-m", "hostile").decode().strip()
    raw(remote, "update-ref", "refs/heads/main", commit)


def dotdot_entry(remote: Path, target: Path, memories: Path, data: bytes) -> Entry:
    """An entry of the remote's memories/ tree that is a chain of `..` trees ending in a file
    holding `data`: checked out in `memories` (the sync clone's memories/ folder), it would be
    `target` (as memories/../../../home/.bashrc)."""
    hops = os.path.relpath(target, memories).split(os.sep)
    assert hops[0] == ".." and hops[-1] == target.name, hops
    inner: Entry = ("100644", "blob", blob(remote, data), hops[-1].encode())
    for hop in reversed(hops[:-1]):
        inner = ("040000", "tree", mktree(remote, [inner]), hop.encode())
    return inner


def record(remote: Path, memory_id: str, **changes: Any) -> bytes:
    """The remote's record of memory_id, with changes to its memory (changed_ms: to the record)."""
    body = json.loads(raw(remote, "show", f"main:memories/{memory_id}.json"))
    if "changed_ms" in changes:
        body["changed_ms"] = changes.pop("changed_ms")
    body["memory"].update(changes)
    return json.dumps(body, ensure_ascii=False).encode()


def file_entry(remote: Path, name: str | bytes, data: bytes) -> Entry:
    return ("100644", "blob", blob(remote, data), name.encode() if isinstance(name, str) else name)


def remote_files(remote: Path) -> list[bytes]:
    return sorted(p for p in raw(remote, "ls-tree", "-r", "-z", "--name-only", "main").split(b"\0") if p)


def conflict_files(done: subprocess.CompletedProcess[str]) -> str:
    return "\n".join(line for line in done.stdout.splitlines() if line.startswith("conflict:"))
