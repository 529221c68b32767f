"""The operations of a repository's shared facts file (core/sharing.py): what `memevo share`
would offer, writing it, and reading it (the service reads it at session start when it
changed). The caller names a folder inside the repository; its identity and top-level folder
are found here."""

from __future__ import annotations

from typing import Any

from . import scopes, sharing
from .errors import InvalidInput
from .optable import Context, operation


def _where(cwd: Any) -> tuple[str, str]:
    if not isinstance(cwd, str):
        raise InvalidInput("cwd must be a folder inside the repository")
    folder, repo = scopes.folder_of(cwd), scopes.repo_of(cwd)
    if folder is None or repo is None:
        raise InvalidInput(f"{cwd[:200]!r} is not a usable folder")
    from pathlib import Path

    if not (Path(folder) / ".git").exists():
        raise InvalidInput(
            f"{folder} is not in a git repository (no .git in it or above it); nothing changed"
        )
    return repo, folder


def _ids(ids: Any) -> list[str]:
    if ids is None:
        return []
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise InvalidInput("ids must be a list of memory ids")
    return ids


@operation("share_status", writes=True, reload_all=True)
def op_share_status(ctx: Context, cwd: str) -> dict[str, Any]:
    """The repository's file read first (it may have changed), then what could be shared."""
    repo, folder = _where(cwd)
    read = sharing.apply(ctx.writer(), repo, folder, ctx.clock)
    return sharing.status(ctx.writer(), repo) | {"read": read, "file": str(sharing.path_in(folder))}


@operation("share", writes=True, reload_all=True)
def op_share(
    ctx: Context,
    cwd: str,
    ids: list[str] | None = None,
    all: bool = False,
    pending: bool = False,
    dry_run: bool = False,
) -> dict[str, Any]:
    repo, folder = _where(cwd)
    return sharing.share(
        ctx.writer(), repo, folder, ctx.clock, _ids(ids), bool(all), bool(pending), bool(dry_run)
    )


@operation("share_read", writes=True, reload_all=True)
def op_share_read(ctx: Context, cwd: str, force: bool = False) -> dict[str, Any]:
    """Read the repository's facts file into the store now (the service does at session start)."""
    repo, folder = _where(cwd)
    return sharing.apply(ctx.writer(), repo, folder, ctx.clock, bool(force))


@operation("sync", writes=True, reload_all=True)
def op_sync(ctx: Context, remote: str | None = None) -> dict[str, Any]:
    """Sync this machine's memories with the git remote (`remote` the first time; see
    core/syncgit.py). Only memory records leave the machine."""
    from . import syncgit

    if remote is not None and not isinstance(remote, str):
        raise InvalidInput("remote must be a git URL or path")
    return syncgit.sync(ctx.writer(), ctx.clock, remote).as_json()


@operation("sync_conflicts")
def op_sync_conflicts(ctx: Context) -> dict[str, Any]:
    from . import syncgit

    return {"conflicts": syncgit.conflicts()}
