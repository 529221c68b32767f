"""The operations of a repository's shared facts file (core/sharing/facts.py): what `memevo share`
would offer, writing it, reading it (the service reads it at session start when it changed),
and the user's trust in its content: the review, trusting it, forgetting the trust. The caller
names a folder inside the repository; its identity and top-level folder are found here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..memories import scopes
from ..ops.table import Context, operation
from . import facts as sharing
from . import trust as sharetrust
from . import write as sharewrite


def _where(cwd: Any) -> tuple[str, str]:
    if not isinstance(cwd, str):
        raise InvalidInput("cwd must be a folder inside the repository")
    folder, repo = scopes.folder_of(cwd), scopes.repo_of(cwd)
    if folder is None or repo is None:
        raise InvalidInput(f"{cwd[:200]!r} is not a usable folder")
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
    """The repository's file read first (it may have changed; not read while it waits for the
    user's review), then what could be shared."""
    repo, folder = _where(cwd)
    read = sharing.apply(ctx.writer(), repo, folder, ctx.clock)
    return sharewrite.status(ctx.writer(), repo, folder) | {
        "read": read,
        "file": str(sharing.path_in(folder)),
    }


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
    return sharewrite.share(
        ctx.writer(), repo, folder, ctx.clock, _ids(ids), bool(all), bool(pending), bool(dry_run)
    )


@operation("share_read", writes=True, reload_all=True)
def op_share_read(ctx: Context, cwd: str, force: bool = False) -> dict[str, Any]:
    """Read the repository's facts file into the store now, if the user trusts its content
    (the service does at session start); else it is recorded as waiting for review."""
    repo, folder = _where(cwd)
    return sharing.apply(ctx.writer(), repo, folder, ctx.clock, bool(force))


@operation("share_review")
def op_share_review(ctx: Context, cwd: str) -> dict[str, Any]:
    """The file's facts, and what changed since the content last read here: what trusting it
    would read. Reads nothing into the store."""
    repo, folder = _where(cwd)
    return sharetrust.review(ctx.writer(), repo, folder)


@operation("share_trust", writes=True, reload_all=True)
def op_share_trust(ctx: Context, cwd: str, sha: str | None = None) -> dict[str, Any]:
    """Trust the file's content (sha: what the user was shown; refused if it changed since)
    and read it now."""
    if sha is not None and not isinstance(sha, str):
        raise InvalidInput("sha must be the content hash the review showed")
    repo, folder = _where(cwd)
    return sharetrust.trust(ctx.writer(), repo, folder, ctx.clock, sha)


@operation("share_decline", writes=True)
def op_share_decline(ctx: Context, cwd: str, sha: str) -> dict[str, Any]:
    """The user was shown the file (sha) and said no: not read, not announced again."""
    if not isinstance(sha, str):
        raise InvalidInput("sha must be the content hash the review showed")
    repo, folder = _where(cwd)
    return sharetrust.decline(ctx.writer(), repo, folder, ctx.clock, sha)


@operation("share_untrust", writes=True)
def op_share_untrust(ctx: Context, cwd: str) -> dict[str, Any]:
    """Forget the trust of the repository's file (every folder of it); its facts stay."""
    repo, _ = _where(cwd)
    return sharetrust.untrust(ctx.writer(), repo)


@operation("share_waiting")
def op_share_waiting(ctx: Context) -> dict[str, Any]:
    """Every repository folder whose facts file waits for the user's review."""
    store = ctx.reader()
    return {"waiting": sharetrust.waiting(store) if store is not None else []}


@operation("share_overview")
def op_share_overview(ctx: Context, cwd: str | None = None) -> dict[str, Any]:
    """Every repository folder memevo knows (and `cwd`'s, when given): its facts file's state,
    its facts, local changes not yet written, teammates' edits; and every file refused, with
    its remedy (core/sharing/overview.py). Reads nothing into the store."""
    from . import overview

    extra = [_where(cwd)] if cwd is not None else []
    store = ctx.reader()
    if store is None:
        return {"repositories": [], "problems": []}
    return {"repositories": overview.overview(store, extra), "problems": overview.problems(store)}


@operation("sync", writes=True, reload_all=True)
def op_sync(ctx: Context, remote: str | None = None) -> dict[str, Any]:
    """Sync this machine's memories with the git remote (`remote` the first time; see
    core/sync/remote.py). Only memory records leave the machine."""
    from ..sync import remote as syncgit

    if remote is not None and not isinstance(remote, str):
        raise InvalidInput("remote must be a git URL or path")
    return syncgit.sync(ctx.writer(), ctx.clock, remote).as_json()


@operation("sync_conflicts")
def op_sync_conflicts(ctx: Context) -> dict[str, Any]:
    from ..sync import remote as syncgit

    return {"conflicts": syncgit.conflicts()}
