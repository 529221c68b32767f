"""glibc's malloc, as the resident processes (the service, the tray) want it.

glibc gives each thread that allocates an arena of its own, up to eight per core: the service's
request threads, onnxruntime's pool, DuckDB's threads and the loaders each kept theirs, with
what they freed scattered in them where `malloc_trim` cannot return it. Two arenas keep the
service ~10 MB lighter at rest after the bench's bursts (docs/performance.md, "the service at
rest under 250 MB"); Python's own small objects never reach malloc's locks (they use its own
allocator, under the GIL), so the contention this adds is onnxruntime's and DuckDB's few large
buffers.
Elsewhere (macOS, Windows, musl) these do nothing.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

ARENAS = 2
_M_ARENA_MAX = -8  # malloc.h


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL("libc.so.6")


def limit_arenas(arenas: int = ARENAS) -> bool:
    """At most `arenas` arenas from now on; call before the process starts its threads (glibc
    fixes the limit when the ninth arena would be made). A MALLOC_ARENA_MAX or GLIBC_TUNABLES
    the user set wins. True when the limit was set here."""
    if not sys.platform.startswith("linux") or "MALLOC_ARENA_MAX" in os.environ:
        return False
    if "glibc.malloc.arena_max" in os.environ.get("GLIBC_TUNABLES", ""):
        return False
    with contextlib.suppress(OSError, AttributeError):
        return bool(_libc().mallopt(_M_ARENA_MAX, arenas))
    return False


def trim() -> None:
    """Give back to the system what the heaps hold free (every arena's)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            _libc().malloc_trim(0)
