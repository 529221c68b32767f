"""A damaged store is recoverable: real files damaged the ways disks and crashes damage them
(a WAL corrupted after a kill -9 of the service, a broken header, a file cut short, a bad
data block), real `memevo` processes against them, and the daily backups repair uses."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import servicerun
from clijson import cli_json
from deadlines import CALL_S, HANG_S
from memevo.core import config as config_mod
from memevo.core import paths
from memevo.core.clock import FakeClock
from memevo.core.errors import StoreDamaged
from memevo.core.memories import live as memories
from memevo.core.memories import maintenance, purge
from memevo.core.service import client
from memevo.core.service.damaged import DAMAGED_NOTICE
from memevo.core.store import backups
from memevo.core.store.damage import damage_detail
from memevo.core.store.database import Store

Cli = Callable[..., subprocess.CompletedProcess[str]]
REMEDY = "memevo repair"


# -- making and damaging real stores -------------------------------------------------------------
def _store_file() -> Path:
    return paths.store_path()


def _wal() -> Path:
    return _store_file().with_name(_store_file().name + ".wal")


def _flip(path: Path, offset: int, count: int = 32) -> None:
    data = bytearray(path.read_bytes())
    for i in range(offset, min(offset + count, len(data))):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))


def _populate(count: int, clock: FakeClock, vectors: bool = False) -> list[str]:
    """count memories (alternating groups), checkpointed into the file; the ids."""
    ids = []
    with Store.open() as store:
        for i in range(count):
            category = "rule" if i % 2 else "project"
            ids.append(
                memories.create(store, category, f"memory number {i:05d}: keep the build green", clock).id
            )
        if vectors:
            with store.transaction() as con:
                con.execute(
                    "INSERT INTO vectors SELECT id, 'test-model', 'sha', "  # 384 random float32s' bytes
                    "unhex(array_to_string([md5(random()::VARCHAR) for x in range(96)], '')) FROM memories"
                )
        store.checkpoint()
    return ids


def _block_of(table: str, column: str) -> int:
    """The byte offset of a block that holds this column's data."""
    import duckdb

    con = duckdb.connect(str(_store_file()), read_only=True)
    try:
        rows = con.execute(
            "SELECT block_id FROM pragma_storage_info(?) WHERE column_name = ? AND block_id >= 0",
            [table, column],
        ).fetchall()
        size = con.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0]
    finally:
        con.close()
    assert rows, f"no block holds {table}.{column}"
    return 3 * 4096 + int(rows[0][0]) * int(size)


KILLED_WRITER = textwrap.dedent(
    """
    import os, signal, sys
    from memevo.core.memories import live as memories
    from memevo.core.clock import FakeClock
    from memevo.core.service import fallback_texts as caches
    from memevo.core.store.database import Store
    store = Store.open()
    caches.write(store, False)
    store.checkpoint()
    for text in sys.argv[1:]:
        memories.create(store, "rule", text, FakeClock())
    os.kill(os.getpid(), signal.SIGKILL)  # a crash: the last changes are only in the WAL
    """
)


def _killed_writer(texts: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", KILLED_WRITER, *texts], capture_output=True, timeout=HANG_S)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert _wal().exists()


def _corrupt_wal_at(text: str) -> int:
    """Flip a byte inside the WAL entry that carries `text` (its checksum then fails)."""
    data = _wal().read_bytes()
    where = data.find(text.encode())
    assert where > 0, "the text is not in the WAL"
    _flip(_wal(), where + 3, 1)
    return where


def _says_damaged(done: subprocess.CompletedProcess[str]) -> None:
    """One line naming the damage and the remedy; no DuckDB traceback."""
    assert done.returncode != 0
    assert REMEDY in done.stderr and "memory store is damaged" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _kept_copies_are_private(report: dict[str, Any]) -> None:
    assert report["kept"], report
    for name in report["kept"]:
        kept = Path(name)
        assert kept.is_file() and _mode(kept) == 0o600
        assert _mode(kept.parent) == 0o700 and _mode(kept.parent.parent) == 0o700


def _rules(run_cli: Cli) -> list[str]:
    return [m["text"] for m in cli_json(run_cli("read", "rule", "--all", "--json"))["memories"]]


# -- the messages ------------------------------------------------------------------------------
# Real DuckDB messages, from the damage the tests below make (paths shortened).
MESSAGES = {
    'Failure while replaying WAL file "/d/memevo.duckdb.wal": Corrupt WAL file: entry at byte position 93 '
    "computed checksum 220331687878334752 does not match stored checksum 16483091370468301520": "corrupt from byte 93",
    'IO Error: Failure while replaying WAL file "/d/memevo.duckdb.wal": WAL does not match database file.': (
        "does not belong"
    ),
    'IO Error: The file "/d/memevo.duckdb" exists, but it is not a valid DuckDB database file!': "not a valid",
    "Corrupt database file: computed checksum 1216624092223363915 does not match stored checksum "
    "3196014971936526595 in block at location 4096": "a header of memevo.duckdb",
    "Corrupt database file: computed checksum 1 does not match stored checksum 2 in block at location 274432": (
        "a data block"
    ),
    'IO Error: Could not read enough bytes from file "/d/memevo.duckdb": attempted to read 262144 bytes '
    "from location 12288": "cut short",
    'Failure while replaying WAL file "/d/memevo.duckdb.wal": Corrupt file - database identifier in header '
    "out of range": "cannot be replayed: Corrupt file",
    'TransactionContext Error: Failure while replaying WAL file "/d/memevo.duckdb.wal": Failed to commit: '
    'Could not read enough bytes from file "/d/memevo.duckdb": attempted to read 137216 bytes from location '
    "661504": "while replaying",
}


@pytest.mark.parametrize("message", MESSAGES)
def test_duckdb_damage_messages_are_recognised(message: str) -> None:
    detail = damage_detail(message, Path("/d/memevo.duckdb"))
    assert detail is not None and MESSAGES[message] in detail
    assert "memevo repair" in str(StoreDamaged(detail))


@pytest.mark.parametrize(
    "message",
    [
        'IO Error: Could not set lock on file "/d/memevo.duckdb": Conflicting lock is held in python3 (PID 7)',
        "IO Error: Trying to read a database file with version number 99, but we can only read version 64",
        "Catalog Error: Table with name nope does not exist!",
    ],
)
def test_other_errors_are_not_called_damage(message: str) -> None:
    assert damage_detail(message, Path("/d/memevo.duckdb")) is None


# -- damage, the commands, and repair ------------------------------------------------------------
def test_wal_corrupted_after_a_kill_9_of_the_service(run_cli: Cli, data_dir: Path) -> None:
    texts = [f"rule {i}: run the linter before each commit" for i in range(1, 6)]
    with _serve(data_dir) as service:
        for text in texts:
            run_cli("rule", "add", text, check=True)
        service.send_signal(signal.SIGKILL)
        service.wait(20)
    _corrupt_wal_at(texts[3])  # the fourth rule's entry: the three before it were committed earlier
    for command in (["list"], ["read", "rule"], ["rule", "add", "written into a damaged store"]):
        done = run_cli(*command)
        _says_damaged(done)
        assert done.returncode == StoreDamaged.exit_code
    report = cli_json(run_cli("repair", "--json"))
    assert report["outcome"] == "repaired" and report["method"] == "wal-cut", report
    assert "write-ahead log" in report["damage"]
    assert any("write-ahead log" in line for line in report["lost"])
    _kept_copies_are_private(report)
    assert {Path(k).name for k in report["kept"]} == {"memevo.duckdb", "memevo.duckdb.wal"}
    assert _rules(run_cli) == texts[2::-1]  # the three committed before the damaged entry, newest first
    assert not _wal().exists()  # the damaged log is set aside (its copy is kept)
    run_cli("rule", "add", "the store takes writes again", check=True)
    text = run_cli("repair").stdout
    assert "nothing to repair" in text and "4 memories" in text


def test_a_wal_with_a_damaged_header_is_set_aside(run_cli: Cli, data_dir: Path) -> None:
    _killed_writer(["rule kept in the wal only: use pnpm"])
    _flip(_wal(), 8, 8)  # the header that ties the log to its file
    damaged_log = _wal().read_bytes()
    _says_damaged(run_cli("list"))
    report = cli_json(run_cli("repair", "--json"))
    assert report["method"] == "wal-set-aside", report
    assert report["lost"] == [report["lost"][0]] and "set-aside write-ahead log (" in report["lost"][0]
    assert Path(report["kept"][1]).read_bytes() == damaged_log
    assert cli_json(run_cli("list", "--json"))["counts"]["rule"]["live"] == 0  # the rule was only in the log


def test_damaged_header_restores_the_newest_daily_backup(
    run_cli: Cli, data_dir: Path, clock: FakeClock
) -> None:
    ids = _populate(6, clock)
    with Store.open() as store:
        maintenance.run(store, clock, config_mod.load())  # today's backup
        memories.create(store, "rule", "written after the backup was taken", clock)
        store.checkpoint()
    for header in (4096, 8192):  # both copies of the database header
        _flip(_store_file(), header + 100)
    _says_damaged(run_cli("list"))
    report = cli_json(run_cli("repair", "--json"))
    assert report["outcome"] == "restored" and report["method"] == "daily-backup", report
    assert report["backup"].endswith(f"memevo-{clock.local_day(clock.now_ms())}.duckdb")
    assert report["tables"]["memories"]["saved"] == 6
    assert any("since the daily backup of 2026-01-01" in line for line in report["lost"])
    _kept_copies_are_private(report)
    listed = cli_json(run_cli("read", "rule", "--all", "--json"))["memories"]
    assert sorted(m["id"] for m in listed) == sorted(ids[1::2])


def test_not_a_duckdb_file_and_no_backup_starts_empty(run_cli: Cli, data_dir: Path, clock: FakeClock) -> None:
    _populate(2, clock)
    _store_file().write_bytes(b"this is not a database" * 1000)
    _says_damaged(run_cli("list"))
    report = cli_json(run_cli("repair", "--json"))
    assert report["outcome"] == "emptied" and report["method"] == "empty"
    assert any("no daily backup" in line for line in report["lost"])
    kept = Path(report["kept"][0])
    assert kept.read_bytes().startswith(b"this is not a database")  # the damaged file, for a specialist
    assert cli_json(run_cli("list", "--json"))["counts"]["rule"]["live"] == 0
    run_cli("rule", "add", "a fresh start works", check=True)


def test_truncated_file_keeps_every_row_that_can_be_read(
    run_cli: Cli, data_dir: Path, clock: FakeClock
) -> None:
    _populate(2000, clock, vectors=True)
    size = _store_file().stat().st_size
    with open(_store_file(), "r+b") as handle:
        handle.truncate(size * 2 // 3)
    _says_damaged(run_cli("list"))
    done = run_cli("repair")
    assert done.returncode == 0, done.stderr
    assert "copied every row that could be read" in done.stdout
    assert "memories: 2000 of 2000 rows saved" in done.stdout
    listed = cli_json(run_cli("list", "--json"))["counts"]
    assert listed["rule"]["live"] + listed["project"]["live"] == 2000
    with Store.open(read_only=True) as store:
        saved_vectors = store.query("SELECT count(*) FROM vectors")[0][0]
    assert saved_vectors < 2000  # the cut cost vectors, which the service re-encodes
    assert "vectors:" in done.stdout and "re-encoded" in done.stdout


def test_a_bad_data_block_is_salvaged_and_completed_from_the_daily_backup(
    run_cli: Cli, data_dir: Path, clock: FakeClock
) -> None:
    ids = _populate(300, clock)
    with Store.open() as store:
        maintenance.run(store, clock, config_mod.load())
    _flip(_store_file(), _block_of("memories", "text") + 200, 64)
    # DuckDB opens the file (it reads a block when a query needs it); memevo reads the
    # memories at every open, so every command names the damage.
    with pytest.raises(StoreDamaged, match="table memories"):
        Store.open(read_only=True)
    _says_damaged(run_cli("read", "project"))
    report = cli_json(run_cli("repair", "--json"))
    assert report["method"] == "salvaged", report
    table = report["tables"]["memories"]
    assert table["expected"] == 300 and table["saved"] + table["from_backup"] == 300
    assert table["from_backup"] > 0
    listed = cli_json(run_cli("read", "project", "--all", "--json"))["memories"]
    assert sorted(m["id"] for m in listed) == sorted(ids[0::2])


def test_repair_on_a_healthy_store_changes_nothing(run_cli: Cli, data_dir: Path, clock: FakeClock) -> None:
    _populate(3, clock)
    before = _store_file().read_bytes()
    report = cli_json(run_cli("repair", "--json"))
    assert report["outcome"] == "healthy" and report["now"] == {"memories": 3, "trash": 0}
    assert _store_file().read_bytes() == before
    assert not (paths.backups_dir()).exists()


def test_repair_refuses_while_another_command_holds_the_store(run_cli: Cli, data_dir: Path) -> None:
    from test_store import _hold_lock

    with _hold_lock(30):
        done = run_cli("repair")
    assert done.returncode == 3 and "another memevo process" in done.stderr


# -- the service ---------------------------------------------------------------------------------
@contextmanager
def _serve(data_dir: Path) -> Iterator[subprocess.Popen[str]]:
    """A real `memevo serve`, answering (its model need not be loaded)."""
    env = os.environ | {"MEMEVO_HOME": str(data_dir)}
    with subprocess.Popen(
        [sys.executable, "-m", "memevo.cli", "serve"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as proc:
        try:
            servicerun.wait_for(data_dir, model=False)
            yield proc
        finally:
            if proc.poll() is None:
                servicerun.stop(data_dir, proc)


def _status_when(data_dir: Path, ready: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    status: dict[str, Any] | None = None
    while time.monotonic() < deadline:
        status = servicerun.ping(data_dir)
        if status and ready(status):
            return status
        time.sleep(0.2)
    raise AssertionError(f"the service never said so: {status}")


def _damage(kind: str, clock: FakeClock) -> str:
    """Damage the store one way; what the service's status must name."""
    if kind == "wal":
        _killed_writer(["rule before the damage: tabs", "rule in the damaged entry: spaces"])
        _corrupt_wal_at("rule in the damaged entry")
        return "write-ahead log"
    _populate(200, clock, vectors=True)
    if kind == "truncated":
        with open(_store_file(), "r+b") as handle:
            handle.truncate(_store_file().stat().st_size - 300_000)
        return "cut short"
    _flip(_store_file(), _block_of("vectors", "vec") + 200, 64)
    return "fails its checksum"


@pytest.mark.parametrize("kind", ["wal", "truncated", "block"])
def test_the_service_names_the_damage_and_repair_stops_it(
    kind: str, run_cli: Cli, data_dir: Path, clock: FakeClock
) -> None:
    expected = _damage(kind, clock)
    with _serve(data_dir) as service:
        status = _status_when(data_dir, lambda s: bool(s.get("store_error")))
        assert expected in status["store_error"] and REMEDY in status["store_error"]
        assert "model could not be loaded" not in (status["model_error"] or "")  # not blamed on the model
        shown = run_cli("service", "status")
        assert "store error" in shown.stdout and REMEDY in shown.stdout
        # whether the store could not be opened at all (wal) or a block failed the service's
        # check after it opened (truncated, block): every command and hook says so alike
        _says_damaged(run_cli("list"))  # answered by the service
        _says_damaged(run_cli("rule", "add", "written into a damaged store"))
        os.environ["MEMEVO_HOME"] = str(data_dir)
        start = client.call("hook_session_start", {"client": "claude", "flavor": "claude"}, timeout_s=CALL_S)
        cache = data_dir / "cache" / "session-start-claude.txt"
        cached = cache.read_text(encoding="utf-8") if cache.exists() else ""  # none written before the damage
        assert start["context"] == (f"{cached}\n\n{DAMAGED_NOTICE}" if cached else DAMAGED_NOTICE)
        report = cli_json(run_cli("repair", "--json"))
        assert report["stopped_service"] is True and report["outcome"] == "repaired", report
        assert service.wait(20) == 0
    cli_json(run_cli("list", "--json"))
    with _serve(data_dir):  # it starts clean on the repaired store
        status = _status_when(data_dir, lambda s: s.get("model_ready") or bool(s.get("model_error")))
        assert status["store_error"] is None


def test_repair_leaves_a_healthy_service_alone(run_cli: Cli, data_dir: Path, clock: FakeClock) -> None:
    _populate(2, clock)
    with _serve(data_dir) as service:
        done = run_cli("repair")
        assert done.returncode == 3, done.stderr
        assert "stop it first: `memevo service stop`" in done.stderr
        assert service.poll() is None


def test_the_tray_shows_the_damage_and_its_remedy(qtbot, data_dir: Path) -> None:
    import asyncio

    from memevo.core.service.damaged import mark as serve_damaged
    from memevo.core.service.host import ServiceHost
    from memevo.desktop.confirm import ConfirmQueue
    from memevo.desktop.tray import Tray

    damage = StoreDamaged("memevo.duckdb is cut short")
    host = ServiceHost(Store.unusable(_store_file(), damage))
    serve_damaged(host.ctx, damage)
    host.ctx.engine_error = host.ctx.store_error  # as load_engine leaves it
    try:
        tray = Tray(host, asyncio.Event(), ConfirmQueue(host))  # its menu reads the store: no crash
        assert tray.state == "problem"
        tooltip = tray.icon.toolTip()
        assert "记忆库已损坏" in tooltip and REMEDY in tooltip and "model provision" not in tooltip
        assert tray.notifier.shown[-1][1] == tooltip
        assert tray.open_panel() is None  # nothing to show: the remedy again instead
        tray.check_side_failures()
    finally:
        host.close()


# -- daily backups -------------------------------------------------------------------------------
def test_daily_backups_keep_the_seven_newest_days(store: Store, clock: FakeClock) -> None:
    memories.create(store, "rule", "backed up every day", clock)
    days = []
    for _ in range(10):
        assert maintenance.run_if_due(store, clock, config_mod.load()) is not None
        days.append(clock.local_day(clock.now_ms()))
        assert maintenance.run_if_due(store, clock, config_mod.load()) is None  # once a day
        clock.advance(days=1)
    kept = backups.daily_backups()
    assert [b.day for b in kept] == days[::-1][:7]
    assert sorted(p.name for p in backups.daily_dir().iterdir()) == [f"memevo-{d}.duckdb" for d in days[3:]]
    assert _mode(backups.daily_dir()) == 0o700 and _mode(paths.backups_dir()) == 0o700
    assert all(_mode(b.path) == 0o600 for b in kept)
    with Store.open(kept[0].path, read_only=True) as copy:
        assert [m.text for m in memories.ranked(copy, "rule")] == ["backed up every day"]


def test_maintenance_force_takes_todays_backup(run_cli: Cli, data_dir: Path, clock: FakeClock) -> None:
    _populate(1, clock)
    run_cli("maintenance", "--force", check=True)
    assert len(backups.daily_backups()) == 1


def test_purge_removes_the_text_from_daily_backups_and_kept_damaged_files(
    store: Store, clock: FakeClock, data_dir: Path
) -> None:
    secret = "跳板机口令是 purge-me-in-backups-4471"
    keep = memories.create(store, "rule", "this one stays in every backup", clock)
    gone = memories.create(store, "project", secret, clock)
    for _ in range(2):
        maintenance.run(store, clock, config_mod.load())
        clock.advance(days=1)
    damaged = backups.private_dir(paths.backups_dir() / "damaged-20260101-090000")
    (damaged / "memevo.duckdb.wal").write_bytes(b"\x01\x02" + secret.encode() + b"\x03" * 40)
    taken = {b.path: b.path.stat().st_mtime_ns for b in backups.daily_backups()}
    store.checkpoint()
    everything = b"".join(p.read_bytes() for p in data_dir.rglob("*") if p.is_file())
    assert secret.encode() in everything
    report = purge.purge(store, gone.id)
    assert set(report.scrubbed_files) == {*map(str, taken), str(damaged / "memevo.duckdb.wal")}
    everything = b"".join(p.read_bytes() for p in data_dir.rglob("*") if p.is_file())
    assert secret.encode() not in everything
    for daily in backups.daily_backups():
        assert daily.path.stat().st_mtime_ns == taken[daily.path]  # repair reports when it was taken
        assert _mode(daily.path) == 0o600
        with Store.open(daily.path, read_only=True) as copy:
            assert [m.id for m in memories.ranked(copy, "rule")] == [keep.id]
            assert memories.ranked(copy, "project") == []
