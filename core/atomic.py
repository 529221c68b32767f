"""Atomic file writes: a reader sees the old file or the new one, never half of either."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

_BUFFER = 1 << 16  # pieces as small as a table row reach the file 64 KB at a time


def write_bytes(path: Path, data: bytes, mode: int | None = None) -> None:
    write_chunks(path, (data,), mode)


def write_chunks(path: Path, chunks: Iterable[bytes], mode: int | None = None) -> None:
    """As write_bytes, the content given in pieces and written as they come, so that the whole
    is never in memory at once (memories.html over 10k memories). Should the pieces fail
    midway, the file is left as it was."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb", buffering=_BUFFER) as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp_name, mode)
        elif path.exists():
            os.chmod(tmp_name, path.stat().st_mode & 0o777)
        else:
            os.chmod(tmp_name, 0o644 & ~_umask())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


def write_text(path: Path, text: str, mode: int | None = None) -> None:
    write_bytes(path, text.encode("utf-8"), mode)


def _umask() -> int:
    """The process's umask, read without changing it: os.umask(0) to peek would leave a window
    in which another thread's new file is world-writable."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o077  # memevo's entry points set this umask (paths.user_only)
