"""Whether this machine can put memory in transparent huge pages the way core/process/native_heap.py
asks for them: THP not switched off, and a kernel with MADV_COLLAPSE (Linux 6.1)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path


def offered() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        enabled = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text(encoding="ascii")
    except OSError:
        return False
    release = tuple(int(x) for x in re.findall(r"\d+", os.uname().release)[:2])
    return "[never]" not in enabled and release >= (6, 1)
