"""The resident processes keep glibc to two malloc arenas (core/native_heap.py): each thread
that allocates otherwise gets an arena of its own, and what it freed stays scattered there."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")

# Six threads each allocate once (a new thread's first malloc takes a new arena while under the
# limit), then glibc's malloc_stats() names every arena on stderr.
_PROBE = """
import ctypes, sys, threading
from memevo.core import native_heap
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
    probe = "from memevo.core import native_heap; print(native_heap.limit_arenas())"
    for env in ({"MALLOC_ARENA_MAX": "4"}, {"GLIBC_TUNABLES": "glibc.malloc.arena_max=3"}):
        out = subprocess.run(
            [sys.executable, "-c", probe], env=os.environ | env, capture_output=True, text=True
        )
        assert out.stdout.strip() == "False", (env, out.stderr)
