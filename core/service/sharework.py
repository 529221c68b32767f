"""The repository's shared facts file read when a session starts there and it changed.

In the hook's path only a stat: the file's (mtime, size) against the last seen; a change (or
the first session of a repository in this service's life) reads it on a thread of its own,
through the operation table, so the index and the hooks' texts follow as after any write."""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING

from .. import optable, sharing

if TYPE_CHECKING:
    from .context import ServiceContext

log = logging.getLogger(__name__)

_seen: dict[str, tuple[int, int]] = {}  # folder -> the facts file's (mtime_ns, size) when last read
_lock = threading.Lock()
MAX_FOLDERS = 512


def want(ctx: ServiceContext, folder: str | None) -> threading.Thread | None:
    """A session started in `folder`: read its facts file if it changed. Returns the reader's
    thread (tests join it), None when there is nothing to read."""
    if not folder:
        return None
    try:
        stat = os.stat(sharing.path_in(folder))
    except OSError:
        return None
    stamp = (stat.st_mtime_ns, stat.st_size)
    with _lock:
        if _seen.get(folder) == stamp:
            return None
        if len(_seen) >= MAX_FOLDERS:
            _seen.clear()
        _seen[folder] = stamp

    def work() -> None:
        try:
            report = optable.dispatch(ctx, "share_read", {"cwd": folder})
            if report.get("problem"):
                log.warning("%s", report["problem"])
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

    thread = threading.Thread(target=work, name="memevo-shared-facts", daemon=True)
    thread.start()
    return thread
