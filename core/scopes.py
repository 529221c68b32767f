"""Where a memory applies: everywhere (global, no row) or in one repository.

A repository is the git top-level of a folder (the nearest parent holding `.git`), else the
folder itself; hooks send the session's `cwd`. Rules stay global unless scoped by hand;
learned project facts belong to the repository they were learned in.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

GLOBAL = "global"


def repo_of(cwd: str | None) -> str | None:
    """The repository of a folder, or None for no (or a relative, or an unusable) folder."""
    if not cwd or not isinstance(cwd, str) or "\x00" in cwd:
        return None
    return _repo(cwd)


@lru_cache(maxsize=256)
def _repo(cwd: str) -> str | None:
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


def name(repo: str | None) -> str:
    """What a person (and the side judge) calls it: the folder's name."""
    return Path(repo).name or repo if repo else GLOBAL


def visible(scope: str | None, repo: str | None) -> bool:
    """Global memories apply everywhere; a scoped one only in its own repository."""
    return scope is None or scope == repo
