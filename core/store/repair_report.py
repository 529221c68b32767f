"""What `memevo repair` says it did: the outcome, the way the store came back, the rows saved
per table and what may be lost, as lines for a person and as JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Tables whose lost rows matter to the user; the others are rebuilt (vectors) or bookkeeping.
USER_TABLES = ("memories", "trash", "state")


@dataclass
class TableReport:
    saved: int
    expected: int | None = None  # rows the damaged file counts (None: unknown)
    from_backup: int = 0

    def as_json(self) -> dict[str, int | None]:
        return {"saved": self.saved, "expected": self.expected, "from_backup": self.from_backup}


@dataclass
class RepairReport:
    outcome: str  # healthy | repaired | restored | emptied
    damage: str | None = None
    method: str | None = None  # wal-cut | wal-set-aside | salvaged | daily-backup | empty
    kept: list[str] = field(default_factory=list)
    tables: dict[str, TableReport] = field(default_factory=dict)
    lost: list[str] = field(default_factory=list)
    backup: str | None = None
    stopped_service: bool = False
    now: dict[str, int] = field(default_factory=dict)  # memories and trash rows in the store now

    def as_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "damage": self.damage,
            "method": self.method,
            "kept": self.kept,
            "tables": {name: t.as_json() for name, t in self.tables.items()},
            "lost": self.lost,
            "backup": self.backup,
            "stopped_service": self.stopped_service,
            "now": self.now,
        }

    def lines(self) -> list[str]:
        if self.outcome == "healthy":
            return [
                "the memory store reads cleanly; nothing to repair "
                f"({self.now.get('memories', 0)} memories, {self.now.get('trash', 0)} in the trash)"
            ]
        out = []
        if self.stopped_service:
            out.append("stopped the memevo service, which could not use the damaged store")
        out.append(f"damage found: {self.damage}")
        if self.kept:
            out.append(f"a copy of the damaged files is kept in {Path(self.kept[0]).parent}")
        out.append(_METHODS[self.method or "empty"].format(backup=self.backup))
        for name, table in self.tables.items() if self.method == "salvaged" else ():
            if name not in USER_TABLES and table.expected in (None, table.saved):
                continue
            of = f" of {table.expected}" if table.expected is not None else ""
            extra = f" (+{table.from_backup} from the daily backup)" if table.from_backup else ""
            out.append(f"  {name}: {table.saved}{of} rows saved{extra}")
        out.append(
            f"the store works again: {self.now.get('memories', 0)} memories, "
            f"{self.now.get('trash', 0)} in the trash"
        )
        if self.lost:
            out.append("what may be lost:")
            out += [f"  - {line}" for line in self.lost]
        else:
            out.append("nothing was lost")
        return out


_METHODS = {
    "wal-cut": "kept the file and the write-ahead log up to its damaged entry",
    "wal-set-aside": "kept the file; its damaged write-ahead log was set aside",
    "salvaged": "copied every row that could be read into a fresh file",
    "daily-backup": "restored the daily backup {backup}",
    "empty": "no row could be read and there is no daily backup: started an empty store",
}
