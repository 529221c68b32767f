"""The repository's shared facts file read when a session starts there (or a prompt comes) and
it changed.

In the hook's path only a stat: the file's (mtime, size) against the last seen; a change (or
the first session of a repository in this service's life) reads it on a thread of its own,
through the operation table, so the index and the hooks' texts follow as after any write. Only
content the user trusts is read (core/sharing/facts.py); other content is recorded as waiting for
review and logged once per content.

The first hook request this service answers also reads every other folder whose file the user
trusts, if it changed: a session start answered from the cache while the service was starting
never reached it, and a pull while no service ran would otherwise wait for a session there.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from typing import TYPE_CHECKING, Any

from ..ops import table as optable
from ..sharing import facts as sharing
from ..sharing import trust as sharetrust

if TYPE_CHECKING:
    from .context import ServiceContext

log = logging.getLogger(__name__)

_seen: dict[str, tuple[int, int]] = {}  # folder -> the facts file's (mtime_ns, size) when last read
_lock = threading.Lock()
_swept: dict[int, weakref.ref[Any]] = {}  # the contexts whose trusted folders were read (by id)
MAX_FOLDERS = 512
# folder -> the content of its file that waits for review, not yet said in a chat there: the
# next prompt there says it, once per content (a user with no tray, or who missed its
# notification, hears it where they work); a content the user declined is not said
_unsaid: dict[str, str] = {}
_said: set[tuple[str, str]] = set()
# folder -> the refusal of its facts file (the message names the file and line) and its remedy,
# as the last read here found it: the service's status, Status and the tray's icon say it
# (never a store read on the tray's UI thread); `note_problems` sets them all from the store
_problems: dict[str, dict[str, str]] = {}
WAITING_NOTE = (
    "memory-self-evolution：这个仓库的共享事实文件 .memevo/facts.md 有还没审阅的内容，插件没有读入它"
    "（仓库里的文件要用户看过并信任后才会当作记忆）。请告诉用户：在这个仓库里运行 `memevo share --review`，"
    "看过内容后再决定是否信任；不要替用户运行。"
)


def want(ctx: ServiceContext, folder: str | None) -> threading.Thread | None:
    """A session started in `folder`: read its facts file if it changed (and, the first time,
    every trusted folder's). Returns the reader's thread (tests join it), None when there is
    nothing to read."""
    folders = [folder] if folder and _changed(folder) else []
    with _lock:
        kept = _swept.get(id(ctx))
        first = kept is None or kept() is not ctx
        if first:
            for dead in [key for key, ref in _swept.items() if ref() is None]:
                del _swept[dead]
            _swept[id(ctx)] = weakref.ref(ctx)
    if not folders and not first:
        return None

    def work() -> None:
        todo = list(folders)
        if first:
            try:
                store = ctx.reader()
                known = sharetrust.trusted_folders(store) if store is not None else []
            except Exception:
                log.warning("could not list the repositories whose facts files you trust", exc_info=True)
                known = []
            todo += [f for f in known if f not in todo and _changed(f)]
        for each in todo:
            _read(ctx, each)

    thread = threading.Thread(target=work, name="memevo-shared-facts", daemon=True)
    thread.start()
    return thread


def _changed(folder: str) -> bool:
    """The folder's facts file differs from when it was last read (a stat), and is claimed."""
    try:
        stat = os.stat(sharing.path_in(folder))
    except OSError:
        return False
    stamp = (stat.st_mtime_ns, stat.st_size)
    with _lock:
        if _seen.get(folder) == stamp:
            return False
        if len(_seen) >= MAX_FOLDERS:
            _seen.clear()
        _seen[folder] = stamp
    return True


def _read(ctx: ServiceContext, folder: str) -> None:
    try:
        report = optable.dispatch(ctx, "share_read", {"cwd": folder})
        _note(folder, report.get("repo"), report.get("problem"))
        if report.get("problem"):
            log.warning("%s", report["problem"])
        elif report.get("review"):
            if report["review"].get("new"):  # once per content: the store remembers it waits
                log.warning("%s", sharetrust.review_note(folder))
            _to_say(ctx, folder, str(report["review"].get("sha")))
        elif not report.get("unchanged"):
            log.info(
                "read %s: %d new, %d changed, %d retired",
                sharing.FILE,
                len(report["created"]),
                len(report["updated"]),
                len(report["deleted"]),
            )
    except Exception:
        with _lock:
            _seen.pop(folder, None)  # tried again at the next session start
        log.warning("could not read the shared facts of %s", folder, exc_info=True)


def _to_say(ctx: ServiceContext, folder: str, sha: str) -> None:
    store = ctx.reader()
    waiting = sharetrust.waiting(store) if store is not None else []
    if not any(w["folder"] == folder and w["sha"] == sha for w in waiting):
        return  # declined, or trusted meanwhile
    with _lock:
        if (folder, sha) in _said:
            return
        if len(_unsaid) >= MAX_FOLDERS:
            _unsaid.clear()
        _unsaid[folder] = sha


def waiting_note(folder: str | None) -> str | None:
    """Once per waiting content: the note for the chat's model and its user that this folder's
    facts file waits for review (never its facts: they are not trusted), then None."""
    if not folder:
        return None
    with _lock:
        sha = _unsaid.pop(folder, None)
        if sha is None:
            return None
        if len(_said) >= MAX_FOLDERS:
            _said.clear()
        _said.add((folder, sha))
    return WAITING_NOTE


def _note(folder: str, repo: Any, problem: Any) -> None:
    from ..sharing import overview

    with _lock:
        if not problem:
            _problems.pop(folder, None)
            return
        if len(_problems) >= MAX_FOLDERS:
            _problems.clear()
        _problems[folder] = {
            "repo": str(repo or folder),
            "folder": folder,
            "file": str(sharing.path_in(folder)),
            "problem": str(problem),
            "remedy": overview.remedy(str(problem)),
        }


def note_problems(found: list[dict[str, Any]]) -> None:
    """Every refused facts file as the store records it now (read on a worker: the tray's
    periodic check, the panel's Sharing tab), replacing what the service's own reads noted."""
    with _lock:
        _problems.clear()
        for entry in found[:MAX_FOLDERS]:
            _problems[str(entry["folder"])] = {k: str(v) for k, v in entry.items()}


def problems() -> list[dict[str, str]]:
    """The facts files memevo refused to read, each with its remedy: no store read."""
    with _lock:
        return [dict(entry) for _, entry in sorted(_problems.items())]
