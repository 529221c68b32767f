"""A long day against the tray app: 5,000 prompt hooks (50 of them real hook processes, the rest the
hook's own relay request from four threads) and writes among them, offscreen, over a 10k-memory
pool, after a warm-up the same way; the tray's RSS after stays within 10% of before (cli/soak.py).
The suite runs a shorter day (600 prompts after 300 to warm up, 10 of them real hook processes, 20
writes; a 100-prompt warm-up left the four lanes' working set short of its steady size: +8.6-10.7%
against +1.3% after 300, the tray's heaps trimmed alike; the full one took 251 s of the suite's wall
on one worker); `memevo bench` runs the whole day's 5,000 prompts and 500 writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from memevo.cli import soak


@pytest.mark.slow
def test_the_tray_stays_light_over_thousands_of_hooks_and_writes(
    isolated_home: Path, provisioned_model: Any
) -> None:
    figures = soak.soak(prompts=600, writes=20, real_hooks=10, warmup=300)
    assert figures["soak_real_hooks"] == 10
    assert figures["soak_recalled"] >= 0.95 * figures["soak_prompts"], figures  # each really recalled
    assert figures["soak_memories_after"] >= 10_000 + 20, figures  # the writes were written
    growth = figures["soak_rss_after_mb"] / figures["soak_rss_before_mb"] - 1
    assert growth <= soak.GROWTH_BUDGET_PCT / 100, figures
