"""`memevo bench`'s hook figures: the spread it reports and the CPU load it puts beside them."""

from __future__ import annotations

import sys

import pytest
from memevo.cli.bench import hooks, measure


def test_hook_figures_report_min_median_p95_max() -> None:
    figure = measure.spread([float(i) for i in range(100, 0, -1)])
    assert figure == {"min": 1.0, "median": 50.5, "p95": 95.0, "max": 100.0}
    assert measure.spread([7.0]) == {"min": 7.0, "median": 7.0, "p95": 7.0, "max": 7.0}


def test_the_cpu_load_is_stopped_however_the_block_ends() -> None:
    with pytest.raises(KeyboardInterrupt), hooks.cpu_load(sys.executable, processes=2) as busy:
        assert len(busy) == 2 and all(p.poll() is None for p in busy)  # running
        raise KeyboardInterrupt  # Ctrl-C in the middle of the figure
    assert all(p.returncode is not None for p in busy)


def test_the_cpu_load_ends_by_itself_if_bench_is_killed() -> None:
    with hooks.cpu_load(sys.executable, processes=1, limit_s=0.5) as busy:
        assert busy[0].wait(10) == 0  # its own limit, without being stopped


def test_concurrent_hooks_are_each_timed() -> None:
    samples = hooks.concurrent_samples([sys.executable, "-c", "pass"], b"", {}, rounds=2, width=3)
    assert len(samples) == 6 and all(s > 0 for s in samples)
