"""The groups reach pytest-xdist: under `--dist loadgroup` (what tests/setup-and-test.sh runs)
each module's tests run on one worker — its module-scoped services start once — every keyring
test on one, and the quiet tests together. The marks are added by conftest's
pytest_collection_modifyitems; called after pytest-xdist's own hook (as it was until this test
existed) they reached no scheduler and every module was spread over both workers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from deadlines import HANG_S

TESTS = Path(__file__).resolve().parent
# Modules with several tests, one with a quiet test among them.
PYTEST = (
    sys.executable,
    "-m",
    "pytest",
    "-n",
    "2",
    "--dist",
    "loadgroup",
    "--no-loadscope-reorder",
    "-v",
    "-p",
    "no:cacheprovider",
)
MODULES = ("test_config.py", "test_redaction.py", "test_hook_failures.py")


def test_each_module_runs_on_one_worker_and_the_quiet_tests_last() -> None:
    done = subprocess.run(
        [*PYTEST, "-m", "not keyring", *(str(TESTS / name) for name in MODULES)],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        cwd=TESTS.parent,
        env=os.environ | {"MEMEVO_TEST_PROFILE": ""},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    workers: dict[str, set[str]] = defaultdict(set)
    ran: dict[str, list[str]] = defaultdict(list)  # worker: its groups, in the order it ran them
    for worker, nodeid in re.findall(r"^\[(gw\d+)\] \[\s*\d+%\] PASSED (.+?)\s*$", done.stdout, re.M):
        group = nodeid.rsplit("@", 1)[-1] if "@" in nodeid else "(none)"
        workers[group].add(worker)
        ran[worker].append(group)
    assert set(workers) >= {*MODULES, "quiet"} - {"test_hook_failures.py"}, dict(workers)
    assert all(len(ran_on) == 1 for ran_on in workers.values()), dict(workers)
    # the quiet group is handed out last (collection order), and its tests run one after another
    [quiet_worker] = workers["quiet"]
    groups = ran[quiet_worker]
    assert groups[groups.index("quiet") :] == ["quiet"] * groups.count("quiet"), groups


@pytest.fixture(scope="module")
def keyring_seen_by_a_module_fixture() -> str | None:
    """What a module's service would be started with: module fixtures run before any test's own."""
    return os.environ.get("PYTHON_KEYRING_BACKEND")


def test_a_module_fixtures_processes_meet_no_keyring(keyring_seen_by_a_module_fixture: str | None) -> None:
    """Only tests marked `keyring` reach the test keyring; a service a module fixture starts
    (before the test's own fixtures block the keyring) meets none either — a key another test
    left in the test keyring once turned a later module's services to side-mode learning."""
    assert keyring_seen_by_a_module_fixture == "keyring.backends.fail.Keyring"
