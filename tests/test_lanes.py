"""The lanes stay honest: every test module has one, and the quick lane starts no process."""

from __future__ import annotations

import re
from pathlib import Path

import conftest

TESTS = Path(__file__).resolve().parent
# What starting a process looks like in a test module (directly or through the helpers).
STARTS_PROCESSES = re.compile(
    r"\b(subprocess|Popen|servicerun|hookrun|run_cli|run_hook|run_registered|pty\.|os\.fork)\b"
)


def test_every_test_module_has_a_lane() -> None:
    modules = sorted(p.name for p in TESTS.glob("test_*.py"))
    missing = [m for m in modules if m not in conftest.MODULE_LANES]
    assert not missing, f"add these to MODULE_LANES in tests/conftest.py: {missing}"
    gone = sorted(set(conftest.MODULE_LANES) - set(modules))
    assert not gone, f"MODULE_LANES names modules that no longer exist: {gone}"


def test_in_process_modules_start_no_process() -> None:
    """A module in the quick lane (units) that started a process would make the lane slow and
    order-dependent: its source must not reach for one."""
    starting = {
        name: sorted(set(STARTS_PROCESSES.findall((TESTS / name).read_text(encoding="utf-8"))))
        for name, lane in conftest.MODULE_LANES.items()
        if lane == conftest.UNITS and name != "test_lanes.py"
    }
    offenders = {name: found for name, found in starting.items() if found}
    assert not offenders, f"these modules start processes; give them the processes lane: {offenders}"


def test_the_ordered_and_shared_groups_name_real_modules() -> None:
    """A renamed module left in LONGEST_GROUPS or SHARED_GROUPS would silently lose its place."""
    modules = {path.name for path in TESTS.glob("test_*.py")}
    shared = set(conftest.SHARED_GROUPS.values())
    assert set(conftest.SHARED_GROUPS) <= modules
    assert set(conftest.LONGEST_GROUPS) <= modules | shared | {"keyring"}
    assert len(set(conftest.LONGEST_GROUPS)) == len(conftest.LONGEST_GROUPS)
