"""Where a memory applies: everywhere (global, no row) or in one repository.

A repository is the git top-level of a folder (the nearest parent holding `.git`), else the
folder itself; hooks send the session's `cwd`. It is keyed by its identity (core/repos/identity.py): its
normalised remote URL, else its folder — so one project cloned twice has one set of facts.
Rules stay global unless scoped by hand; learned project facts belong to the repository they
were learned in.
"""

from __future__ import annotations

from pathlib import Path

from ..repos import identity as repos

GLOBAL = "global"


def repo_of(cwd: str | None) -> str | None:
    """The repository (its identity) of a folder, or None for no (or a relative, or an
    unusable) folder."""
    folder = repos.folder_of(cwd)
    return repos.identity(folder) if folder else None


def folder_of(cwd: str | None) -> str | None:
    """The repository's folder on this machine (its git top-level), else the folder itself."""
    return repos.folder_of(cwd)


def name(repo: str | None) -> str:
    """What a person (and the side judge) calls it: the folder's (or the remote's) last name."""
    return Path(repo).name or repo if repo else GLOBAL


def visible(scope: str | None, repo: str | None) -> bool:
    """Global memories apply everywhere; a scoped one only in its own repository."""
    return scope is None or scope == repo
