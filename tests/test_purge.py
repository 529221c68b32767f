"""Purge keeps its promise: a compaction cut short is finished by the next opener, memevo's own
page is rewritten (never called the Node tool's), and nothing is purged without a yes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import servicerun
from deadlines import HANG_S
from memevo.core.clock import FakeClock
from memevo.core.memories import html_page as snapshot
from memevo.core.memories import live as memories
from memevo.core.memories import purge
from memevo.core.service import fallback_texts as caches
from memevo.core.store import database as store_mod
from memevo.core.store.database import Store

SECRET = "堡垒机口令 purge-recovery-9137 不要外传"
Run = Callable[..., subprocess.CompletedProcess[str]]


def _files_with(root: Path, needle: str) -> list[str]:
    data = needle.encode("utf-8")
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and data in p.read_bytes())


def _leftovers(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.compact*"))


def _fill(data_dir: Path, clock: FakeClock, n: int = 40) -> str:
    """A store with n ordinary memories and the secret (a rule: it is in the hooks' texts too),
    and memevo's own page and fallback texts written from it."""
    with Store.open() as s:
        for i in range(n):
            memories.create(s, "rule" if i % 2 else "project", f"ordinary memory number {i}", clock)
        gone = memories.create(s, "rule", SECRET, clock)
        snapshot.write(s)
        caches.write(s, False)
        s.checkpoint()
    assert "memories.html" in _files_with(data_dir, SECRET)
    return gone.id


class Killed(BaseException):
    """Stands for a kill -9: nothing after it runs."""


# -- 1. a compaction cut short ---------------------------------------------------------------------------
def test_a_compaction_cut_short_is_finished_by_the_next_read_write_open(
    data_dir: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = _fill(data_dir, clock)
    real_replace = os.replace

    def dies_before_the_swap(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        if Path(dst).name == "memevo.duckdb":
            raise Killed  # the process stops here, its fresh copy written
        real_replace(src, dst, *args, **kwargs)

    s = Store.open()
    monkeypatch.setattr(os, "replace", dies_before_the_swap)
    with pytest.raises(Killed):
        purge.purge(s, gone)
    monkeypatch.setattr(os, "replace", real_replace)
    s.close()
    (data_dir / ".memevo.duckdb.compact").write_bytes(b"the fresh copy, as a kill leaves it")
    assert "memevo.duckdb" in _files_with(data_dir, SECRET)  # the old file still has the text
    with Store.open(read_only=True) as reading:  # a reader does not rewrite the file
        assert reading.get_state(store_mod.COMPACT_PENDING) is not None
    with Store.open() as s:  # the next writer (a command, a service start) finishes it
        assert s.get_state(store_mod.COMPACT_PENDING) is None
        assert len(memories.ranked(s, "rule", limit=None)) == 20
    # the hooks' texts are rewritten by whoever wrote (the service, a command): the test below
    assert [f for f in _files_with(data_dir, SECRET) if not f.startswith("cache/")] == []
    assert _leftovers(data_dir) == []


def test_a_leftover_copy_goes_at_the_next_open_even_with_nothing_pending(
    data_dir: Path, clock: FakeClock
) -> None:
    _fill(data_dir, clock, n=3)
    leftover = data_dir / ".memevo.duckdb.compact"
    leftover.write_bytes(b"every other memory's text")
    (data_dir / ".memevo.duckdb.compact.wal").write_bytes(b"x")
    Store.open().close()
    assert _leftovers(data_dir) == []


PAUSED_SERVE = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path

    real_replace = os.replace

    def replace(src, dst, *args, **kwargs):
        # the purge's compaction: its fresh copy is written; stop here until killed
        if Path(dst).name == "memevo.duckdb":
            Path(sys.argv[1]).write_text("paused")
            time.sleep(600)
        return real_replace(src, dst, *args, **kwargs)

    os.replace = replace
    from memevo.cli.main import main

    raise SystemExit(main(["serve"]))
    """
)


@pytest.mark.usefixtures("provisioned_model")
def test_a_service_killed_during_the_purges_compaction_leaves_no_text_after_the_next_start(
    data_dir: Path, clock: FakeClock, tmp_path: Path
) -> None:
    gone = _fill(data_dir, clock, n=300)
    env = dict(os.environ) | {"MEMEVO_HOME": str(data_dir)}
    for var in ("DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(var, None)
    marker = tmp_path / "compaction-paused"
    serve = subprocess.Popen(
        [sys.executable, "-c", PAUSED_SERVE, str(marker)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    purging: subprocess.Popen[str] | None = None
    try:
        servicerun.wait_for(data_dir, timeout=HANG_S, model=False)
        purging = subprocess.Popen(
            [sys.executable, "-m", "memevo.cli", "purge", gone, "--yes"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert time.monotonic() < deadline, "the purge never reached its compaction"
            assert purging.poll() is None, purging.communicate()
            time.sleep(0.02)
        assert _leftovers(data_dir)  # the fresh copy is there, the old file not yet replaced
        os.kill(serve.pid, signal.SIGKILL)
        serve.wait(10)
        out, err = purging.communicate(timeout=HANG_S)  # it retries through a service started anew
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
        if purging is not None and purging.poll() is None:
            purging.kill()
            purging.wait()
    try:
        assert purging.returncode == 0, out + err
        status = servicerun.wait_for(data_dir, timeout=HANG_S, model=False)
        assert status["pid"] != serve.pid
        assert _files_with(data_dir, SECRET) == []  # the store, its page, the hooks' texts, the logs
        assert _leftovers(data_dir) == []
        listed = subprocess.run(
            [sys.executable, "-m", "memevo.cli", "read", "rule", "--all"],
            env=env,
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.count("ordinary memory number") == 150
        assert gone not in listed.stdout
    finally:
        running = servicerun.ping(data_dir)
        servicerun.stop(data_dir, pid=running["pid"] if running else None)


# -- 2. memevo's own page ----------------------------------------------------------------------------------
def test_purge_rewrites_memevos_own_page_and_names_only_the_node_tools_files(
    data_dir: Path, clock: FakeClock, run_cli: Run
) -> None:
    gone = _fill(data_dir, clock, n=2)
    (data_dir / "rule.jsonl").write_text(f'{{"id": "x", "text": "{SECRET}"}}\n', encoding="utf-8")
    done = run_cli("purge", gone, "--yes", env={"MEMEVO_NO_SERVICE": "1"})
    assert done.returncode == 0, done.stderr
    assert "memories.html" not in done.stdout  # memevo's own page: rewritten, not reported
    assert f"note: the Node tool's file {data_dir / 'rule.jsonl'} still contains" in done.stdout
    page = snapshot.path().read_text(encoding="utf-8")
    assert SECRET not in page
    assert "ordinary memory number 1" in page
    assert _files_with(data_dir, SECRET) == ["rule.jsonl"]


def test_purge_in_process_rewrites_the_page_too(store: Store, clock: FakeClock) -> None:
    keep = memories.create(store, "rule", "stays on the page", clock)
    gone = memories.create(store, "project", SECRET, clock)
    snapshot.write(store)
    report = purge.purge(store, gone.id)
    assert report.legacy_files_with_text == []
    page = snapshot.path().read_text(encoding="utf-8")
    assert SECRET not in page and keep.id in page


def test_purge_removes_the_text_from_the_injection_logs_prompt_excerpts(
    data_dir: Path, store: Store, clock: FakeClock
) -> None:
    """The injection log keeps an excerpt of each prompt: one that held the purged text (or its
    beginning, where the excerpt was cut) loses its excerpt; the rest of the log stays."""
    from memevo.core.service.injection_log import Bookkeeper

    gone = memories.create(store, "project", SECRET, clock)
    books = Bookkeeper(lambda: store, clock)
    books.log_injection("claude", "s", "prompt", "p1", [gone.id], 80, f"记一下：{SECRET}")
    books.log_injection("claude", "s", "prompt", "p2", [gone.id], 80, "x" * 190 + SECRET)  # cut mid-text
    books.log_injection("claude", "s", "prompt", "p3", [], 80, "an unrelated prompt")
    books.close()
    purge.purge(store, gone.id)
    kept = dict(store.query("SELECT prompt_id, prompt FROM injections"))
    assert kept == {"p1": None, "p2": None, "p3": "an unrelated prompt"}
    assert _files_with(data_dir, SECRET[:12]) == []


# -- 3. no yes, no purge ----------------------------------------------------------------------------------
@pytest.mark.parametrize("stdin", ["n\n", "y\n", None])
def test_purge_without_yes_refuses_when_it_cannot_ask(
    data_dir: Path, clock: FakeClock, run_cli: Run, stdin: str | None
) -> None:
    gone = _fill(data_dir, clock, n=1)
    env = {"MEMEVO_NO_SERVICE": "1"}
    if stdin is None:
        done = run_cli("purge", gone, env=env, stdin=subprocess.DEVNULL)
    else:
        done = run_cli("purge", gone, env=env, input=stdin)
    assert done.returncode != 0
    assert "--yes" in done.stderr and "nothing purged" in done.stderr
    with Store.open(read_only=True) as s:
        assert memories.get(s, gone).text == SECRET
