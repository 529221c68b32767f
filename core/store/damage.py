"""A damaged store file, told apart from every other error.

DuckDB's own messages read as a short account of the damage (`damage_detail`), a file too short
for the blocks its header says are in use (`check_size`), and the stand-in connection of a store
that could not be opened (`DamagedConnection`). The store (core/store/database.py) checks with these at
every open; `memevo repair` (core/store/repair.py) with them decides what it can save.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import StoreDamaged

# DuckDB keeps three 4 KiB headers before the first block (Storage::BLOCK_START).
HEADER_BYTES = 3 * 4096

# What DuckDB (1.2 – 2.0) says when the file or its WAL is damaged, found by corrupting real
# stores (tests/test_repair.py): a flipped byte in the WAL, in a header, in a data block; a
# file cut short; garbage where the file should be.
_WAL_CORRUPT = re.compile(r"Corrupt WAL file: entry at byte position (\d+)")
_BLOCK_CHECKSUM = re.compile(r"Corrupt database file: .*? in block at location (\d+)", re.S)
_SHORT_READ = re.compile(
    r"Could not read enough bytes from file .*?: attempted to read (\d+) bytes from location (\d+)"
)


def damage_in(exc: BaseException, path: Path) -> StoreDamaged | None:
    """The damage an error reports (itself, when it already is StoreDamaged), or None: met in
    the middle of a request or a command, it is said like damage found at the open."""
    if isinstance(exc, StoreDamaged):
        return exc
    detail = damage_detail(str(exc), path)
    return StoreDamaged(detail) if detail is not None else None


def damage_detail(message: str, path: Path) -> str | None:
    """A short account of the damage DuckDB's error message reports, or None: not damage
    (a lock, a version mismatch, a bug of ours)."""
    name, wal = path.name, f"{path.name}.wal"
    replaying = "Failure while replaying WAL file" in message
    if match := _WAL_CORRUPT.search(message):
        return f"its write-ahead log {wal} is corrupt from byte {match[1]} on"
    if replaying and "WAL does not match database file" in message:
        return f"its write-ahead log {wal} does not belong to {name}"
    if match := _SHORT_READ.search(message):
        where = " (found while replaying the write-ahead log)" if replaying else ""
        return f"{name} is cut short: {match[1]} bytes at byte {match[2]} are missing{where}"
    if match := _BLOCK_CHECKSUM.search(message):
        part = "a header" if int(match[1]) < HEADER_BYTES else "a data block"
        return f"{part} of {name} (at byte {match[1]}) fails its checksum"
    if "not a valid DuckDB database file" in message:
        return f"{name} is not a valid DuckDB database file (its header is damaged)"
    if replaying:
        return f"its write-ahead log {wal} cannot be replayed: {message.split(': ', 1)[-1][:200]}"
    if "Corrupt database file" in message or "Corrupt WAL file" in message:
        return message[:200]
    return None


def check_size(connection: Any, path: Path) -> None:
    """StoreDamaged when the file is too short to hold the blocks its header says are in use
    (a copy or a write cut short): DuckDB itself notices only when it reads a missing block.
    (Not total_blocks: DuckDB cuts free blocks off the end of the file and still counts them.)"""
    # Read whole (not fetchone): DuckDB refuses new work on a connection left half-read.
    rows = connection.execute("SELECT used_blocks, block_size FROM pragma_database_size()").fetchall()
    row = rows[0] if rows else None
    if not row or row[0] is None or row[1] is None:
        return
    needed = HEADER_BYTES + int(row[0]) * int(row[1])
    try:
        size = path.stat().st_size
    except OSError:
        return
    if size < needed:
        raise StoreDamaged(
            f"{path.name} is cut short: {size} bytes, too few for the {needed} its blocks need"
        )


class DamagedConnection:
    """Stands in for the DuckDB connection of a store that could not be opened."""

    def __init__(self, damage: StoreDamaged) -> None:
        self.damage = damage

    def close(self) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        raise StoreDamaged(self.damage.detail)
