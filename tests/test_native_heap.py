"""The resident processes keep glibc to two malloc arenas (core/process/native_heap.py): each thread
that allocates otherwise gets an arena of its own, and what it freed stays scattered there."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import hugepages
import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")

# Six threads each allocate once (a new thread's first malloc takes a new arena while under the
# limit), then glibc's malloc_stats() names every arena on stderr.
_PROBE = """
import ctypes, sys, threading
from memevo.core.process import native_heap
if sys.argv[1] == "limit":
    assert native_heap.limit_arenas()
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
go = threading.Barrier(6)
def allocate():
    go.wait()
    libc.free(libc.malloc(4096))
threads = [threading.Thread(target=allocate) for _ in range(6)]
for t in threads: t.start()
for t in threads: t.join()
libc.malloc_stats()
"""


def _arenas(mode: str, **env: str) -> int:
    environ = {k: v for k, v in os.environ.items() if k not in ("MALLOC_ARENA_MAX", "GLIBC_TUNABLES")}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, mode], env=environ | env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return sum(line.startswith("Arena ") for line in done.stderr.splitlines())


def test_two_arenas_whatever_the_threads() -> None:
    assert _arenas("free") > 2  # the probe does make arenas: without the limit, one per thread
    assert 1 <= _arenas("limit") <= 2


def test_the_users_own_setting_wins() -> None:
    assert _arenas("free", MALLOC_ARENA_MAX="4") <= 4
    probe = "from memevo.core.process import native_heap; print(native_heap.limit_arenas())"
    for env in ({"MALLOC_ARENA_MAX": "4"}, {"GLIBC_TUNABLES": "glibc.malloc.arena_max=3"}):
        out = subprocess.run(
            [sys.executable, "-c", probe], env=os.environ | env, capture_output=True, text=True
        )
        assert out.stdout.strip() == "False", (env, out.stderr)


_MAPPED = """
import ctypes, sys
from memevo.core.process import native_heap
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
def mapped(size):  # glibc marks a block served by a mapping of its own (IS_MMAPPED) in its header
    return bool(ctypes.c_size_t.from_address(libc.malloc(size) - 8).value & 2)
before = mapped(3 << 20)
print(before, native_heap.keep_blocks_in_heaps(), mapped(3 << 20), mapped(4 << 20), mapped(16 << 20))
"""


def _probe(script: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script], env=os.environ | env, capture_output=True, text=True, timeout=60
    )


def test_once_raised_glibc_serves_blocks_of_a_models_weights_from_its_heaps() -> None:
    done = _probe(_MAPPED)
    assert done.returncode == 0, done.stderr
    # a fresh process maps 3 MB of its own; after the raise 3 and 4 MB come from the heaps, and
    # a block the size of a 10k pool (15 MB) is still a mapping of its own, given back when freed
    assert done.stdout.split() == ["True", "True", "False", "False", "True"]
    off = _probe(_MAPPED, MEMEVO_HUGE_PAGES="0")
    assert off.stdout.split() == ["True", "False", "True", "True", "True"], off.stderr


# 64 MB written in 4 MB blocks between others that are freed again (as a model's load frees its
# staging copies), then collapsed: the RSS before and after, the huge pages, every block's
# contents after. Through malloc, as onnxruntime allocates (numpy asks for huge pages itself).
_COLLAPSE = """
import ctypes, json
from memevo.core.process import native_heap
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
huge = native_heap.NewMemoryInHugePages()
size, kept, staging = 4 << 20, [], []
for i in range(16):
    kept.append(libc.malloc(size))
    ctypes.memset(kept[-1], i + 1, size)
    staging.append(libc.malloc(1200 << 10))
    ctypes.memset(staging[-1], 255, 1200 << 10)
for block in staging:
    libc.free(block)
native_heap.trim()
rss = status("VmRSS")
done = huge.collapse()
grew = status("VmRSS") - rss
huge_kb = sum(int(l.split()[1]) for l in open("/proc/self/smaps") if l.startswith("AnonHugePages:"))
same = all(ctypes.string_at(a, size) == bytes([i + 1]) * size for i, a in enumerate(kept))
H = native_heap.HUGE_PAGE
inside = sum(((a + size) // H - -(-a // H)) * H for a in kept)
print(json.dumps({"done": done, "huge": huge_kb * 1024, "grew": grew, "same": same, "inside": inside}))
"""


@pytest.mark.skipif(not hugepages.offered(), reason="no transparent huge pages or MADV_COLLAPSE here")
def test_what_a_load_made_resident_goes_into_huge_pages_and_nothing_more_becomes_resident() -> None:
    done = _probe(_COLLAPSE)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["same"]
    # every aligned 2 MB within what was kept (the freed staging between them is not resident)
    assert seen["done"] >= seen["inside"] >= 16 << 20
    assert seen["huge"] >= seen["done"]
    off = _probe(_COLLAPSE, MEMEVO_HUGE_PAGES="0")
    unchanged = json.loads(off.stdout)
    assert unchanged["done"] == 0 and unchanged["huge"] == 0, off.stderr
    # what the collapse adds to the RSS beyond reading the page map: not one half-filled 2 MB
    assert seen["grew"] - unchanged["grew"] <= 512 << 10, (seen, unchanged)


_BUDGET = """
import ctypes
from memevo.core.process import native_heap
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
before = native_heap.whole_resident_blocks()
block = libc.malloc(24 << 20)
ctypes.memset(block, 7, 24 << 20)
new = native_heap.whole_resident_blocks() - before
print(len(new), native_heap.collapse(new, budget_s=0) // native_heap.HUGE_PAGE)
"""


@pytest.mark.skipif(not hugepages.offered(), reason="no transparent huge pages or MADV_COLLAPSE here")
def test_the_collapse_stops_when_its_time_is_spent() -> None:
    """Where memory is short each huge page costs reclaim: a load waits at most the budget."""
    done = _probe(_BUDGET)
    assert done.returncode == 0, done.stderr
    blocks, collapsed = (int(x) for x in done.stdout.split())
    assert blocks >= 10 and collapsed == 1  # the first block, then the spent budget
