"""glibc's malloc, as the resident processes (the service, the tray) want it.

glibc gives each thread that allocates an arena of its own, up to eight per core: the service's
request threads, onnxruntime's pool, DuckDB's threads and the loaders each kept theirs, with
what they freed scattered in them where `malloc_trim` cannot return it. Two arenas keep the
service lighter at rest after the bench's bursts (`memevo bench --json`: service_rss_mb);
Python's own small objects never reach malloc's locks (they use its own
allocator, under the GIL), so the contention this adds is onnxruntime's and DuckDB's few large
buffers.
The loaded model's weights (read whole on every encode) are put in huge pages: in 4 KB pages an
encode walks tens of thousands of page-table entries, which a pause between prompts lets other
work push out of the caches (`memevo bench --json`: encode_ms, encoder_huge_pages_mb).
Elsewhere (macOS, Windows, musl, kernels before 6.1) these do nothing.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Any

from .. import envvars

ARENAS = 2
_M_ARENA_MAX = -8  # malloc.h
# The default model's largest weight block is a feed-forward layer as onnxruntime packs it (a
# few MB): a threshold above it puts all its layers in the heaps
WEIGHT_BLOCKS = 4 << 20
_THP_SIZE = "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"
_MADV_COLLAPSE = 25  # Linux 6.1
# The longest a model's load waits for its weights to go into huge pages (usually far less;
# `memevo bench --json`: service_ready_s)
COLLAPSE_BUDGET_S = 1.0


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL("libc.so.6", use_errno=True)  # errno: why a madvise failed


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


def keep_blocks_in_heaps(up_to: int = WEIGHT_BLOCKS) -> bool:
    """From now on glibc serves blocks of up to `up_to` bytes from its heaps, not each from a
    mapping of its own: a model's weights then lie side by side in an arena's heaps (aligned
    to 64 MB) instead of scattered over dozens of unaligned mappings, where a third of them
    fits no huge page.

    glibc raises its mmap threshold by itself whenever a mapped block larger than it (and under
    32 MB) is freed (mallopt(3), M_MMAP_THRESHOLD); freeing one of `up_to` takes it there at
    once, and glibc goes on adjusting it as before (mallopt would fix it for good). Raised to
    the 32 MB ceiling instead, the tray at rest was larger now and then (`memevo bench --json`:
    tray_rss_mb): a pool-sized block freed into a heap stayed there."""
    if not _wanted():
        return False
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        libc = _libc()
        libc.malloc.restype = ctypes.c_void_p
        libc.malloc.argtypes = [ctypes.c_size_t]
        libc.free.argtypes = [ctypes.c_void_p]
        libc.free(libc.malloc(up_to))
        return True
    return False


def _read_huge_page() -> int:
    """The kernel's transparent huge page: 2 MB with 4 KB pages (x86-64, most arm64), larger
    with larger base pages."""
    try:
        with open(_THP_SIZE, encoding="ascii") as size:
            return int(size.read())
    except (OSError, ValueError):
        return 2 << 20


HUGE_PAGE = _read_huge_page() if sys.platform.startswith("linux") else 2 << 20
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def whole_resident_blocks() -> frozenset[int]:
    """Every huge-page-aligned block of this process's private anonymous memory whose pages are
    all present and its own (not swapped, not shared with a fork, not the zero page): what a
    collapse into a huge page can take without making anything resident that was not."""
    if not _wanted():
        return frozenset()
    try:
        import numpy as np

        found: set[int] = set()
        with (
            open("/proc/self/maps", encoding="ascii") as maps,
            open("/proc/self/pagemap", "rb", buffering=0) as pagemap,
        ):
            for line in maps:
                fields = line.split()
                if fields[1] != "rw-p" or fields[4] != "0" or fields[5:] not in ([], ["[heap]"]):
                    continue
                start, end = (int(x, 16) for x in fields[0].split("-"))
                start, end = -(-start // HUGE_PAGE) * HUGE_PAGE, end // HUGE_PAGE * HUGE_PAGE
                if end <= start:
                    continue
                pagemap.seek(start // _PAGE * 8)
                raw = pagemap.read((end - start) // _PAGE * 8)
                entries = np.frombuffer(raw, dtype=np.uint64)
                per_block = HUGE_PAGE // _PAGE
                entries = entries[: entries.size // per_block * per_block].reshape(-1, per_block)
                # bit 63: present; bit 56: mapped by this process alone
                owned = np.uint64((1 << 63) | (1 << 56))
                whole = ((entries & owned) == owned).all(axis=1)
                found.update(start + int(i) * HUGE_PAGE for i in np.flatnonzero(whole))
        return frozenset(found)
    except (OSError, ValueError, IndexError):  # no /proc (a sandbox), or a mapping went away
        return frozenset()


def collapse(blocks: frozenset[int], budget_s: float = COLLAPSE_BUDGET_S) -> int:
    """Each block into one huge page (MADV_COLLAPSE, synchronous: the kernel copies it into a
    huge page it allocates, without waiting for khugepaged); the bytes that made it. Nothing
    where the kernel has no MADV_COLLAPSE or huge pages are off ("never"). A block at a time,
    until `budget_s` is spent: where memory is short the kernel reclaims and compacts to find
    each huge page, and what the budget leaves stays in small pages."""
    if not blocks or not _wanted():
        return 0
    done = 0
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        libc = _libc()
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        deadline = time.monotonic() + budget_s
        for block in sorted(blocks):
            if libc.madvise(block, HUGE_PAGE, _MADV_COLLAPSE) == 0:
                done += HUGE_PAGE
            elif ctypes.get_errno() == 22:  # EINVAL: no MADV_COLLAPSE here, or THP "never"
                break
            if time.monotonic() > deadline:
                break
    return done


class NewMemoryInHugePages:
    """What a load makes resident, put in huge pages once it is done:

    huge = NewMemoryInHugePages()   # before the load
    ... load ...
    huge.collapse()                 # the blocks the load filled, each one huge page
    """

    def __init__(self) -> None:
        keep_blocks_in_heaps()
        self.before = whole_resident_blocks()

    def collapse(self) -> int:
        return collapse(whole_resident_blocks() - self.before)


def _wanted() -> bool:
    return sys.platform.startswith("linux") and envvars.HUGE_PAGES.get() != "0"
