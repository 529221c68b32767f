"""A repository's identity: its normalised remote URL, else its folder.

`git@host:org/x.git`, `https://user:token@host/org/x`, `ssh://git@host:22/org/x.git` all name
`host/org/x`, so the same project cloned in two folders, or on two machines, has the same facts.
Credentials and ports are dropped (a key must never carry a token, and the SSH and HTTPS
addresses of one repository differ only there). A remote that is a local path (or file://) is
named by its resolved path. A folder without a remote is named by itself, as before.

The remote is read from the repository's own config file (`origin`, else its first remote with
a url) — no git process, a stat and a small read, cached by the file's mtime. `insteadOf`
rewrites and `include`d files are not followed.

Scopes written before identities were keyed by folder: `rekey` moves them to the folder's
identity when the store opens (cheap: one config read per distinct folder), and remembers the
folder in repo_folders, where staleness and `share` find a repository on this machine. A
remote is a claim any folder's config can make (a downloaded project can name the user's
own): a repository's folders are all the folders that claimed it, none more trusted.
"""

from __future__ import annotations

import logging
import re
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from . import safegit

log = logging.getLogger(__name__)

CONFIG_MAX_BYTES = 256 * 1024  # a git config larger than this is not read (a repo's is ~1 KB)
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$", re.S)
_SCP = re.compile(r"^(?:[^@/]+@)?([^:/\s]+):(.*)$", re.S)  # git@host:org/x (no "/" before ":")
_SECTION = re.compile(r'^\[\s*remote\s+"((?:[^"\\]|\\.)*)"\s*\]')


def folder_of(cwd: str | None) -> str | None:
    """The git top-level of a folder (nearest parent holding `.git`), else the folder itself;
    None for no, a relative or an unusable folder."""
    if not cwd or not isinstance(cwd, str) or "\x00" in cwd:
        return None
    return _folder(cwd)


@lru_cache(maxsize=256)
def _folder(cwd: str) -> str | None:
    path = Path(cwd).expanduser()
    if not path.is_absolute():
        return None
    try:
        path = path.resolve()
        for folder in (path, *path.parents):
            if (folder / ".git").exists():
                return str(folder)
    except OSError:
        return None
    return str(path)


def identity(folder: str) -> str:
    """The identity of a repository's top-level folder: its normalised remote, else the folder.
    A repository another user owns is named by its folder: its config is no claim we take (a
    planted `.git` in a shared folder must not pass for the user's own repository)."""
    if not safegit.owned_by_user(folder):
        return folder
    config = _config_path(Path(folder))
    if config is None:
        return folder
    try:
        stamp = config.stat().st_mtime_ns
    except OSError:
        return folder
    return _identity(folder, str(config), stamp) or folder


@lru_cache(maxsize=256)
def _identity(folder: str, config: str, stamp: int) -> str | None:
    url = remote_url(Path(config))
    return normalise(url, Path(folder)) if url else None


def _config_path(folder: Path) -> Path | None:
    """The config file of the repository at `folder` (a work tree's `.git` dir or `.git` file
    pointing at a linked worktree's gitdir, whose `commondir` holds the shared config)."""
    dot = folder / ".git"
    try:
        if dot.is_dir():
            gitdir = dot
        elif dot.is_file():
            line = dot.read_text("utf-8", "replace")[:4096].strip()
            if not line.startswith("gitdir:"):
                return None
            gitdir = (folder / line[len("gitdir:") :].strip()).resolve()
        else:
            return None
        common = gitdir / "commondir"
        if common.is_file():
            gitdir = (gitdir / common.read_text("utf-8", "replace")[:4096].strip()).resolve()
        config = gitdir / "config"
        return config if config.is_file() else None
    except OSError:
        return None


def remote_url(config: Path) -> str | None:
    """`remote.origin.url`, else the first remote's url, from a git config file."""
    try:
        with config.open("rb") as f:
            text = f.read(CONFIG_MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    remote: str | None = None
    urls: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            match = _SECTION.match(line)
            remote = match.group(1) if match else None
            continue
        if remote is None or remote in urls:
            continue
        key, eq, value = line.partition("=")
        if eq and key.strip().lower() == "url":
            urls[remote] = _unquote(value.strip())
    if "origin" in urls:
        return urls["origin"]
    return next(iter(urls.values()), None)


def _unquote(value: str) -> str:
    for mark in (" #", " ;", "\t#", "\t;"):
        if mark in value and not value.startswith('"'):
            value = value.split(mark, 1)[0].rstrip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return value


def normalise(url: str, base: Path | None = None) -> str | None:
    """`host/path` for a network remote, a resolved absolute path for a local one; None for
    something that is no remote address."""
    url = url.strip()
    if not url or len(url) > 4096 or any(ord(c) < 32 for c in url):
        return None
    match = _URL.match(url)
    if match:
        scheme, rest = match.group(1).lower(), match.group(2)
        if scheme == "file":
            return _local(rest, base)
        authority, _, path = rest.partition("/")
        host = _host(authority)
        return _join(host, path)
    match = _SCP.match(url)
    if match and len(match.group(1)) > 1:  # "C:\x" is a Windows path, not host C
        return _join(_host(match.group(1)), match.group(2))
    return _local(url, base)


def _host(authority: str) -> str:
    host = authority.rpartition("@")[2]  # user:token@ never stays in a key
    if host.startswith("["):  # [::1]:22
        return host.split("]", 1)[0].lstrip("[").lower()
    return host.split(":", 1)[0].lower()


def _join(host: str, path: str) -> str | None:
    path = path.strip().strip("/")
    if path.endswith(".git"):
        path = path[:-4]
    path = path.rstrip("/")
    if not host or not path:
        return None
    return f"{host}/{path}"


def _local(path: str, base: Path | None) -> str | None:
    place = Path(path).expanduser()
    if not place.is_absolute():
        if base is None:
            return None
        place = base / place
    try:
        place = place.resolve()
    except OSError:
        return None
    text = str(place)
    if text.endswith("/.git"):
        text = text[:-5]
    elif text.endswith(".git") and len(text) > 5:
        text = text[:-4]
    return text


# -- the store: folder-keyed scopes moved to identities; where each repository lives here ----


def rekey(con: Any) -> int:
    """Move scopes keyed by a folder that now has a remote to its identity (and remember the
    folder). Returns how many scopes moved. Idempotent; run in a transaction by the caller."""
    moved = 0
    for (key,) in con.execute("SELECT DISTINCT repo FROM scopes WHERE repo LIKE '/%'").fetchall():
        key = str(key)
        try:
            if not Path(key).is_dir():
                continue
        except OSError:
            continue
        ident = identity(key)
        if ident == key:
            continue
        moved += con.execute("UPDATE scopes SET repo = ? WHERE repo = ?", [ident, key]).fetchone()[0]
        remember(con, ident, key)
    return moved


def remember(con: Any, repo: str, folder: str) -> None:
    """This repository lives (also) in `folder` on this machine."""
    con.execute("DELETE FROM repo_folders WHERE repo = ? AND folder = ?", [repo, folder])
    con.execute("INSERT INTO repo_folders VALUES (?, ?, ?)", [repo, folder, int(time.time() * 1000)])


def folders(con: Any, repo: str) -> list[str]:
    """Where a repository lives on this machine, the latest seen first; the key itself when it
    is a folder (a repository without a remote, or a scope not yet moved). Only folders still
    present. Any folder whose config claims the remote is one of them, so none of them speaks
    for the others on its own (core/repos/staleness.py looks in all of them)."""
    found = [
        str(row[0])
        for row in con.execute(
            "SELECT folder FROM repo_folders WHERE repo = ? ORDER BY seen_ms DESC", [repo]
        ).fetchall()
    ]
    if repo.startswith("/"):
        found.append(repo)
    seen: set[str] = set()
    here: list[str] = []
    for folder in found:
        try:
            if folder not in seen and Path(folder).is_dir():
                here.append(folder)
        except OSError:
            pass
        seen.add(folder)
    return here


def every_folder(con: Any, limit: int = 2000) -> list[str]:
    """Every folder a repository was seen in on this machine, the latest first (at most
    `limit`): backfill matches the CodeBuddy IDE's hashed workspace folders against them."""
    rows = con.execute(
        "SELECT folder, max(seen_ms) AS seen FROM repo_folders GROUP BY folder ORDER BY seen DESC LIMIT ?",
        [limit],
    ).fetchall()
    return [str(row[0]) for row in rows]
